#!/usr/bin/env bash
# The layer check: every wing of sim/ may use only the wings below it
# (docs/ARCHITECTURE.md).  Two views, since a call can cross wings
# through a shared header without an include that says so:
#
#  - includes: every `#include "W/x.h"` in sim/V/ names a wing W that is V
#    or lower, and every include of a sim header names its wing;
#  - symbols: every undefined symbol of an object of sim/V/ (`nm -u`) that
#    some other object of sim/ defines is defined in V or lower;
#  - the policy contract: policies/ and policies/score/ include only
#    include/clustersim/ headers.
#
# Wings of one rank (search and fill) are siblings: neither may use the
# other.  The built-in policies and their generated table (build/gen)
# belong to the policy wing.
#
#   scripts/check-layers.sh [BUILD]     (BUILD: the objects, default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cd "$root"

# The wings, lowest first, with their ranks.
ranks="base:0 cluster:1 speed:2 workload:3 engine:4 eval:5 search:6 fill:6
policy:7 exp:8 report:9 rl:10 run:11 sweep:12 cli:13"
rank_of() {
	local r
	for r in $ranks; do
		[ "${r%%:*}" = "$1" ] && { echo "${r#*:}"; return; }
	done
	echo -1
}
# allowed FROM TO: FROM may use TO.
allowed() {
	[ "$1" = "$2" ] && return 0
	local a b
	a=$(rank_of "$1"); b=$(rank_of "$2")
	[ "$b" -ge 0 ] && [ "$b" -lt "$a" ]
}

bad=0
wings=$(cd sim && ls -d */ | tr -d /)
for w in $wings; do
	[ "$(rank_of "$w")" -ge 0 ] || {
		echo "check-layers: sim/$w/ is not a wing of the list" >&2
		bad=1
		continue
	}
done

# Includes.
while IFS=: read -r file line inc; do
	w=${file#sim/}; w=${w%%/*}
	target=${inc#*\"}; target=${target%\"*}
	case $target in
	clustersim/*) continue ;;
	*/*) tw=${target%%/*} ;;
	*)
		if [ -e "sim/$w/$target" ] || ls sim/*/"$target" >/dev/null 2>&1; then
			echo "$file:$line: include '$target' does not name its wing" >&2
			bad=1
		fi
		continue ;;
	esac
	[ -d "sim/$tw" ] || continue
	if ! allowed "$w" "$tw"; then
		echo "$file:$line: wing '$w' includes '$target' of the higher wing '$tw'" >&2
		bad=1
	fi
done < <(grep -nH '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
	$(find sim -name '*.[ch]' -o -name '*.cu' | LC_ALL=C sort) |
	sed 's/^\([^:]*\):\([0-9]*\):.*\(".*"\).*/\1:\2:\3/')

# The policy contract: a built-in policy or score plugin may include
# nothing but include/clustersim/ (and system headers), as a plug-in
# built out of tree could; the Makefile compiles them with -Iinclude alone.
while IFS=: read -r file line inc; do
	target=${inc#*\"}; target=${target%\"*}
	case $target in
	clustersim/*) ;;
	*)
		echo "$file:$line: includes '$target': a policy may use include/clustersim/ only (policies/README.md)" >&2
		bad=1 ;;
	esac
done < <(grep -nH '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
	$(find policies -name '*.c' -o -name '*.h' | LC_ALL=C sort) |
	sed 's/^\([^:]*\):\([0-9]*\):.*\(".*"\).*/\1:\2:\3/')

# Symbols.
# The objects of today's sources (a build folder may still hold the
# object of a source that was since removed or moved).
objs=$(cd "$build" && find sim policies gen -name '*.o' 2>/dev/null | LC_ALL=C sort |
	while read -r o; do
		case $o in
		gen/*) echo "$o" ;;
		*) if [ -f "$root/${o%.o}.c" ] || [ -f "$root/${o%.o}.cu" ]; then
			echo "$o"
		   fi ;;
		esac
	done)
if [ -z "$objs" ]; then
	echo "check-layers: no objects under $build (build first)" >&2
	exit 2
fi
wing_of_obj() { case $1 in sim/*) w=${1#sim/}; echo "${w%%/*}" ;; *) echo policy ;; esac; }
defs=$(mktemp)
trap 'rm -f "$defs"' EXIT
for o in $objs; do
	nm --defined-only -g "$build/$o" | awk -v w="$(wing_of_obj "$o")" \
		'NF >= 3 { print $3, w }'
done | LC_ALL=C sort -u > "$defs"
for o in $objs; do
	w=$(wing_of_obj "$o")
	nm -u "$build/$o" | awk '{ print $2 }' | LC_ALL=C sort -u |
		LC_ALL=C join - "$defs" | while read -r sym tw; do
		if ! allowed "$w" "$tw"; then
			echo "$o: wing '$w' calls '$sym' of the higher wing '$tw'"
		fi
	done
done > "$defs.bad"
if [ -s "$defs.bad" ]; then
	cat "$defs.bad" >&2
	bad=1
fi
rm -f "$defs.bad"

if [ "$bad" -ne 0 ]; then
	echo "check-layers: a wing uses a higher one (docs/ARCHITECTURE.md)" >&2
	exit 1
fi
echo "check-layers: $(echo "$wings" | wc -w) wings, each uses only those below it"
