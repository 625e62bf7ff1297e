#!/bin/sh
# Installs the Debian packages listed in deps/debian-packages.txt that are
# missing: `apt-get update` once, then `apt-get install`, as root or with
# sudo.  Without either it prints the exact command and fails.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
list="$here/deps/debian-packages.txt"
missing=""
for p in $(grep -v '^[[:space:]]*#' "$list" | tr -s '[:space:]' ' '); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "clustersim: installing missing Debian packages:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo"
else
	echo "clustersim: cannot install packages (not root, no sudo). Run:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
