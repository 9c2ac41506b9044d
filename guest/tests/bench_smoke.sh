#!/bin/sh
# make test: every benchmark of make bench, once, with tiny sizes, so that
# the benchmark cannot rot unnoticed: guest/bench/bench.sh with one run
# (after its warm-up) of 4 MiB areas and 100 test_vmalloc loops. KTAP: one
# case per benchmark, which passes when bench.sh reported its run with the
# kpkeys counters (the test kernels have them) and no error, and one for
# the direct-map reports before and after. The host checks that the
# benchmarks listed here are those make bench reports (tests/workbench).
#
# Run it last in a boot: it leaves THP on and clears the kernel log.
OPS=$(sh /tests/bench.sh --list)
# The kernel leaves THP off, defrag included, in a guest with less than
# 512 MiB of RAM, as the test boots are; make bench's have 1 GiB.
echo always >/sys/kernel/mm/transparent_hugepage/enabled &&
	echo madvise >/sys/kernel/mm/transparent_hugepage/defrag ||
	echo "# cannot turn THP on"
out=$(KPK_BENCH_RUNS=1 KPK_BENCH_MB=4 KPK_VMALLOC_LOOPS=100 \
	sh /tests/bench.sh 2>&1)

echo "KTAP version 1"
echo "1..$(($(echo $OPS | wc -w) + 1))"
n=0
for op in $OPS; do
	n=$((n + 1))
	# bench.sh's and pgtbench's errors name the op they are about.
	errors=$(echo "$out" | grep "^kpk-bench: error: " |
		grep -w "${op#vmalloc_}")
	line=$(echo "$out" | grep "^kpk-bench: op=$op run=1 ")
	[ -n "$line" ] && echo "# $line"
	[ -n "$errors" ] && echo "$errors" | sed 's/^/# /'
	if [ -n "$line" ] && [ -z "$errors" ] &&
	   echo "$line" | grep -q " pkey_reg_writes=[0-9]"; then
		echo "ok $n bench_$op"
	else
		echo "not ok $n bench_$op"
	fi
done
n=$((n + 1))
# x86: meminfo's DirectMap lines; arm64: the page-table dump's.
boot=$(echo "$out" | grep "^kpk-bench: map point=boot .*_kb=")
after=$(echo "$out" | grep "^kpk-bench: map point=after .*_kb=")
echo "# $boot"
echo "# $after"
if [ -n "$boot" ] && [ -n "$after" ] &&
   echo "$out" | grep -q "^kpk-bench: done"; then
	echo "ok $n bench_direct_map"
else
	echo "not ok $n bench_direct_map"
fi
