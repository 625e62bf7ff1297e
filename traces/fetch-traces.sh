#!/bin/sh
# Downloads every public trace that the shipped experiments (experiments/*.json)
# read, lays them out as the experiments expect (hpc/, gpu/, gpu/gavel/, gpu/shockwave/,
# gpu/openb/, gpu/pollux/) and checks the SHA-256 of each against the copy the documented
# figures were made with.
#
#   traces/fetch-traces.sh            into $CLUSTERSIM_TRACE_DIR, else the
#                                     folder the experiments name by default
#                                     (../shared/traces beside the checkout)
#   traces/fetch-traces.sh DIR        into DIR (then run with
#                                     CLUSTERSIM_TRACE_DIR=DIR)
#   traces/fetch-traces.sh --list     the files, their hashes and sources
#   traces/fetch-traces.sh --check [DIR]   only check the files already there
#
# CLUSTERSIM_TRACE_MIRROR=URL fetches every file from URL/<path> (the same
# layout) instead of its source: a local copy (file:///srv/traces) or a
# mirror.  Files already there with the right hash are kept; a file with
# another hash is an error and is left as it is.  Exit 0 when every file
# is there and checked, 1 otherwise, 2 for a bad command line.
#
# Please cite each source when you publish results made with its trace:
# the Parallel Workloads Archive (Feitelson, Tsafrir and Krakov, JPDC 2014)
# for the HPC logs; Microsoft's Philly trace (Jeon et al., ATC'19) as
# summarised by the Pollux artifact (Qiao et al., OSDI'21); Tiresias (Gu et
# al., NSDI'19); Gavel (Narayanan et al., OSDI'20); Alibaba's
# cluster-trace-gpu-v2023 (Weng et al., ATC'23); the Lublin-Feitelson model
# (Lublin and Feitelson, JPDC 2003), as RLScheduler ships a 10,000-job
# draw of it (Zhang et al., SC'20).
set -eu

pwa=https://www.cs.huji.ac.il/labs/parallel/workload
gh=https://raw.githubusercontent.com

# path sha256 source-url
traces="
hpc/KTH-SP2-1996-2.1-cln.swf.gz 46edbf5efd7a9b00042255615439cc3d81422acb0d9ec8020d41a513a4e29baa $pwa/l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz
hpc/NASA-iPSC-1993-3.1-cln.swf.gz 5589ae9b2fb78e3bf92de097497cf33a91607de1ad54563e43533f7827597f29 $pwa/l_nasa_ipsc/NASA-iPSC-1993-3.1-cln.swf.gz
hpc/CEA-Curie-2011-2.1-cln.swf.gz 2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce $pwa/l_cea_curie/CEA-Curie-2011-2.1-cln.swf.gz
hpc/LLNL-Atlas-2006-2.1-cln.swf.gz 619f9ba7c486c907e28d19136008de4e5a58890e9e0a1a2e489dc66e0ff7b32d $pwa/l_llnl_atlas/LLNL-Atlas-2006-2.1-cln.swf.gz
hpc/lublin_256.swf.gz ba3ee5b59b5bd8dfd369da283bab7b9f968b57fb5e77684eda4e46cfa58694c3 $gh/DIR-LAB/deep-batch-scheduler/c649e852ab3cabbc5ac8e4f46b81b1dd66625831/data/lublin_256.swf
gpu/philly.csv ebffb3dd1589bdf4e7bcd74496201c5ded1d557d498ee14f560463f37ec353da $gh/petuum/adaptdl/osdi21-artifact/simulator/traces/philly.csv
gpu/tiresias-60job.csv 17575949a6e570960db42bc5576739de9c334ed4c664859841c4f01ede38bd1b $gh/SymbioticLab/Tiresias/master/simulator/60_job.csv
gpu/gavel/max_min_fairness.trace dc13589c23c7b77d37d3d1014ff499e0c1ffca2959ce35d0e4ce70b71247424b $gh/stanford-futuredata/gavel/master/scheduler/traces/physical_cluster/max_min_fairness.trace
gpu/shockwave/shockwave-120job.trace f5728b8c038c330d21b98bc5930949d21769bd956e2ad457a4eb167dd33f34d6 $gh/uw-mad-dash/shockwave/8a44f4a27a45760520386809b695d51b665b3679/scheduler/traces/reproduce/120_0.2_5_100_40_25_0,0.5,0.5_0.6,0.3,0.09,0.01_multigpu_dynamic.trace
gpu/pollux/workloads/workload-6.csv d6517c4d57c72e4f362f9e99f285e4f7fee0348913287033f11f02f5cb88f074 $gh/petuum/adaptdl/osdi21-artifact/simulator/workloads/workload-6.csv
gpu/openb/openb_node_list_gpu_node.csv 2beca64b4d3dfa342036a34b56a495c6cef9225db836c81f541282cb1df320b5 $gh/alibaba/clusterdata/master/cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv
gpu/openb/openb_pod_list_default.csv 1ee7ed79c27a3b0861cda8ddba86a004c6aba904caafa329a76ae93ca63834a8 $gh/alibaba/clusterdata/master/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv
gpu/openb/openb_pod_list_gpushare100.csv 12dbc07d6a49bf8641e2275a2ff5bf7be74b5df7d148d531e135b140b95f9a3d $gh/alibaba/clusterdata/master/cluster-trace-gpu-v2023/csv/openb_pod_list_gpushare100.csv
gpu/openb/openb_pod_list_multigpu50.csv 206f2f5959db30ecb7c44e7f13197c8ec50b7a35558ad3777cc3662ef0fe5373 $gh/alibaba/clusterdata/master/cluster-trace-gpu-v2023/csv/openb_pod_list_multigpu50.csv
"

# CLUSTERSIM_TRACE_LIST=FILE replaces the list above by FILE's lines (same
# three fields): for the tests, and for fetching other traces the same way.
if [ -n "${CLUSTERSIM_TRACE_LIST:-}" ]; then
	traces=$(cat "$CLUSTERSIM_TRACE_LIST")
fi

me=fetch-traces.sh
check_only=
case ${1:-} in
--list)
	echo "$traces" | while read -r path sum url; do
		[ -n "$path" ] || continue
		printf '%s\n  sha256 %s\n  from   %s\n' "$path" "$sum" "$url"
	done
	exit 0 ;;
--check) check_only=1; shift ;;
-h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
-*) echo "$me: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "$me: at most one folder (see --help)" >&2; exit 2; }

# The experiments' default: ../../shared/traces from experiments/, that is
# ../shared/traces beside the checkout.
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-${CLUSTERSIM_TRACE_DIR:-$here/../shared/traces}}

if command -v sha256sum >/dev/null 2>&1; then
	sha() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	echo "$me: needs sha256sum or shasum" >&2
	exit 1
fi

# get URL FILE: file:// is copied (wget cannot read it), the rest downloaded.
get() {
	case $1 in
	file://*) cp "${1#file://}" "$2" ;;
	*)
		if command -v curl >/dev/null 2>&1; then
			curl -fsSL --retry 3 -o "$2" "$1"
		elif command -v wget >/dev/null 2>&1; then
			wget -q -O "$2" "$1"
		else
			echo "$me: needs curl or wget" >&2
			return 1
		fi ;;
	esac
}

bad=0
# The loop reads from a here-document, not a pipe, so that bad survives it.
while read -r path sum url; do
	[ -n "$path" ] || continue
	f=$dest/$path
	if [ -e "$f" ]; then
		got=$(sha "$f")
		if [ "$got" = "$sum" ]; then
			echo "$f: ok"
		else
			echo "$me: $f: SHA-256 $got, expected $sum (another" \
			     "version of the trace? remove it to fetch again)" >&2
			bad=1
		fi
		continue
	fi
	if [ -n "$check_only" ]; then
		echo "$me: $f: missing" >&2
		bad=1
		continue
	fi
	[ -n "${CLUSTERSIM_TRACE_MIRROR:-}" ] &&
		url=${CLUSTERSIM_TRACE_MIRROR%/}/$path
	echo "fetching $url"
	mkdir -p "$(dirname "$f")"
	if ! get "$url" "$f.part"; then
		rm -f "$f.part"
		echo "$me: cannot fetch $url" >&2
		bad=1
		continue
	fi
	# A plain source kept gzip-compressed (the path ends in .gz, the
	# source does not): compressed as the shared copy was, gzip -n -9.
	case $path:$url in
	*.gz:*.gz) ;;
	*.gz:*)
		if ! gzip -n -9 <"$f.part" >"$f.gz.part"; then
			rm -f "$f.part" "$f.gz.part"
			echo "$me: cannot compress $url" >&2
			bad=1
			continue
		fi
		mv "$f.gz.part" "$f.part" ;;
	esac
	got=$(sha "$f.part")
	if [ "$got" != "$sum" ]; then
		rm -f "$f.part"
		echo "$me: $url: SHA-256 $got, expected $sum; not kept" >&2
		bad=1
		continue
	fi
	mv "$f.part" "$f"
	echo "$f: ok"
done <<EOF
$traces
EOF
if [ "$bad" != 0 ]; then
	echo "$me: some traces are missing or differ (above)" >&2
	exit 1
fi
echo "all traces in $dest"
