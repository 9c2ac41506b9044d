# SPDX-License-Identifier: GPL-2.0
"""make demo: for each architecture, build the patched kernel, boot it in
QEMU with kernel pkeys, and show a stray page-table write being stopped.

The boot is the arch's 'demo' boot: the KUnit suites run first (their
stray writes use copy_to_kernel_nofault(), so a refused write is just
-EFAULT), then LKDTM's WRITE_PGTABLE makes a plain stray write, which
oopses with a pkey fault and kills only the writing process. How the CPU
reports that fault is per-arch data (Arch.demo_fault).
"""

import os
import re

from . import arch as arches, build, deps, initramfs, qemu, qemubuild, tree
from .common import BUILD, LOGS, Fatal, ensure_dir, info
from .results import Results, parse_ktap
from .testrun import guest_chunks


def highlights(arch):
    """What the console must show, in order: (label, pattern)."""
    return (
        ('page tables protected at boot',
         r'kpkeys_hardened_pgtables: on: .*'),
        ('KUnit: nofault stray writes refused, guarded writes allowed',
         r'# kpkeys_hardened_pgtables: pass:\d+ fail:0 skip:0 total:\d+'),
        ('LKDTM makes a plain stray write',
         r'lkdtm: Performing direct entry WRITE_PGTABLE'),
        ('the CPU refuses it', arch.demo_fault),
        ('the kernel oopses, killing only the writer', r'Oops: .*'),
        ('and keeps running', r'kpk-guest: the system is still running.*'),
    )


def demo_arch(arch):
    boot = arch.demo
    if arch.patched_qemu:
        try:
            binary = qemubuild.build()
        except qemubuild.Unavailable as e:
            raise Fatal(f'{arch.name}: the demo needs the QEMU from qemu/: '
                        f'{e}') from e
        arch = arches.with_qemu(arch, binary)
    kernel = build.build(arch)
    initrd = initramfs.build_for(arch)
    missing = qemu.probe(arch, boot)
    if missing:
        raise Fatal(missing)
    log = os.path.join(ensure_dir(LOGS), f'demo-{arch.name}.log')
    info(f'{arch.name}: booting on {qemu.version(arch)} with -cpu '
         f'{boot.cpu}; the console follows')
    res = qemu.boot(arch, boot, kernel, initrd, log, echo=True)
    with open(log, errors='replace') as f:
        text = f.read()

    print('\n' + '=' * 72)
    info(f'{arch.name}: what happened (console log kept in '
         f'{qemu.relpath(log)}):')
    seen = 0
    wanted = highlights(arch)
    for label, pattern in wanted:
        m = re.search(pattern, text)
        print(f'  {"[x]" if m else "[ ]"} {label}')
        if m:
            print(f'        {m.group(0).strip()}')
            seen += 1
    results = Results()
    workdir = os.path.join(BUILD, 'results')
    label = f'demo-{arch.name}'
    parse_ktap(results, label, text.split('kpk-guest: init started')[0],
               workdir)
    for name, chunk in guest_chunks(text).items():
        parse_ktap(results, f'{label}.{name}', chunk, workdir)
    ok = results.summary()
    if not res.ok:
        raise Fatal(f'{arch.name}: the demo boot failed: {res.reason}')
    if seen != len(wanted):
        raise Fatal(f'{arch.name}: the console does not show everything '
                    'the demo is about; see the log')
    return ok


def main(arch_names=None):
    selected = [arches.get(n) for n in (arch_names or arches.ARCH_NAMES)]
    selected = [a for a in selected if a.demo]
    deps.host_tools(selected)
    tree.ensure()
    ok = True
    for arch in selected:
        ok = demo_arch(arch) and ok
    return 0 if ok else 1
