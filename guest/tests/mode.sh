#!/bin/sh
# kpkeys_hardened_pgtables=on|off|soft: the mode the command line asks for
# (on when it says nothing) must be the one the kernel reports at boot, and
# the linear map must follow it where the kernel's page-table dump names
# it (arm64): only pages when the feature is on, blocks again when off.
# For boots on a CPU with kernel pkeys. Prints KTAP.
DUMP=/sys/kernel/debug/kernel_page_tables
mode=$(sed -n 's/.*kpkeys_hardened_pgtables=\([^ ]*\).*/\1/p' /proc/cmdline)
[ -n "$mode" ] || mode=on
case $mode in
on)	said="kpkeys_hardened_pgtables: on: " ;;
off)	said="kpkeys_hardened_pgtables: off: kpkeys_hardened_pgtables=off on the command line" ;;
soft)	said="kpkeys_hardened_pgtables: soft mode: " ;;
*)	said="unknown value \"kpkeys_hardened_pgtables=$mode\" ignored" ;;
esac
echo "KTAP version 1"
echo "1..2"
if dmesg | grep -qF "$said"; then
	echo "ok 1 mode_$mode"
else
	echo "not ok 1 mode_$mode"
	echo "# the kernel log lacks \"$said\""
	dmesg | grep "kpkeys_hardened_pgtables" | sed 's/^/# /'
fi

# Kilobytes of the linear map mapped at each level, present mappings only.
sizes=$([ -r $DUMP ] && awk '
	function kb(s,  n, u) {
		n = s + 0; u = substr(s, length(s))
		if (u == "K") return n
		if (u == "M") return n * 1024
		if (u == "G") return n * 1024 * 1024
		return n / 1024
	}
	/^---\[/ { on = /Linear Mapping start/; seen += on; next }
	on && $1 ~ /^0x/ && ($4 == "RW" || $4 == "ro") {
		if ($3 == "PTE") pages += kb($2); else blocks += kb($2)
	}
	END { if (seen) printf "%d %d", pages, blocks }' $DUMP)
if [ -z "$sizes" ]; then
	echo "ok 2 linear_map_$mode # SKIP no \"Linear Mapping\" in $DUMP (arm64's dump names it; x86 maps its direct map with large pages in every mode)"
	exit 0
fi
set -- $sizes
case $mode in
off)	[ "$2" -gt 0 ] ;;
*)	[ "$2" -eq 0 ] ;;
esac
if [ $? -eq 0 ]; then
	echo "ok 2 linear_map_$mode"
else
	echo "not ok 2 linear_map_$mode"
fi
echo "# linear map: $1 kB in pages, $2 kB in blocks"
