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
        results.add(label, FAIL, _bug(e))
        return False, None
    if record_pass:
        results.add(label, PASS)
    return True, value


def _bug(e):
    """Print the traceback of @e, a bug in the workbench; return why."""
    traceback.print_exc()
    return f'{type(e).__name__}: {e} (a bug in kpk; traceback above)'


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


# The census of kpkeys_hardened_pgtables (CONFIG_KPKEYS_HARDENED_PGTABLES_CHECK):
# the kernel's own run at the end of boot, and the guest's read of its
# debugfs file once the guest tests are done (guest/init). Neither may
# count an offender: a page table writable at the default level.
CENSUS = (
    ('at the end of boot', 'kpkeys_hardened_pgtables: check: '),
    ('after the guest tests', 'kpk-census: '),
)
CENSUS_LINE = r'(?:(\d+) tables, (\d+) offenders, (\d+) errors|skipped: (.*))'
FEATURE_ON = 'kpkeys_hardened_pgtables: on:'


def parse_census(results, label, text, log):
    """Add a check for each census in @text, the console of boot @label.

    A census that says it skipped is a skip with its reason; with the
    feature on, a census missing from the console is a failure."""
    on = FEATURE_ON in text
    for when, prefix in CENSUS:
        what = f'{label}: page-table census {when}'
        found = re.findall(re.escape(prefix) + CENSUS_LINE, text)
        if not found:
            if on:
                results.add(what, FAIL, 'no census in the console log '
                            f'{qemu.relpath(log)}')
            continue
        tables, offenders, errors, skipped = found[-1]
        if skipped:
            results.add(what, SKIP, skipped.strip())
        elif offenders == '0' and errors == '0':
            results.add(f'{what}: {tables} tables, 0 offenders', PASS)
        else:
            results.add(what, FAIL, f'{offenders} offenders and {errors} '
                        f'errors among {tables} tables; console log '
                        f'{qemu.relpath(log)}')


def boot_and_parse(results, arch, boot, kernel, initrd, no_qemu=None):
    """Boot once; add the boot's own check, its KUnit and guest results.

    @no_qemu says why the patched QEMU the arch asks for is not there: a
    boot that needs what only it provides is then skipped, with that reason.
    """
    label = boot.name
    missing = qemu.probe(arch, boot)
    if missing and no_qemu:
        results.add(f'{label}: boot', SKIP, f'needs -cpu {boot.cpu}, which '
                    f'only the QEMU from qemu/ provides: {no_qemu}')
        return
    if missing:
        results.add(f'{label}: QEMU provides -cpu {boot.cpu}', FAIL, missing)
        return
    results.add(f'{label}: QEMU provides -cpu {boot.cpu}', PASS)
    log = os.path.join(ensure_dir(LOGS), f'boot-{label}.log')
    info(f'booting {label} ({qemu.version(arch)}, log: '
         f'{qemu.relpath(log)})')
    res = qemu.boot(arch, boot, kernel, initrd, log)
    if boot.panics:
        _expected_panic(results, label, boot, res, log)
        return
    if res.ok:
        results.add(f'{label}: boot ran init to the end ({res.seconds:.0f}s)',
                    PASS)
    else:
        results.add(f'{label}: boot', FAIL,
                    f'{res.reason}; console log {qemu.relpath(log)}')
        _print_tail(log)
    with open(log, errors='replace') as f:
        text = f.read()
    workdir = os.path.join(BUILD, 'results')
    # KUnit runs built in, before init: its KTAP is the console up to the
    # guest's first line.
    if boot.kunit:
        parse_ktap(results, label, text.split('kpk-guest: init started')[0],
                   workdir)
    parse_census(results, label, text, log)
    chunks = guest_chunks(text)
    for name in boot.tests:
        if name in chunks:
            parse_ktap(results, f'{label}.{name}', chunks[name], workdir)
        else:
            results.add(f'{label}.{name}', FAIL, 'the guest test did not run')


def _expected_panic(results, label, boot, res, log):
    """A boot that must panic, with the message @boot.panics, once its
    guest tests run: a panic while booting does not count."""
    with open(log, errors='replace') as f:
        text = f.read()
    started = text.find('kpk-guest: init started')
    panic = qemu.PANIC.search(text, started) if started >= 0 else None
    line = text[panic.start():].splitlines()[0] if panic else ''
    what = f'{label}: panics with "{boot.panics}"'
    if panic and re.search(boot.panics, line):
        results.add(what, PASS)
        return
    found = f'the panic says "{line}"' if panic else 'no panic'
    if res.reason:
        found += f' ({res.reason})'
    results.add(what, FAIL, f'{found}; console log {qemu.relpath(log)}')
    _print_tail(log)


def _print_tail(log):
    """Show the end of a failed boot's console log."""
    print(f'    last lines of {qemu.relpath(log)}:')
    for line in tail_lines(log, 25):
        print('    | ' + line)


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


# The one switch that lets a run go on without the QEMU built from qemu/.
OPTIONAL_QEMU = 'POE_QEMU=optional'


def patched_qemu(results, arch, optional=False):
    """Return (arch using the QEMU built from qemu/, None) or (arch, why not).

    Without it no boot tests arm64's enforcement, so a QEMU that cannot be
    fetched, verified or built is a failure, unless @optional (make test
    POE_QEMU=optional) lets the run go on without it: the boots that need
    it are then skipped, each naming the switch.
    """
    label = f'{arch.name}: QEMU with FEAT_S1POE from qemu/'
    try:
        built = arches.with_qemu(arch, qemubuild.build())
        version = qemu.version(built)
        if not version:
            raise Fatal(f'{built.qemu_binary} --version failed')
    except Fatal as e:
        why = str(e)
    except Exception as e:  # pylint: disable=broad-except
        why = _bug(e)
    else:
        results.add(f'{label} ({version})', PASS)
        return built, None
    if optional:
        results.add(label, SKIP, f'{why} ({OPTIONAL_QEMU}: going on '
                    'without it)')
        return arch, f'it is unavailable ({OPTIONAL_QEMU} was given)'
    results.add(label, FAIL, f'{why}\n(to go on without it and skip the '
                f'boots that need it: make test or make check '
                f'{OPTIONAL_QEMU})')
    return arch, f'not run: {label} failed'


def _base_kernel(arch):
    return build.base_kernel(arch)


def _kernel_label(arch, kernel):
    if kernel == 'base':
        return f'{arch.name}: kernel build without the series'
    return f'{arch.name}: kernel build ({kernel})'


def _other_kernel(arch, kernel):
    if kernel == 'base':
        return _base_kernel(arch)
    return build.variant_kernel(arch, kernel)


def run_arch(results, arch, selfcheck=False, tree_failed=None,
             optional_qemu=False, boots=None, build_tests=True):
    """Build, pack and boot one arch, each step counted on its own.

    @tree_failed names the failed tree step, on which every kernel step
    depends; the QEMU step, which does not, still runs.  @boots (the
    arch's own by default) are the boots to run; without @build_tests the
    build tests and the selftest notes are left out (make check).
    """
    no_qemu = None
    debian = arch
    # make test (and make check ARCH=) leave out the check-only boots.
    if boots is None:
        for boot in arch.boots:
            if boot.check_only:
                results.add(f'{boot.name}: boot', SKIP,
                            f'{boot.check_only}; make check BOOT={boot.name} '
                            'runs it')
        boots = tuple(b for b in arch.boots if not b.check_only)
    # Only if a boot to run uses it (make check may run a Debian-QEMU one).
    if arch.patched_qemu and any(b.qemu != 'debian' for b in boots):
        arch, no_qemu = patched_qemu(results, arch, optional_qemu)
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
    if build_tests:
        for test, why in arch.selftests_unavailable:
            results.add(f'{arch.name}: selftest {test}', SKIP, why)
    if failed:
        if build_tests:
            skip_after(results, f'{arch.name}: build tests', failed)
        skip_after(results, f'{arch.name}: initramfs', failed)
    else:
        if build_tests:
            step(results, f'{arch.name}: build tests', checks.build_tests,
                 results, arch, record_pass=False)
        ok, initrd = step(results, f'{arch.name}: initramfs',
                          initramfs.build_for, arch)
        failed = None if ok else f'{arch.name}: initramfs'
    broken = {}     # kernel name: the label of its failed build
    for boot in boots:
        if failed:
            skip_after(results, f'{boot.name}: boot', failed)
            continue
        if boot.kernel not in kernels and boot.kernel not in broken:
            label = _kernel_label(arch, boot.kernel)
            ok, image = step(results, label, _other_kernel, arch, boot.kernel)
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


def _packages(results, selected):
    step(results, 'host packages installed with apt-get', deps.host_tools,
         selected)


def _tree(results):
    """Make build/linux; return None, or the failed step's name."""
    ok, _ = step(results, 'kernel tree: linux-source-6.12 + patches/',
                 tree.ensure)
    return None if ok else 'the kernel tree'


def main(arch_names=None, optional_qemu=False):
    """make test: every step counted; the summary line always comes last."""
    start = time.time()
    selected = [arches.get(n) for n in (arch_names or arches.ARCH_NAMES)]
    results = Results()
    try:
        _test(results, selected, optional_qemu)
    except KeyboardInterrupt:
        _interrupted(results, 'make test')
        return 130
    info(f'make test took {time.time() - start:.0f}s')
    return 0 if results.summary() else 1


def _interrupted(results, what):
    results.add(what, FAIL, 'interrupted')
    results.summary()


def _test(results, selected, optional_qemu):
    _packages(results, selected)
    info('the workbench\'s own unit tests (tests/workbench)')
    step(results, 'workbench unit tests', workbench_tests.run, results,
         record_pass=False)
    tree_failed = _tree(results)
    if tree_failed:
        skip_after(results, 'checkpatch --strict', tree_failed)
    else:
        info('checkpatch --strict on every patch')
        step(results, 'checkpatch --strict', checks.checkpatch, results,
             record_pass=False)
    for i, arch in enumerate(selected):
        info(f'--- {arch.name} ---')
        run_arch(results, arch, selfcheck=(i == 0), tree_failed=tree_failed,
                 optional_qemu=optional_qemu)


def list_boots():
    """What make check with no argument prints: every boot, by arch."""
    print('make check BOOT=<name> runs one boot, make check ARCH=<arch> all '
          'of an arch\'s;\nthe boots (see kpk/arches/<arch>.py):')
    for arch in arches.all_arches():
        print(f'\n{arch.name}:')
        for boot in arch.boots:
            runs = (['KUnit'] if boot.kunit else []) + list(boot.tests)
            where = ("Debian's QEMU" if boot.qemu == 'debian' or
                     not arch.patched_qemu else 'the QEMU from qemu/')
            how = [f'-cpu {boot.cpu}'] + [f'-machine {o}'
                                          for o in boot.machine_opts]
            if boot.extra_cmdline:
                how.append(f'kernel booted with {boot.extra_cmdline}')
            if boot.kernel == 'base':
                how.append('the kernel without the series')
            elif boot.kernel != 'series':
                how.append(f'the {boot.kernel} kernel '
                           f'({" ".join(dict(arch.kernel_variants)[boot.kernel])})')
            if boot.check_only:
                how.append(f'not in make test: {boot.check_only}')
            print(f'  {boot.name:18} {", ".join(how)}; {where}; runs '
                  f'{", ".join(runs)}')


def find_boot(name):
    """Return (arch, boot) for a boot's name, or raise Fatal listing them."""
    for arch in arches.all_arches():
        for boot in arch.boots:
            if boot.name == name:
                return arch, boot
    known = ' '.join(b.name for a in arches.all_arches() for b in a.boots)
    raise Fatal(f'no boot named {name}; the boots are: {known}')


def check(boot_name=None, arch_names=None, optional_qemu=False):
    """make check: rebuild what changed and run one boot, or one arch's.

    With neither, list the boots.  The tree, the kernel and the initramfs
    are brought up to date as make test does (the kernel build is
    incremental); checkpatch, the unit tests and the build tests are left
    to make test.
    """
    if not boot_name and not arch_names:
        list_boots()
        return 0
    start = time.time()
    if boot_name:
        arch, boot = find_boot(boot_name)
        if arch_names and arch.name not in arch_names:
            raise Fatal(f'boot {boot_name} is an {arch.name} boot, not '
                        f'{" ".join(arch_names)}')
        plan = [(arch, (boot,))]
    else:
        plan = [(arches.get(n), None) for n in arch_names]
    results = Results()
    try:
        _packages(results, [a for a, _ in plan])
        tree_failed = _tree(results)
        for arch, boots in plan:
            info(f'--- {arch.name} ---')
            run_arch(results, arch, tree_failed=tree_failed,
                     optional_qemu=optional_qemu, boots=boots,
                     build_tests=False)
    except KeyboardInterrupt:
        _interrupted(results, 'make check')
        return 130
    info(f'make check took {time.time() - start:.0f}s')
    return 0 if results.summary() else 1
