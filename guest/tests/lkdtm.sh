#!/bin/sh
# Run LKDTM crash tests and print KTAP. Which tests: /tests/lkdtm.list.
# What each must print: the kernel's own table,
# tools/testing/selftests/lkdtm/tests.txt, read as its run.sh reads it:
# the text after the name must appear in the kernel log (default "call
# trace:"); "XFAIL:" in the log means the test does not apply here.
TRIGGER=/sys/kernel/debug/provoke-crash/DIRECT
TABLE=/tests/lkdtm-tests.txt
tests=$(grep -v '^#' /tests/lkdtm.list)
n=0
echo "KTAP version 1"
echo "1..$(echo $tests | wc -w)"
for t in $tests; do
	n=$((n + 1))
	line=$(grep -E "^$t( |\$)" $TABLE)
	expect=$(echo "$line" | cut -s -d' ' -f2-)
	[ -n "$expect" ] || expect="call trace:"
	if [ -z "$line" ] || ! grep -q "^$t\$" $TRIGGER 2>/dev/null; then
		echo "not ok $n $t"
		echo "# $t: not in $TABLE or not known to LKDTM"
		continue
	fi
	dmesg -c > /dev/null
	# The write is expected to oops and kill the writer: not this shell.
	echo "$t" | cat > $TRIGGER
	log=$(dmesg)
	if echo "$log" | grep -qi "$expect"; then
		echo "ok $n $t"
	elif echo "$log" | grep -q "XFAIL:"; then
		why=$(echo "$log" | grep "XFAIL:" | head -1 | sed 's/.*XFAIL: *//')
		echo "ok $n $t # SKIP $why"
	else
		echo "not ok $n $t"
		echo "# $t: \"$expect\" not in the kernel log"
	fi
done
echo "kpk-guest: the system is still running after the LKDTM tests"
