#!/usr/bin/env bash
# Side-by-side benchmark of tools/residency against vmtouch, fincore and dd
# on one disk-backed file (default 2 GiB). Prints medians of N runs:
#   1. residency scan time (cached file):  residency FILE  vs vmtouch FILE  vs fincore FILE
#   2. eviction, verified to 0 %:          residency -evict FILE  vs vmtouch -e FILE
#   3. warm-up throughput after eviction:  residency -warm FILE  vs dd if=FILE of=/dev/null bs=1M
# Targets (issue 5): scan ≤ vmtouch's and fincore's; evict within 1.5× of
# vmtouch -e; warm ≥ 95 % of dd's throughput.
#
# Usage: bench/pagecache.sh [-n RUNS] [-s SIZE_MIB] [DIR]
# DIR must be on a disk-backed file system (not tmpfs); default: $TMPDIR or /tmp,
# then ~/.cache. Needs vmtouch and fincore (Debian: apt-get install vmtouch util-linux).
set -euo pipefail

runs=5 size_mib=2048
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
resident_pct() { "$bin" -format json "$f" | awk -F'[:,]' '/"resident"/ {r=$2} /"total"/ {t=$2} END {printf "%.2f", 100*r/t}'; }
cached() { cat "$f" >/dev/null; }

declare -A t
for ((i = 0; i < runs; i++)); do
	cached
	t[scan_res]+="$(elapsed "$bin" "$f") "
	t[scan_vmt]+="$(elapsed vmtouch "$f") "
	t[scan_fin]+="$(elapsed fincore "$f") "

	cached
	t[ev_res]+="$(elapsed "$bin" -evict "$f") "
	p=$(resident_pct); [ "$p" = 0.00 ] || echo "run $i: residency -evict left $p % resident" >&2
	cached
	t[ev_vmt]+="$(elapsed vmtouch -e "$f") "
	p=$(resident_pct); [ "$p" = 0.00 ] || echo "run $i: vmtouch -e left $p % resident" >&2

	vmtouch -e "$f" >/dev/null
	t[warm_dd]+="$(elapsed dd if="$f" of=/dev/null bs=1M) "
	vmtouch -e "$f" >/dev/null
	t[warm_res]+="$(elapsed "$bin" -warm "$f") "
	p=$(resident_pct); [ "$p" = 100.00 ] || echo "run $i: residency -warm left $p % resident" >&2
done

m() { tr ' ' '\n' <<<"${t[$1]}" | grep . | median; }
echo "file: $f ($bytes bytes, $(stat -f -c %T "$f")), $runs runs, medians; $(nproc) CPUs, $(uname -r)"
printf '%-44s %s\n' "scan (cached)  residency FILE" "$(ms "$(m scan_res)")"
printf '%-44s %s\n' "               vmtouch FILE" "$(ms "$(m scan_vmt)")"
printf '%-44s %s\n' "               fincore FILE" "$(ms "$(m scan_fin)")"
printf '%-44s %s\n' "evict          residency -evict FILE (verified)" "$(ms "$(m ev_res)")"
printf '%-44s %s\n' "               vmtouch -e FILE" "$(ms "$(m ev_vmt)")"
printf '%-44s %s (%s)\n' "warm (cold)    residency -warm FILE" "$(ms "$(m warm_res)")" "$(rate "$(m warm_res)")"
printf '%-44s %s (%s)\n' "               dd if=FILE of=/dev/null bs=1M" "$(ms "$(m warm_dd)")" "$(rate "$(m warm_dd)")"
awk -v a="$(m scan_res)" -v v="$(m scan_vmt)" -v f="$(m scan_fin)" -v e="$(m ev_res)" -v ve="$(m ev_vmt)" \
	-v w="$(m warm_res)" -v d="$(m warm_dd)" 'BEGIN {
	printf "scan: residency/vmtouch %.2f, residency/fincore %.2f (target ≤ 1)\n", a/v, a/f
	printf "evict: residency/vmtouch -e %.2f (target ≤ 1.5)\n", e/ve
	printf "warm: residency throughput / dd %.1f %% (target ≥ 95 %%)\n", 100*d/w
}'
