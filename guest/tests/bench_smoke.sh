#!/bin/sh
# make test: every benchmark of make bench, once, with tiny sizes, so that
# the benchmark cannot rot unnoticed: guest/bench/bench.sh with one run
# (after its warm-up) of 4 MiB areas and 100 test_vmalloc loops. KTAP: one
# case per benchmark, which passes when bench.sh reported its run, and one
# for the direct-map reports before and after.
OPS=$(sh /tests/bench.sh --list)
# The kernel leaves THP off in a guest with less than 512 MiB of RAM, as
# the test boots are; make bench's have 1 GiB.
echo always >/sys/kernel/mm/transparent_hugepage/enabled
out=$(KPK_BENCH_RUNS=1 KPK_BENCH_MB=4 KPK_VMALLOC_LOOPS=100 \
	sh /tests/bench.sh 2>&1)

echo "KTAP version 1"
echo "1..$(($(echo $OPS | wc -w) + 1))"
echo "$out" | sed 's/^/# /'
n=0
for op in $OPS; do
	n=$((n + 1))
	if echo "$out" | grep -q "^kpk-bench: op=$op run=1 "; then
		echo "ok $n bench_$op"
	else
		echo "not ok $n bench_$op"
	fi
done
n=$((n + 1))
if echo "$out" | grep -q "^kpk-bench: map point=boot" &&
   echo "$out" | grep -q "^kpk-bench: map point=after" &&
   echo "$out" | grep -q "^kpk-bench: done"; then
	echo "ok $n bench_direct_map"
else
	echo "not ok $n bench_direct_map"
fi
