# SPDX-License-Identifier: GPL-2.0
"""make test: every check, host and guest, on every architecture."""

import os
import re
import time

from . import arch as arches, build, checks, deps, initramfs, qemu, \
    qemubuild, tree
from .common import BUILD, LOGS, Fatal, ensure_dir, info, tail_lines
from .results import FAIL, PASS, SKIP, Results, parse_ktap


MARK_TEST = re.compile(r'^kpk-guest: test (\S+)$', re.M)


def guest_chunks(text):
    """{test name: its console output} for each guest test that started."""
    chunks = {}
    for m in MARK_TEST.finditer(text):
        name = m.group(1)
        end = text.find(f'kpk-guest: end {name}', m.end())
        chunks[name] = text[m.end():end if end >= 0 else None]
    return chunks


def boot_and_parse(results, arch, boot, kernel, initrd, no_qemu=None):
    """Boot once; add the boot's own check, its KUnit and guest results.

    @no_qemu says why the patched QEMU the arch asks for is not there: a
    boot that needs what only it provides is then skipped, with that reason.
    """
    label = boot.name
    missing = qemu.probe(arch, boot)
    if missing and no_qemu:
        results.add(f'{label}: boot', SKIP, f'needs -cpu {boot.cpu}, which '
                    f'only the QEMU from qemu/ has: {no_qemu}')
        return
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
    workdir = os.path.join(BUILD, 'results')
    # KUnit runs built in, before init: its KTAP is the console up to the
    # guest's first line.
    if boot.kunit:
        parse_ktap(results, label, text.split('kpk-guest: init started')[0],
                   workdir)
    chunks = guest_chunks(text)
    for name in boot.tests:
        if name in chunks:
            parse_ktap(results, f'{label}.{name}', chunks[name], workdir)
        else:
            results.add(f'{label}.{name}', FAIL, 'the guest test did not run')


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


def patched_qemu(results, arch):
    """Return (arch using the QEMU built from qemu/, None) or (arch, why not)."""
    label = f'{arch.name}: QEMU with FEAT_S1POE from qemu/'
    try:
        binary = qemubuild.build()
    except qemubuild.Unavailable as e:
        results.add(label, SKIP, str(e))
        return arch, str(e)
    except Fatal as e:
        results.add(label, FAIL, str(e))
        return arch, 'it failed to build'
    arch = arches.with_qemu(arch, binary)
    results.add(f'{label} ({qemu.version(arch)})', PASS)
    return arch, None


def base_kernel(results, arch):
    """Build Debian's tree without our series (tag kpk-base) for @arch."""
    wt = tree.worktree(os.path.join(BUILD, 'base', 'linux'), tree.BASE_TAG)
    try:
        kernel = build.build(arch, tree=wt,
                             out=os.path.join(BUILD, 'out', f'{arch.name}-base'),
                             strict_config=False,
                             log_name=f'build-{arch.name}-base.log',
                             extra_fragments=arch.base_fragments)
    except Fatal as e:
        results.add(f'{arch.name}: kernel build without the series', FAIL,
                    str(e))
        return None
    results.add(f'{arch.name}: kernel build without the series', PASS)
    return kernel


def run_arch(results, arch, selfcheck=False):
    no_qemu = None
    debian = arch
    if arch.patched_qemu:
        arch, no_qemu = patched_qemu(results, arch)
    try:
        kernel = build.build(arch)
    except Fatal as e:
        results.add(f'{arch.name}: kernel build', FAIL, str(e))
        return
    results.add(f'{arch.name}: kernel build', PASS)
    checks.build_tests(results, arch)
    for test, why in arch.selftests_unavailable:
        results.add(f'{arch.name}: selftest {test}', SKIP, why)
    initrd = initramfs.build_for(arch)
    kernels = {'series': kernel}
    for boot in arch.boots:
        if boot.kernel not in kernels:
            kernels[boot.kernel] = base_kernel(results, arch)
        if kernels[boot.kernel]:
            boot_and_parse(results, debian if boot.qemu == 'debian' else arch,
                           boot, kernels[boot.kernel], initrd, no_qemu)
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
