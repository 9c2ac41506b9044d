#!/bin/sh
# Trigger the one LKDTM test named by kpk.lkdtm= on the kernel command
# line, which must panic the kernel: the boot's "panics" setting says
# with what message (kpk/arch.py). Coming back from the trigger is the
# failure, and is printed as such.
TRIGGER=/sys/kernel/debug/provoke-crash/DIRECT
t=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^kpk\.lkdtm=//p')
echo "KTAP version 1"
echo "1..1"
if [ -z "$t" ] || ! grep -q "^$t\$" $TRIGGER 2>/dev/null; then
	echo "not ok 1 $t"
	echo "# kpk.lkdtm=$t: not given, or not known to LKDTM"
	exit 0
fi
echo "$t" | cat > $TRIGGER
echo "not ok 1 $t"
echo "# $t: the kernel went on after it"
