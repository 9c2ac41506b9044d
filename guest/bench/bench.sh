#!/bin/sh
# make bench, in the guest: the page-table benchmarks of pgtbench, then the
# kernel's test_vmalloc module, each run kpk.bench_runs= times (default 7),
# and what the direct map looks like before and after. Every result is a
# "kpk-bench:" line that kpk/bench.py reads; see pgtbench.c for their form.
#
# The environment may set what the command line does: KPK_BENCH_RUNS,
# KPK_VMALLOC_LOOPS and KPK_BENCH_MB (the size of pgtbench's areas, 64 MiB
# by default), as make test's smoke run does (bench_smoke.sh). With
# --list, it prints the names of its benchmarks and stops.
STATS=/sys/kernel/debug/kpkeys/stats
PGTBENCH_OPS="fork_exit_4k fork_exit_thp munmap mprotect fault fault_first fault_cow
	fork_exec idle"
VMALLOC_OPS="vmalloc_fix_size_alloc vmalloc_random_size_alloc
	vmalloc_vm_map_ram"
if [ "$1" = --list ]; then
	echo $PGTBENCH_OPS $VMALLOC_OPS
	exit 0
fi
RUNS=${KPK_BENCH_RUNS:-$(sed -n 's/.*kpk\.bench_runs=\([0-9]*\).*/\1/p' /proc/cmdline)}
RUNS=${RUNS:-7}
LOOPS=${KPK_VMALLOC_LOOPS:-$(sed -n 's/.*kpk\.vmalloc_loops=\([0-9]*\).*/\1/p' /proc/cmdline)}
LOOPS=${LOOPS:-20000}
MB=${KPK_BENCH_MB:-64}
# kpk.bench_ops=a,b: only these benchmarks (for quick measurements).
ONLY=$(sed -n 's/.*kpk\.bench_ops=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')

wanted() {
	[ -z "$ONLY" ] || echo " $ONLY " | grep -q " $1 "
}

# The direct (linear) map: meminfo's DirectMap lines where the arch has
# them (x86), and, from the kernel's page-table dump where it has one at
# /sys/kernel/debug/kernel_page_tables (arm64), how much of the linear
# map is mapped at each level, counting present mappings only.
mapping() {
	line="kpk-bench: map point=$1"
	line="$line $(awk '/^DirectMap/ { sub(":", "", $1); printf "%s_kb=%s ", $1, $2 }' /proc/meminfo)"
	if [ -r /sys/kernel/debug/kernel_page_tables ]; then
		line="$line $(awk '
			function kb(s,  n, u) {
				n = s + 0; u = substr(s, length(s))
				if (u == "K") return n
				if (u == "M") return n * 1024
				if (u == "G") return n * 1024 * 1024
				if (u == "T") return n * 1024 * 1024 * 1024
				return n / 1024
			}
			/^---\[/ { on = /Linear Mapping start/; next }
			on && $1 ~ /^0x/ && ($4 == "RW" || $4 == "ro") { sum[$3] += kb($2) }
			END { for (l in sum) printf "linear_%s_kb=%.0f ", l, sum[l] }
			' /sys/kernel/debug/kernel_page_tables)"
	fi
	echo "$line"
}

stats() {
	[ -r $STATS ] && cat $STATS
}

# "a=1 b=2" from two listings of the counters ("name value" lines): how
# much each counter grew.
delta() {
	printf '%s\n--\n%s\n' "$1" "$2" | awk '
		$0 == "--" { after = 1; next }
		NF >= 2 && !after { a[$1] = $2; order[++n] = $1 }
		NF >= 2 && after { b[$1] = $2 }
		END { for (i = 1; i <= n; i++) printf "%s=%d ", order[i], b[order[i]] - a[order[i]] }'
}

# test_vmalloc's own timing: the "avg" of its Summary line is the time of
# the whole loop of test_loop_count operations, in microseconds.
vmalloc() {
	name=$1 mask=$2
	# A warm-up load, unreported, as pgtbench does.
	insmod /tests/test_vmalloc.ko nr_threads=1 run_test_mask="$mask" \
		test_loop_count="$LOOPS" 2>/dev/null
	for run in $(seq "$RUNS"); do
		# Its init always fails (-EAGAIN, so that it unloads): what
		# tells a run that worked is its own Summary line, in a log
		# cleared of the previous run's.
		dmesg -c >/dev/null
		before=$(stats)
		insmod /tests/test_vmalloc.ko nr_threads=1 run_test_mask="$mask" \
			test_loop_count="$LOOPS" 2>/dev/null
		after=$(stats)
		summary=$(dmesg | grep "Summary: ${name}_test")
		# busybox's insmod loads the module a second time, from
		# memory, when the first load fails, as this one's always
		# does: the test may have run more than once. Count every
		# run, each test_loop_count operations.
		n=$(echo "$summary" | grep -c "failed: 0 .* avg: [0-9]* usec")
		us=$(echo "$summary" | sed -n 's/.*failed: 0 .* avg: \([0-9]*\) usec.*/\1/p' |
			awk '{ s += $1 } END { print s + 0 }')
		if [ -z "$summary" ] || [ "$n" -ne "$(echo "$summary" | wc -l)" ]; then
			echo "kpk-bench: error: test_vmalloc $name: ${summary:-no Summary line (module missing or not loaded)}"
			return
		fi
		echo "kpk-bench: op=vmalloc_$name run=$run ops=$((LOOPS * n)) ns=$((us * 1000)) $(delta "$before" "$after")"
	done
}

mapping boot
for op in $PGTBENCH_OPS; do
	if wanted $op; then
		/tests/pgtbench $op "$RUNS" "$MB" ||
			echo "kpk-bench: error: pgtbench $op exited with status $?"
	fi
done
wanted vmalloc_fix_size_alloc && vmalloc fix_size_alloc 1
wanted vmalloc_random_size_alloc && vmalloc random_size_alloc 8
wanted vmalloc_vm_map_ram && vmalloc vm_map_ram 1024
mapping after
echo "kpk-bench: done"
