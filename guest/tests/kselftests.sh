#!/bin/sh
# Run the kernel's own selftests that the arch put in /tests/selftests/
# (kpk/selftests.py) and print KTAP: one case per program, from its
# kselftest exit status (0 pass, 4 skip, anything else a failure), with
# its output as diagnostic lines.  With an argument, a /proc/cpuinfo flag
# the programs need, checked first as a case of its own: a program that
# would pass without the feature (protection_keys tests only that
# pkey_alloc() fails) must not pass for the wrong reason.
set -u
need=${1:-}
progs=$(ls /tests/selftests 2>/dev/null)
total=$(echo $progs | wc -w)
n=0
[ -n "$need" ] && total=$((total + 1))
echo "KTAP version 1"
echo "1..$total"
if [ -n "$need" ]; then
	n=1
	if grep -qw "$need" /proc/cpuinfo; then
		echo "ok 1 cpu_has_$need"
	else
		echo "# /proc/cpuinfo: $(grep -m1 -i -e '^Features' -e '^flags' /proc/cpuinfo)"
		echo "not ok 1 cpu_has_$need"
	fi
fi
for p in $progs; do
	n=$((n + 1))
	"/tests/selftests/$p" > /tmp/out 2>&1
	rc=$?
	if grep -q "unsupported CPU/OS" /tmp/out; then
		echo "# $p ran its tests for a CPU without the feature"
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
