# SPDX-License-Identifier: GPL-2.0
"""make demo: build the patched x86_64 kernel, boot it in QEMU with PKS, and
show a stray page-table write being stopped.

The boot is the arch's 'demo' boot: the KUnit suites run first (their
stray writes use copy_to_kernel_nofault(), so a refused write is just
-EFAULT), then LKDTM's WRITE_PGTABLE makes a plain stray write, which
oopses with a protection-keys fault and kills only the writing process.
"""

import os
import re

from . import arch as arches, build, deps, initramfs, qemu, tree
from .common import BUILD, LOGS, Fatal, ensure_dir, info
from .results import Results, parse_ktap
from .testrun import guest_chunks

ARCH = 'x86_64'

# What the console must show, in order of appearance: (label, pattern).
HIGHLIGHTS = (
    ('page tables protected at boot', r'kpkeys_hardened_pgtables: on: .*'),
    ('KUnit: nofault stray writes refused, guarded writes allowed',
     r'# kpkeys_hardened_pgtables: pass:\d+ fail:0 skip:0 total:\d+'),
    ('LKDTM makes a plain stray write', r'lkdtm: Performing direct entry '
     r'WRITE_PGTABLE'),
    ('the CPU refuses it', r'#PF: error_code\(0x[0-9a-f]+\) - protection '
     r'keys violation'),
    ('the kernel oopses, killing only the writer', r'Oops: .*'),
    ('and keeps running', r'kpk-guest: the system is still running.*'),
)


def main():
    arch = arches.get(ARCH)
    boot = arch.demo
    deps.host_tools([arch])
    tree.ensure()
    kernel = build.build(arch)
    initrd = initramfs.build_for(arch)
    missing = qemu.probe(arch, boot)
    if missing:
        raise Fatal(missing)
    log = os.path.join(ensure_dir(LOGS), 'demo.log')
    info(f'booting on {qemu.version(arch)} with -cpu {boot.cpu}; the '
         'console follows')
    res = qemu.boot(arch, boot, kernel, initrd, log, echo=True)
    with open(log, errors='replace') as f:
        text = f.read()

    print('\n' + '=' * 72)
    info(f'what happened (console log kept in {qemu.relpath(log)}):')
    seen = 0
    for label, pattern in HIGHLIGHTS:
        m = re.search(pattern, text)
        print(f'  {"[x]" if m else "[ ]"} {label}')
        if m:
            print(f'        {m.group(0).strip()}')
            seen += 1
    results = Results()
    workdir = os.path.join(BUILD, 'results')
    parse_ktap(results, 'demo', text.split('kpk-guest: init started')[0],
               workdir)
    for name, chunk in guest_chunks(text).items():
        parse_ktap(results, f'demo.{name}', chunk, workdir)
    ok = results.summary()
    if not res.ok:
        raise Fatal(f'the demo boot failed: {res.reason}')
    if seen != len(HIGHLIGHTS):
        raise Fatal('the console does not show everything the demo is '
                    'about; see the log')
    return 0 if ok else 1
