#!/bin/sh
# Downloads the public Parallel Workloads Archive traces that the
# clustersim docs use into a folder (default: the current one):
#   traces/fetch-traces.sh ~/traces
# Files already there are kept.  The traces are the archive's cleaned
# ("cln") versions; please cite the archive (Feitelson, Tsafrir and Krakov,
# "Experience with using the Parallel Workloads Archive", JPDC 2014) when
# you publish results made with them.
set -eu

dest=${1:-.}
base=https://www.cs.huji.ac.il/labs/parallel/workload

# folder-in-archive file
traces="
l_kth_sp2 KTH-SP2-1996-2.1-cln.swf.gz
l_nasa_ipsc NASA-iPSC-1993-3.1-cln.swf.gz
l_cea_curie CEA-Curie-2011-2.1-cln.swf.gz
"

if command -v curl >/dev/null 2>&1; then
	get() { curl -fL --retry 3 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	get() { wget -O "$2" "$1"; }
else
	echo "fetch-traces.sh: needs curl or wget" >&2
	exit 1
fi

mkdir -p "$dest"
echo "$traces" | while read -r dir file; do
	[ -n "$dir" ] || continue
	if [ -s "$dest/$file" ]; then
		echo "$dest/$file: already there"
		continue
	fi
	echo "fetching $base/$dir/$file"
	if ! get "$base/$dir/$file" "$dest/$file.part"; then
		rm -f "$dest/$file.part"
		echo "fetch-traces.sh: cannot download $file" >&2
		exit 1
	fi
	if ! gzip -t "$dest/$file.part" 2>/dev/null; then
		rm -f "$dest/$file.part"
		echo "fetch-traces.sh: $file is not a valid gzip file" >&2
		exit 1
	fi
	mv "$dest/$file.part" "$dest/$file"
done
