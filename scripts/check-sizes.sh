#!/usr/bin/env bash
# The size check (docs/ARCHITECTURE.md, conventions): no file under sim/
# over 900 lines and no function over 100 lines, except a function that
# is mostly a data table or a switch that maps names to values (the
# allow-list below, each with its reason).  Lists every file and function that is too long and
# exits 1 when there is one.
#
# Functions are found by counting braces outside comments, strings and
# character constants: a body is a `{` at the top level on a line of its
# own or at the end of a line that closes a parameter list, up to its
# matching `}`; its length is its lines from the `{` to the `}`.
#
#   scripts/check-sizes.sh [DIR]     (DIR: default sim)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=${1:-sim}
max_file=900
max_fn=100

# file:function  reason (one a line; the reason is for the reader)
allow='
'

files=$(find "$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)
bad=0

for f in $files; do
	n=$(wc -l <"$f")
	if [ "$n" -gt "$max_file" ]; then
		echo "$f: $n lines (at most $max_file)"
		bad=1
	fi
done

long=$(awk -v max="$max_fn" '
FNR == 1 { depth = 0; incom = 0; inmacro = 0; sig = ""; start = 0; name = "" }
{
	line = $0
	# Comments (also across lines), strings and character constants.
	out = ""
	while (line != "") {
		if (incom) {
			e = index(line, "*/")
			if (!e) { line = ""; break }
			line = substr(line, e + 2); incom = 0; continue
		}
		if (match(line, /\/\*|\/\/|"|'\''/)) {
			out = out substr(line, 1, RSTART - 1)
			tok = substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
			if (tok == "/*") { incom = 1; continue }
			if (tok == "//") { line = ""; break }
			# skip to the closing quote, past escapes
			q = tok
			while (line != "") {
				c = substr(line, 1, 1)
				if (c == "\\") { line = substr(line, 3); continue }
				line = substr(line, 2)
				if (c == q) break
			}
			out = out q q
			continue
		}
		out = out line; line = ""
	}
	code = out
	# Preprocessor lines at the top level, with their continuations.
	if (inmacro) { inmacro = ($0 ~ /\\$/); next }
	if (depth == 0 && code ~ /^[ \t]*#/) { inmacro = ($0 ~ /\\$/); next }
	if (depth == 0) {
		opens = (code ~ /^\{/ || (code ~ /\)[ \t]*\{[ \t]*$/ && code !~ /=/))
		if (opens && start == 0) {
			s = sig " " code
			sub(/\(.*/, "", s)
			k = split(s, w, /[^A-Za-z0-9_]+/)
			name = ""
			for (i = k; i >= 1; i--) if (w[i] != "") { name = w[i]; break }
			start = FNR
		}
	}
	nl = gsub(/\{/, "{", code); nr = gsub(/\}/, "}", code)
	depth += nl - nr
	if (depth == 0) {
		if (start) {
			len = FNR - start + 1
			if (len > max) printf "%s:%d: %s: %d lines\n", FILENAME, start, name, len
			start = 0
		}
		if (code ~ /[;}]/) sig = ""
		else if (code !~ /^[ \t]*$/) sig = sig " " code
	}
}
' $files)

while IFS= read -r l; do
	[ -n "$l" ] || continue
	file=${l%%:*}
	fn=$(echo "$l" | sed 's/^[^:]*:[0-9]*: \([^:]*\):.*/\1/')
	if printf '%s\n' "$allow" | grep -q "^$file:$fn "; then
		continue
	fi
	echo "$l (at most $max_fn)"
	bad=1
done <<<"$long"

if [ "$bad" -eq 0 ]; then
	echo "check-sizes: no file over $max_file lines, no function over $max_fn"
fi
exit $bad
