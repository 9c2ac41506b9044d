#!/bin/sh
# kpkeys_hardened_pgtables=soft: LKDTM's WRITE_PGTABLE, twice, from this
# shell. The first stray write must warn once, with the violation report,
# and be let through; the second, from the same call site, must not warn;
# the writer lives on. The one warning is announced to the harness with
# a kpk-expect-warn line (kpk/qemu.py): any other warning fails the boot,
# and so, without crash tests (oops=panic), does any oops. Prints KTAP.
TRIGGER=/sys/kernel/debug/provoke-crash/DIRECT
REPORT="outside guard(kpkeys_hardened_pgtables); soft mode lets it through"
THROUGH="kpkeys_hardened_pgtables=soft: the write was let through"
echo "KTAP version 1"
echo "1..2"
# Announced on the console, then cleared from the log the counts read.
echo "kpk-expect-warn: $REPORT" > /dev/kmsg
dmesg -c > /dev/null
for n in 1 2; do
	echo WRITE_PGTABLE > $TRIGGER
	status=$?
	log=$(dmesg -c)
	warnings=$(echo "$log" | grep -c "WARNING: CPU:")
	reports=$(echo "$log" | grep -cF "$REPORT")
	if [ $n = 1 ]; then
		name=first_write_warns_and_goes_on
		want=1
	else
		name=second_write_same_site_is_quiet
		want=0
	fi
	if [ $status -eq 0 ] && [ "$warnings" -eq $want ] &&
	   [ "$reports" -eq $want ] && echo "$log" | grep -qF "$THROUGH"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		echo "# write $n: exit status $status, $warnings warnings, $reports reports (want $want)"
		# Not the warning's own lines: the harness would take them
		# for a warning of the kernel's.
		echo "$log" | grep -E "lkdtm:|outside guard" | sed 's/^/# /'
	fi
done
