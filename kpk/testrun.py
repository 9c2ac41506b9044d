# SPDX-License-Identifier: GPL-2.0
"""make test: every check, host and guest, on every architecture."""

import os
import time

from . import arch as arches, build, checks, deps, initramfs, qemu, tree
from .common import BUILD, LOGS, Fatal, ensure_dir, info, tail_lines
from .results import FAIL, PASS, SKIP, Results, parse_ktap


def boot_and_parse(results, arch, boot, kernel, initrd):
    """Boot once and add the boot's own check and its KUnit cases."""
    label = boot.name
    missing = qemu.probe(arch, boot)
    if missing:
        results.add(f'{label}: QEMU provides -cpu {boot.cpu}', FAIL, missing)
        return
    results.add(f'{label}: QEMU provides -cpu {boot.cpu}', PASS)
    log = os.path.join(ensure_dir(LOGS), f'boot-{label}.log')
    info(f'booting {label} ({qemu.version(arch)}, log: '
         f'{qemu.relpath(log)})')
    res = qemu.boot(arch, boot, kernel, initrd, log)
    if res.ok:
        results.add(f'{label}: boot ran init to the end ({res.seconds:.0f}s)',
                    PASS)
    else:
        results.add(f'{label}: boot', FAIL,
                    f'{res.reason}; console log {qemu.relpath(log)}')
        print(f'    last lines of {qemu.relpath(log)}:')
        for line in tail_lines(log, 25):
            print('    | ' + line)
    with open(log, errors='replace') as f:
        text = f.read()
    # KUnit runs built in, before init: its KTAP is the console up to the
    # guest's first line.
    kernel_part = text.split('kpk-guest: init started')[0]
    parse_ktap(results, label, kernel_part, os.path.join(BUILD, 'results'))


# Guests that must be reported as failures: the runner's own checks.
BROKEN_GUESTS = (
    ('a guest whose init dies (kernel panic)',
     'rdinit=/bin/busybox -- false', 60, 'Kernel panic'),
    ('a guest that hangs (timeout)',
     'rdinit=/bin/busybox -- sleep 1000', 15, 'timed out'),
)


def workbench_selfchecks(results, arch, boot, kernel, initrd):
    """Boot deliberately broken guests and check that each is caught."""
    for what, cmdline, timeout, expect in BROKEN_GUESTS:
        log = os.path.join(ensure_dir(LOGS), 'selfcheck.log')
        res = qemu.boot(arch, boot, kernel, initrd, log,
                        cmdline_extra=cmdline, timeout=timeout)
        label = f'workbench reports {what}'
        if not res.ok and expect in res.reason:
            results.add(label, PASS)
        else:
            results.add(label, FAIL, f'boot result: ok={res.ok} '
                        f'reason="{res.reason}", expected "{expect}"')


def run_arch(results, arch, selfcheck=False):
    try:
        kernel = build.build(arch)
    except Fatal as e:
        results.add(f'{arch.name}: kernel build', FAIL, str(e))
        return
    results.add(f'{arch.name}: kernel build', PASS)
    checks.build_tests(results, arch)
    initrd = initramfs.build(arch, build.outdir(arch))
    for boot in arch.boots:
        boot_and_parse(results, arch, boot, kernel, initrd)
    if selfcheck:
        workbench_selfchecks(results, arch, arch.boots[0], kernel, initrd)


def main(arch_names=None):
    start = time.time()
    selected = [arches.get(n) for n in (arch_names or arches.ARCH_NAMES)]
    results = Results()
    deps.host_tools(selected)
    tree.ensure()
    info('checkpatch --strict on every patch')
    checks.checkpatch(results)
    for i, arch in enumerate(selected):
        info(f'--- {arch.name} ---')
        run_arch(results, arch, selfcheck=(i == 0))
    info(f'make test took {time.time() - start:.0f}s')
    return 0 if results.summary() else 1
