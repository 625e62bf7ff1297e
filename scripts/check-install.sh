#!/bin/sh
# make install as a packager runs it, checked: installs into a temporary
# DESTDIR, then checks each installed file, renders the man page (groff,
# no warnings), completes a command and an option with the completion
# script, builds tests/plugin/example_plugin.c out of tree with only
# `pkg-config --cflags clustersim` (PKG_CONFIG_PATH and
# PKG_CONFIG_SYSROOT_DIR pointing into DESTDIR), loads it with the
# installed binary, and checks that make uninstall leaves no file.
#   usage: scripts/check-install.sh [BIN]   (BIN: the built binary)
set -eu
bin=${1:-build/clustersim}
make=${MAKE:-make}
d=$(mktemp -d /tmp/clustersim-install-XXXXXX)
trap 'rm -rf "$d"' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }

$make -s --no-print-directory install DESTDIR="$d/root" PREFIX=/usr \
	BIN="$bin" >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "make install failed"; }
r=$d/root/usr
for f in bin/clustersim share/man/man1/clustersim.1 \
	 share/bash-completion/completions/clustersim \
	 include/clustersim/policy.h include/clustersim/score.h \
	 lib/pkgconfig/clustersim.pc share/clustersim/plots/wait_cdf.gp; do
	[ -f "$r/$f" ] || fail "not installed: PREFIX/$f"
done

if command -v groff >/dev/null 2>&1; then
	w=$(groff -man -Tutf8 -ww -z "$r/share/man/man1/clustersim.1" 2>&1)
	[ -z "$w" ] || fail "groff warns on clustersim.1: $w"
else
	echo "check-install: groff not found, man page not rendered" >&2
fi

got=$(bash -c '. "$1"; COMP_WORDS=(clustersim swe); COMP_CWORD=1; _clustersim
	echo "${COMPREPLY[*]}"; COMP_WORDS=(clustersim sweep --dry); COMP_CWORD=2
	_clustersim; echo "${COMPREPLY[*]}"' sh \
	"$r/share/bash-completion/completions/clustersim")
[ "$got" = "sweep
--dry-run" ] || fail "completion gave '$got'"

mkdir "$d/src"
cp tests/plugin/example_plugin.c "$d/src/"
flags=$(PKG_CONFIG_PATH="$r/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d/root" \
	pkg-config --cflags clustersim) || fail "pkg-config --cflags failed"
(cd "$d/src" && ${CC:-cc} -std=c11 -Wall -Wextra -Werror -fPIC -shared \
	$flags example_plugin.c -o lifo.so) || fail "plug-in build failed ($flags)"
out=$(cd "$d" && "$r/bin/clustersim" policies --plugin "$d/src/lifo.so") ||
	fail "the installed binary did not load the plug-in"
echo "$out" | grep -q '^lifo .*an example plug-in' ||
	fail "the plug-in's policy is not listed: $out"

$make -s --no-print-directory uninstall DESTDIR="$d/root" PREFIX=/usr \
	>"$d/log" 2>&1 || { cat "$d/log" >&2; fail "make uninstall failed"; }
left=$(find "$d/root" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "check-install: make install and uninstall ok (DESTDIR, PREFIX, pkg-config plug-in)"
