#!/usr/bin/env bash
# Output hashes: the SHA-256 of every result file that `make run` and each
# experiments/*.json write, so that a change meant to leave outputs alone
# (a refactoring, a speed-up) can show that it did.
#
#   scripts/output-hashes.sh [BIN] > hashes.txt
#   diff old-hashes.txt new-hashes.txt
#
# Each experiment runs from the repository root with --no-plots into a
# temporary folder.  Every CSV and JSON file under it is hashed except
# manifest.json (it records the tool version and the run's own paths).
# Columns that record wall-clock time (a CSV header named wall_s) are cut
# out first.  Optimize experiments run greedy, ga and sa on a fixed budget
# of evaluations instead of their time limits (ilp stops on a time limit,
# so it is left out; its own tests pin it).  An experiment whose trace is
# absent is listed as skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/clustersim}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
out=$(mktemp -d)
trap 'rm -rf "$out" "$root"/experiments/.hashes-*.json' EXIT
cd "$root"

# cut_wall FILE: the file without its wall_s column, if it has one.
cut_wall() {
	awk -F, -v OFS=, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") drop[i] = 1 }
		{ s = ""; sep = ""
		  for (i = 1; i <= NF; i++) if (!(i in drop)) { s = s sep $i; sep = OFS }
		  print s }' "$1"
}

for exp in experiments/*.json; do
	name=$(basename "$exp" .json)
	dir=$out/$name
	if grep -q '"optimize"' "$exp"; then
		tmp=experiments/.hashes-$name.json
		sed -e '/"wall_s"/d' -e 's/"evals": *[0-9]*/"evals": 20000/' \
		    -e 's/, *"ilp"//' "$exp" > "$tmp"
		cmd=(optimize "$tmp")
	else
		cmd=(run "$exp" --no-plots)
	fi
	if ! msg=$("$bin" "${cmd[@]}" -o "$dir" --quiet 2>&1); then
		case $msg in
		*"cannot open"*|*"No such file"*)
			echo "skipped $name: ${msg%%$'\n'*}"; continue ;;
		esac
		echo "$name: failed: $msg" >&2
		exit 1
	fi
	(cd "$dir" && find . -type f \( -name '*.csv' -o -name '*.json' \) \
		! -name manifest.json | LC_ALL=C sort) | while read -r f; do
		printf '%s  %s/%s\n' "$(cut_wall "$dir/$f" | sha256sum | cut -c1-64)" \
			"$name" "${f#./}"
	done
done
