# SPDX-License-Identifier: GPL-2.0
"""make test: every check, host and guest, on every architecture."""

import os
import re
import time
import traceback

from . import arch as arches, build, checks, deps, initramfs, qemu, \
    qemubuild, tree, workbench_tests
from .common import BUILD, LOGS, Fatal, ensure_dir, info, tail_lines
from .results import FAIL, PASS, SKIP, Results, parse_ktap


def step(results, label, fn, *args, record_pass=True, **kw):
    """Run one step of make test; return (whether it worked, its value).

    A failure is recorded as a failed check with its reason (which names
    the step's log), and the run goes on: a step's failure must not hide
    the results of the steps that do not depend on it.  An exception other
    than Fatal is a bug in the workbench; it is counted the same way, with
    its traceback printed.
    """
    try:
        value = fn(*args, **kw)
    except Fatal as e:
        results.add(label, FAIL, str(e))
        return False, None
    except Exception as e:  # pylint: disable=broad-except
        traceback.print_exc()
        results.add(label, FAIL, f'{type(e).__name__}: {e} (a bug in kpk; '
                    'traceback above)')
        return False, None
    if record_pass:
        results.add(label, PASS)
    return True, value


def skip_after(results, label, failed):
    """Record @label as not run because the step @failed failed."""
    results.add(label, SKIP, f'not run: {failed} failed (see above)')


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
    except Exception as e:  # pylint: disable=broad-except
        traceback.print_exc()
        results.add(label, FAIL, f'{type(e).__name__}: {e} (a bug in kpk; '
                    'traceback above)')
        return arch, 'it failed to build'
    arch = arches.with_qemu(arch, binary)
    results.add(f'{label} ({qemu.version(arch)})', PASS)
    return arch, None


def _base_kernel(arch):
    wt = tree.worktree(os.path.join(BUILD, 'base', 'linux'), tree.BASE_TAG)
    return build.build(arch, tree=wt,
                       out=os.path.join(BUILD, 'out', f'{arch.name}-base'),
                       strict_config=False,
                       log_name=f'build-{arch.name}-base.log',
                       extra_fragments=arch.base_fragments)


def run_arch(results, arch, selfcheck=False, tree_failed=None):
    """Build, pack and boot one arch, each step counted on its own.

    @tree_failed names the failed tree step, on which every kernel step
    depends; the QEMU step, which does not, still runs.
    """
    no_qemu = None
    debian = arch
    if arch.patched_qemu:
        arch, no_qemu = patched_qemu(results, arch)
    # The label of the first failed step the boots depend on, if any.
    failed = tree_failed
    kernels = {}
    initrd = None
    if not failed:
        ok, _ = step(results, f'{arch.name}: kernel config', build.configure,
                     arch)
        failed = None if ok else f'{arch.name}: kernel config'
    if not failed:
        ok, kernels['series'] = step(results, f'{arch.name}: kernel build',
                                     build.compile_kernel, arch)
        failed = None if ok else f'{arch.name}: kernel build'
    for test, why in arch.selftests_unavailable:
        results.add(f'{arch.name}: selftest {test}', SKIP, why)
    if failed:
        skip_after(results, f'{arch.name}: build tests', failed)
        skip_after(results, f'{arch.name}: initramfs', failed)
    else:
        step(results, f'{arch.name}: build tests', checks.build_tests,
             results, arch, record_pass=False)
        ok, initrd = step(results, f'{arch.name}: initramfs',
                          initramfs.build_for, arch)
        failed = None if ok else f'{arch.name}: initramfs'
    broken = {}     # kernel name: the label of its failed build
    for boot in arch.boots:
        if failed:
            skip_after(results, f'{boot.name}: boot', failed)
            continue
        if boot.kernel not in kernels and boot.kernel not in broken:
            label = f'{arch.name}: kernel build without the series'
            ok, image = step(results, label, _base_kernel, arch)
            if ok:
                kernels[boot.kernel] = image
            else:
                broken[boot.kernel] = label
        if boot.kernel in broken:
            skip_after(results, f'{boot.name}: boot', broken[boot.kernel])
            continue
        # boot_and_parse counts the boot itself; this label is for what
        # breaks after (the console's results), so nothing counts twice.
        step(results, f'{boot.name}: console results', boot_and_parse,
             results, debian if boot.qemu == 'debian' else arch, boot,
             kernels[boot.kernel], initrd, no_qemu, record_pass=False)
    if selfcheck and failed:
        skip_after(results, 'workbench reports broken guests', failed)
    elif selfcheck:
        step(results, f'{arch.name}: workbench self-checks',
             workbench_selfchecks, results, arch, arch.boots[0],
             kernels['series'], initrd, record_pass=False)


def main(arch_names=None):
    """make test: every step counted; the summary line always comes last."""
    start = time.time()
    selected = [arches.get(n) for n in (arch_names or arches.ARCH_NAMES)]
    results = Results()
    try:
        _test(results, selected)
    except KeyboardInterrupt:
        results.add('make test', FAIL, 'interrupted')
        results.summary()
        return 130
    info(f'make test took {time.time() - start:.0f}s')
    return 0 if results.summary() else 1


def _test(results, selected):
    step(results, 'host packages installed with apt-get', deps.host_tools,
         selected)
    info('the workbench\'s own unit tests (tests/workbench)')
    step(results, 'workbench unit tests', workbench_tests.run, results,
         record_pass=False)
    ok, _ = step(results, 'kernel tree: linux-source-6.12 + patches/',
                 tree.ensure)
    tree_failed = None if ok else 'the kernel tree'
    if tree_failed:
        skip_after(results, 'checkpatch --strict', tree_failed)
    else:
        info('checkpatch --strict on every patch')
        step(results, 'checkpatch --strict', checks.checkpatch, results,
             record_pass=False)
    for i, arch in enumerate(selected):
        info(f'--- {arch.name} ---')
        run_arch(results, arch, selfcheck=(i == 0), tree_failed=tree_failed)
