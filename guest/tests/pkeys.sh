#!/bin/sh
# Run the kernel's own protection-keys selftests, put in /tests/selftests/,
# as KTAP (kselftests.sh). protection_keys passes on a CPU without pkeys
# too, testing only that pkey_alloc() fails: so the guest must see POE,
# and a run that took the "unsupported" path fails.
set -u
# protection_keys read()s /etc/passwd into pkey-protected buffers, to see
# the kernel refused them; the guest has no /etc of its own.
mkdir -p /etc
[ -e /etc/passwd ] || echo "root:x:0:0:root:/root:/bin/sh" > /etc/passwd
exec sh /tests/kselftests.sh poe
