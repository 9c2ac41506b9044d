#!/bin/sh
# CPU hotplug: a CPU brought online starts at the default kpkeys level.
# Takes the last CPU offline and back online, then, pinned to it, runs the
# page-table workload (/tests/pgtables: every case must work) and LKDTM's
# WRITE_PGTABLE (a stray write to a page table: it must oops, on that
# CPU, as /tests/lkdtm-tests.txt says). Prints KTAP. For boots with
# crash tests only: the stray write kills its writer.
TRIGGER=/sys/kernel/debug/provoke-crash/DIRECT
TABLE=/tests/lkdtm-tests.txt
cpu=$(($(nproc --all) - 1))
dir=/sys/devices/system/cpu/cpu$cpu
echo "KTAP version 1"
echo "1..3"
if [ "$cpu" -lt 1 ] || [ ! -w "$dir/online" ]; then
	for n in 1 2 3; do
		echo "not ok $n hotplug # cpu$cpu cannot be taken offline"
	done
	exit 0
fi

echo 0 > "$dir/online"
off=$(cat "$dir/online")
echo 1 > "$dir/online"
on=$(cat "$dir/online")
if [ "$off" = 0 ] && [ "$on" = 1 ]; then
	echo "ok 1 offline_online"
else
	echo "not ok 1 offline_online"
	echo "# cpu$cpu read $off offline and $on online"
fi

out=$(taskset -c "$cpu" /tests/pgtables 2>&1)
if [ $? -eq 0 ] && ! echo "$out" | grep -q "^not ok"; then
	echo "ok 2 pgtables_on_cpu$cpu"
else
	echo "not ok 2 pgtables_on_cpu$cpu"
	echo "$out" | sed 's/^/# /'
fi

line=$(grep -E "^WRITE_PGTABLE( |\$)" $TABLE)
expect=$(echo "$line" | cut -s -d' ' -f2-)
[ -n "$expect" ] || expect="call trace:"
dmesg -c > /dev/null
# The write is expected to oops and kill the writer: not this shell.
taskset -c "$cpu" sh -c "echo WRITE_PGTABLE > $TRIGGER"
log=$(dmesg)
if echo "$log" | grep -qi "$expect" &&
   echo "$log" | grep -q "CPU: $cpu "; then
	echo "ok 3 write_pgtable_on_cpu$cpu"
else
	echo "not ok 3 write_pgtable_on_cpu$cpu"
	echo "# \"$expect\" on CPU $cpu not in the kernel log"
fi
