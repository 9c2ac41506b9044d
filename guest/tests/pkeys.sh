#!/bin/sh
# Run the kernel's own protection-keys selftests, put in /tests/selftests/,
# and print KTAP: one case per program, from its kselftest exit status (0
# pass, 4 skip, anything else a failure), with its output as diagnostic
# lines.  protection_keys passes on a CPU without pkeys too, testing only
# that pkey_alloc() fails: so first check that the guest sees POE, and
# fail a run that took the "unsupported" path.
set -u
# protection_keys read()s /etc/passwd into pkey-protected buffers, to see
# the kernel refused them; the guest has no /etc of its own.
mkdir -p /etc
[ -e /etc/passwd ] || echo "root:x:0:0:root:/root:/bin/sh" > /etc/passwd
progs=$(ls /tests/selftests 2>/dev/null)
echo "KTAP version 1"
echo "1..$(($(echo $progs | wc -w) + 1))"
if grep -qw poe /proc/cpuinfo; then
	echo "ok 1 cpu_has_poe"
else
	echo "# /proc/cpuinfo: $(grep -m1 Features /proc/cpuinfo)"
	echo "not ok 1 cpu_has_poe"
fi
n=1
for p in $progs; do
	n=$((n + 1))
	"/tests/selftests/$p" > /tmp/out 2>&1
	rc=$?
	if grep -q "unsupported CPU/OS" /tmp/out; then
		echo "# $p ran its tests for a CPU without protection keys"
		rc=1
	fi
	# awk ends the last line even when the program did not.
	awk '{ print "# " $0 }' /tmp/out
	case $rc in
	0) echo "ok $n $p" ;;
	4) echo "ok $n $p # SKIP $(grep -i skip /tmp/out | tail -1)" ;;
	*) echo "not ok $n $p # exit status $rc" ;;
	esac
done
