#!/usr/bin/env bash
# Side-by-side benchmark of tools/residency against vmtouch, fincore and dd
# on one disk-backed file (default 2 GiB). Prints medians of N runs:
#   1. residency scan time (cached file):  residency FILE  vs vmtouch FILE  vs fincore FILE
#   2. eviction, verified to 0 %:          residency -evict FILE  vs vmtouch -e FILE
#   3. warm-up throughput after eviction:  residency -warm FILE  vs dd if=FILE of=/dev/null bs=1M
# residency counts with cachestat where the kernel has it (Linux 6.5+); 1 and 2
# are also run with -mincore (page-by-page mincore, vmtouch's method).
# Targets (issue 5): scan ≤ vmtouch's and fincore's; evict within 1.5× of
# vmtouch -e; warm ≥ 95 % of dd's throughput.
#
# Usage: bench/pagecache.sh [-n RUNS] [-s SIZE_MIB] [DIR]
# DIR must be on a disk-backed file system (not tmpfs); default: $TMPDIR or /tmp,
# then ~/.cache. Needs vmtouch and fincore (Debian: apt-get install vmtouch util-linux).
set -euo pipefail

runs=7 size_mib=2048
while getopts n:s: o; do
	case $o in
	n) runs=$OPTARG ;;
	s) size_mib=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-s SIZE_MIB] [DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

for t in vmtouch fincore dd go stat; do
	command -v "$t" >/dev/null || { echo "pagecache.sh: $t not found" >&2; exit 2; }
done

pick_dir() {
	for d in "$@"; do
		[ -n "$d" ] && [ -d "$d" ] || continue
		[ "$(stat -f -c %T "$d")" = tmpfs ] && continue
		echo "$d"; return 0
	done
	return 1
}
base=$(pick_dir "${1:-}" "${TMPDIR:-}" /tmp "$HOME/.cache") ||
	{ echo "pagecache.sh: no disk-backed directory (tmpfs cannot evict)" >&2; exit 2; }
work=$(mktemp -d "$base/pagecache-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
f=$work/file
bin=$work/residency

cd "$(dirname "$0")/.."
go build -o "$bin" ./tools/residency
dd if=/dev/urandom of="$f" bs=1M count="$size_mib" conv=fsync status=none
bytes=$(stat -c %s "$f")

now() { date +%s%N; }
# elapsed CMD...: run CMD with output discarded, print its wall time in ns.
elapsed() { local t0; t0=$(now); "$@" >/dev/null 2>&1; echo $(($(now) - t0)); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ms() { awk -v ns="$1" 'BEGIN {printf "%.2f ms", ns/1e6}'; }
rate() { awk -v ns="$1" -v b="$bytes" 'BEGIN {printf "%.0f MB/s", b/(ns/1e9)/1e6}'; }
resident_pct() { "$bin" -mincore -format json "$f" | awk -F'[:,]' '/"resident"/ {r=$2} /"total"/ {t=$2} END {printf "%.2f", 100*r/t}'; }
cached() { cat "$f" >/dev/null; }

declare -A t
# Each run measures every command once; the order of the commands within a
# run alternates, so that a slow stretch of a shared machine does not always
# hit the same command.
scan_cmd() { local k=$1; shift; cached; t[$k]+="$(elapsed "$@" "$f") "; }
evict_cmd() {
	local k=$1; shift
	cached
	t[$k]+="$(elapsed "$@" "$f") "
	local p; p=$(resident_pct); [ "$p" = 0.00 ] || echo "$k: $* left $p % resident" >&2
}
warm_cmd() {
	local k=$1; shift
	vmtouch -e "$f" >/dev/null
	t[$k]+="$(elapsed "$@") "
	local p; p=$(resident_pct); [ "$p" = 100.00 ] || echo "$k: $* left $p % resident" >&2
}
for ((i = 0; i < runs; i++)); do
	steps=(
		"scan_cmd scan_res $bin"
		"scan_cmd scan_vmt vmtouch"
		"scan_cmd scan_fin fincore"
		"scan_cmd scan_rmc $bin -mincore"
		"evict_cmd ev_res $bin -evict"
		"evict_cmd ev_vmt vmtouch -e"
		"evict_cmd ev_rmc $bin -evict -mincore"
		"warm_cmd warm_res $bin -warm $f"
		"warm_cmd warm_dd dd if=$f of=/dev/null bs=1M"
	)
	if ((i % 2)); then
		for ((j = ${#steps[@]} - 1; j >= 0; j--)); do ${steps[j]}; done
	else
		for ((j = 0; j < ${#steps[@]}; j++)); do ${steps[j]}; done
	fi
done

m() { tr ' ' '\n' <<<"${t[$1]}" | grep . | median; }
lo() { tr ' ' '\n' <<<"${t[$1]}" | grep . | sort -n | head -1; }
# row LABEL KEY [rate]: median (min) of one command.
row() {
	if [ -n "${3:-}" ]; then
		printf '%-48s %s (%s), min %s\n' "$1" "$(ms "$(m "$2")")" "$(rate "$(m "$2")")" "$(ms "$(lo "$2")")"
	else
		printf '%-48s %s, min %s\n' "$1" "$(ms "$(m "$2")")" "$(ms "$(lo "$2")")"
	fi
}
echo "file: $f ($bytes bytes, $(stat -f -c %T "$f")), $runs runs, medians; $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
row "scan (cached)  residency FILE" scan_res
row "               vmtouch FILE" scan_vmt
row "               fincore FILE" scan_fin
row "               residency -mincore FILE" scan_rmc
row "evict          residency -evict FILE (verified)" ev_res
row "               vmtouch -e FILE" ev_vmt
row "               residency -evict -mincore FILE" ev_rmc
row "warm (cold)    residency -warm FILE" warm_res rate
row "               dd if=FILE of=/dev/null bs=1M" warm_dd rate
echo "ratios of medians:"
awk -v a="$(m scan_res)" -v v="$(m scan_vmt)" -v f="$(m scan_fin)" -v e="$(m ev_res)" -v ve="$(m ev_vmt)" \
	-v w="$(m warm_res)" -v d="$(m warm_dd)" -v am="$(m scan_rmc)" -v em="$(m ev_rmc)" 'BEGIN {
	printf "scan: residency/vmtouch %.2f, residency/fincore %.2f (target ≤ 1); with -mincore %.2f, %.2f\n", a/v, a/f, am/v, am/f
	printf "evict: residency/vmtouch -e %.2f (target ≤ 1.5); with -mincore %.2f\n", e/ve, em/ve
	printf "warm: residency throughput / dd %.1f %% (target ≥ 95 %%)\n", 100*d/w
}'
