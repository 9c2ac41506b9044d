# SPDX-License-Identifier: GPL-2.0
"""make test counts a failed step, goes on, and ends with its summary.

Each case makes one step fail (a kernel build that leaves no image, a
failing gen_init_cpio, a patch that does not apply, a package apt cannot
install, a bug in a step, a boot that fails) and checks that the step is a
failed check with its reason, that the steps that do not depend on it
still run, and that the summary line comes last.  The kernel build, QEMU
and the boots are stand-ins: nothing here builds or boots a kernel.
"""

import contextlib
import io
import os
import re
import shutil
import subprocess
import tarfile
import unittest
from unittest import mock

from kpk import arch as arches, build, checks, common, deps, initramfs, \
    qemu, qemubuild, testrun, tree
from kpk.common import Fatal
from kpk.results import FAIL, PASS, SKIP, Results

PATCHED_QEMU = '/nonexistent/qemu-system-aarch64'
SUMMARY = re.compile(r'^(\d+) passed, (\d+) failed(, (\d+) skipped)?$')


def panic_message(boot):
    """A console message that @boot.panics, a regex, matches."""
    return boot.panics.replace('\\', '')


def touch(path, text=''):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
    return path


class Harness(unittest.TestCase):
    """Every slow step replaced by a stand-in that works; a case breaks one."""

    def setUp(self):
        self.assertNotEqual(os.path.realpath(common.BUILD),
                            os.path.realpath(os.path.join(common.ROOT,
                                                          'build')),
                            'the unit tests must not use build/')
        shutil.rmtree(common.BUILD, ignore_errors=True)
        os.makedirs(common.BUILD)
        self.booted = []          # boot names, in order
        self.compiled = []        # arch names
        self.qemu_builds = 0
        self.fail_boot = None     # a boot name whose guest fails
        stack = contextlib.ExitStack()
        self.addCleanup(stack.close)
        fakes = (
            (testrun.workbench_tests, 'run', lambda results: None),
            (deps, 'host_tools', lambda selected: None),
            (tree, 'ensure', lambda: None),
            (checks, 'checkpatch', self.fake_checkpatch),
            (build, 'configure', lambda arch, *a, **k: build.outdir(arch)),
            (build, 'compile_kernel', self.fake_compile),
            (checks, 'build_tests', lambda results, arch: None),
            (initramfs, 'build_for', self.fake_initramfs),
            (testrun, '_base_kernel', self.fake_base_kernel),
            (testrun, 'parse_ktap', self.fake_parse_ktap),
            (qemubuild, 'build', self.fake_qemu_build),
            (qemu, 'probe', self.fake_probe),
            (qemu, 'version', lambda arch: 'QEMU (stand-in)'),
            (qemu, 'boot', self.fake_boot),
        )
        self.fakes = {}
        for module, name, fake in fakes:
            self.fakes[name] = stack.enter_context(
                mock.patch.object(module, name, side_effect=fake))

    # The stand-ins.
    @staticmethod
    def fake_checkpatch(results):
        results.add('checkpatch --strict (stand-in)', PASS)

    def fake_compile(self, arch, *args, **kw):
        self.compiled.append(arch.name)
        return touch(os.path.join(build.outdir(arch), arch.kernel_image))

    @staticmethod
    def fake_initramfs(arch, *args, **kw):
        return touch(os.path.join(common.BUILD, f'initramfs-{arch.name}.cpio'))

    @staticmethod
    def fake_base_kernel(arch):
        return touch(os.path.join(common.BUILD, 'out', f'{arch.name}-base',
                                  arch.kernel_image))

    @staticmethod
    def fake_parse_ktap(results, label, text, workdir):
        results.add(f'{label} (KTAP stand-in)', PASS)

    def fake_qemu_build(self):
        self.qemu_builds += 1
        return PATCHED_QEMU

    @staticmethod
    def fake_probe(arch, boot):
        """Only the QEMU from qemu/ has the poe property."""
        if 'poe' in boot.cpu and arch.qemu_binary != PATCHED_QEMU:
            return f'{arch.qemu_binary} has no CPU property poe'
        return None

    def fake_boot(self, arch, boot, kernel, initrd, log, cmdline_extra='',
                  echo=False, timeout=None):
        """A guest that runs its tests, or fails as a broken one would."""
        if 'false' in cmdline_extra:
            return qemu.BootResult(False, 'console shows "Kernel panic"', log,
                                   1)
        if 'sleep' in cmdline_extra:
            return qemu.BootResult(False, 'timed out after 15s', log, 15)
        self.booted.append(boot.name)
        if boot.panics:
            # Its guest test triggers the panic; a failing one panics
            # with something else.
            why = ('something else' if boot.name == self.fail_boot
                   else panic_message(boot))
            touch(log, 'kpk-guest: init started\n'
                  f'Kernel panic - not syncing: {why}\n')
            return qemu.BootResult(False, 'console shows "Kernel panic - '
                                   f'not syncing: {why}"', log, 1)
        text = 'kpk-guest: init started\n' + ''.join(
            f'kpk-guest: test {t}\nok 1 {t}\nkpk-guest: end {t}\n'
            for t in boot.tests) + qemu.DONE + '\n'
        touch(log, text)
        if boot.name == self.fail_boot:
            return qemu.BootResult(False, 'timed out after 300s', log, 300)
        return qemu.BootResult(True, '', log, 1)

    # Running make test and reading what it printed.
    def make_test(self, arch_names=None, run=None, **kw):
        """Run testrun.main() (or @run); return (exit status, checks,
        printed lines)."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(io.StringIO()):
            status = (run or testrun.main)(arch_names, **kw)
        lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
        self.last_lines = lines
        return status, getattr(self, 'last_results', None), lines

    def run(self, result=None):
        # Keep the Results object main() makes, to read its checks.
        real = testrun.Results

        def keep():
            self.last_results = real()
            return self.last_results
        with mock.patch.object(testrun, 'Results', side_effect=keep):
            return super().run(result)

    def check(self, results, name):
        found = [c for c in results.checks if c.name == name]
        self.assertEqual(len(found), 1, f'one check named "{name}" in '
                         f'{[c.name for c in results.checks]}')
        c = found[0]
        if c.status != PASS:
            # Its reason is printed with it, as it is recorded.
            first = c.reason.splitlines()[0]
            self.assertTrue(any(name in ln and first in ln
                                for ln in self.last_lines),
                            f'"{name}: {first}" was not printed')
        return c

    def assert_summary_last(self, status, results, lines):
        m = SUMMARY.match(lines[-1])
        self.assertTrue(m, f'the last line is not the summary: {lines[-1]!r}')
        counts = [sum(c.status == s for c in results.checks)
                  for s in (PASS, FAIL, SKIP)]
        self.assertEqual([int(m.group(1)), int(m.group(2)),
                          int(m.group(4) or 0)], counts)
        self.assertGreater(counts[1], 0)
        self.assertEqual(status, 1)

    def boots_of(self, name, check_only=False):
        """The boots that make test runs, or, with @check_only, all."""
        return [b.name for b in arches.get(name).boots
                if check_only or not b.check_only]


class TestStepFailures(Harness):
    def test_all_stand_ins_pass(self):
        """The harness itself: with nothing broken, nothing fails."""
        status, results, lines = self.make_test()
        self.assertEqual(status, 0, [c for c in results.checks
                                     if c.status == FAIL])
        self.assertTrue(SUMMARY.match(lines[-1]))
        self.assertEqual(self.booted, self.boots_of('x86_64') +
                         self.boots_of('arm64'))

    def test_expected_panic(self):
        """A boot that must panic passes with its own panic only."""
        boots = [(a.name, b) for a in arches.all_arches() for b in a.boots
                 if b.panics and not b.check_only]
        self.assertTrue(boots)
        status, results, _ = self.make_test()
        self.assertEqual(status, 0)
        for _, boot in boots:
            c = self.check(results, f'{boot.name}: panics with '
                           f'"{boot.panics}"')
            self.assertEqual(c.status, PASS)
        self.fail_boot = boots[0][1].name
        status, results, _ = self.make_test()
        self.assertNotEqual(status, 0)
        c = self.check(results, f'{self.fail_boot}: panics with '
                       f'"{boots[0][1].panics}"')
        self.assertEqual(c.status, FAIL)
        self.assertIn('something else', c.reason)
        # The right panic, but while booting, before the guest's tests.
        self.fail_boot = None
        early = boots[0][1]

        def boot_then_panic_early(arch, boot, *args, **kw):
            res = self.fake_boot(arch, boot, *args, **kw)
            if boot.name == early.name:
                touch(res.log, 'Kernel panic - not syncing: '
                      f'{panic_message(boot)}\nkpk-guest: init started\n')
            return res
        self.fakes['boot'].side_effect = boot_then_panic_early
        status, results, _ = self.make_test()
        self.assertNotEqual(status, 0)
        c = self.check(results, f'{early.name}: panics with '
                       f'"{early.panics}"')
        self.assertEqual(c.status, FAIL)

    def test_check_only_boots(self):
        """make test counts a check-only boot as skipped, with why, and
        builds nothing for it; make check BOOT= builds its kernel and
        boots it."""
        only = [(a.name, b) for a in arches.all_arches() for b in a.boots
                if b.check_only]
        self.assertTrue(only)
        status, results, _ = self.make_test()
        self.assertEqual(status, 0)
        for _, boot in only:
            c = self.check(results, f'{boot.name}: boot')
            self.assertEqual(c.status, SKIP)
            self.assertIn(boot.check_only, c.reason)
            self.assertIn(f'make check BOOT={boot.name}', c.reason)
            self.assertNotIn(boot.name, self.booted)
        arch_name, boot = only[0]
        self.booted = []
        status, results, _ = self.make_test(
            None, run=lambda arch_names: testrun.check(boot.name))
        self.assertEqual(status, 0)
        self.assertEqual(self.booted, [boot.name])
        self.assertEqual(self.check(results, f'{arch_name}: kernel build '
                                    f'({boot.kernel})').status, PASS)

    def test_missing_kernel_image(self):
        """A build that exits 0 and leaves no image fails; arm64 still runs."""
        def compile_kernel(arch, *args, **kw):
            if arch.name != 'x86_64':
                return self.fake_compile(arch, *args, **kw)
            # make "succeeds" and leaves nothing behind.
            with mock.patch.object(build, 'run', return_value=subprocess.
                                   CompletedProcess(['make'], 0)):
                return real_compile(arch, *args, **kw)
        self.fakes['compile_kernel'].side_effect = compile_kernel
        status, results, lines = self.make_test()
        c = self.check(results, 'x86_64: kernel build')
        self.assertEqual(c.status, FAIL)
        self.assertIn('left no image', c.reason)
        self.assertIn('build-x86_64.log', c.reason)
        for boot in self.boots_of('x86_64'):
            c = self.check(results, f'{boot}: boot')
            self.assertEqual(c.status, SKIP)
            self.assertIn('x86_64: kernel build failed', c.reason)
        self.assertEqual(self.check(results, 'arm64: kernel build').status,
                         PASS)
        self.assertEqual(self.booted, self.boots_of('arm64'))
        self.assert_summary_last(status, results, lines)

    def test_failing_initramfs_command(self):
        """gen_init_cpio failing on x86_64 fails that step; arm64 boots."""
        self.fakes['build_for'].side_effect = real_initramfs
        for name, script in (('x86_64', 'echo "cannot open busybox" >&2\n'
                              'exit 1\n'), ('arm64', 'exit 0\n')):
            gen = touch(os.path.join(build.outdir(arches.get(name)), 'usr',
                                     'gen_init_cpio'), '#!/bin/sh\n' + script)
            os.chmod(gen, 0o755)
        busybox = touch(os.path.join(common.BUILD, 'busybox'))
        with mock.patch.object(initramfs.deps, 'busybox',
                               return_value=busybox), \
                mock.patch.object(initramfs, '_nolibc_programs',
                                  return_value={}), \
                mock.patch.object(initramfs, '_modules', return_value=[]), \
                mock.patch.object(initramfs.selftests, 'build_for',
                                  return_value={}), \
                mock.patch.object(initramfs, 'TREE', common.BUILD):
            status, results, lines = self.make_test()
        c = self.check(results, 'x86_64: initramfs')
        self.assertEqual(c.status, FAIL)
        self.assertIn('cannot open busybox', c.reason)
        self.assertIn('initramfs-x86_64.log', c.reason)
        for boot in self.boots_of('x86_64'):
            self.assertEqual(self.check(results, f'{boot}: boot').status,
                             SKIP)
        self.assertEqual(self.check(results, 'arm64: initramfs').status, PASS)
        self.assertEqual(self.booted, self.boots_of('arm64'))
        self.assert_summary_last(status, results, lines)

    def test_patch_that_does_not_apply(self):
        """A patch that does not apply fails the tree; QEMU is still built."""
        src = os.path.join(common.BUILD, 'src')
        touch(os.path.join(src, 'linux-6.12.0', 'Makefile'),
              'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n')
        touch(os.path.join(src, 'linux-6.12.0', '.gitignore'), '/*\n')
        touch(os.path.join(src, 'linux-6.12.0', 'hello.c'), 'int a;\n')
        tarball = os.path.join(common.BUILD, 'linux-source.tar.xz')
        with tarfile.open(tarball, 'w:xz') as t:
            t.add(os.path.join(src, 'linux-6.12.0'), 'linux-6.12.0')
        patches = os.path.join(common.BUILD, 'patches')
        touch(os.path.join(patches, 'series'),
              '# base: linux-source-6.12 6.12.0-1\n0001-bad.patch\n')
        touch(os.path.join(patches, '0001-bad.patch'), BAD_PATCH)
        self.fakes['ensure'].side_effect = real_ensure
        with mock.patch.object(tree, 'TARBALL', tarball), \
                mock.patch.object(tree, 'PATCHES', patches), \
                mock.patch.object(tree, 'SERIES',
                                  os.path.join(patches, 'series')), \
                mock.patch.object(tree, 'installed_version',
                                  return_value='6.12.0-1'), \
                mock.patch.object(tree.deps, 'kernel_source'):
            status, results, lines = self.make_test(['arm64'])
        c = self.check(results, 'kernel tree: linux-source-6.12 + patches/')
        self.assertEqual(c.status, FAIL)
        self.assertIn('0001-bad.patch does not apply', c.reason)
        self.assertIn('tree.log', c.reason)
        self.assertEqual(self.check(results, 'checkpatch --strict').status,
                         SKIP)
        self.assertEqual(self.qemu_builds, 1)
        self.assertEqual(self.check(
            results, 'arm64: QEMU with FEAT_S1POE from qemu/ '
            '(QEMU (stand-in))').status, PASS)
        for boot in self.boots_of('arm64'):
            c = self.check(results, f'{boot}: boot')
            self.assertEqual(c.status, SKIP)
            self.assertIn('the kernel tree failed', c.reason)
        self.assertEqual(self.compiled, [])
        # The tree is left as it was: the pristine source.
        head = tree.git_out('rev-parse', 'HEAD')
        self.assertEqual(head, tree.git_out('rev-parse', tree.BASE_TAG))
        self.assert_summary_last(status, results, lines)

    def test_packages_and_a_bug(self):
        """apt failing, and a step raising, are counted; the rest runs."""
        self.fakes['host_tools'].side_effect = Fatal(
            'could not install rsync with apt-get (log build/logs/apt.log)')
        self.fakes['checkpatch'].side_effect = KeyError('oops')
        status, results, lines = self.make_test()
        c = self.check(results, 'host packages installed with apt-get')
        self.assertEqual(c.status, FAIL)
        self.assertIn('rsync', c.reason)
        c = self.check(results, 'checkpatch --strict')
        self.assertEqual(c.status, FAIL)
        self.assertIn('a bug in kpk', c.reason)
        self.assertEqual(self.booted, self.boots_of('x86_64') +
                         self.boots_of('arm64'))
        self.assert_summary_last(status, results, lines)

    def test_failed_boot(self):
        """A boot that fails is counted; the boots after it still run."""
        first = self.boots_of('x86_64')[0]
        self.fail_boot = first
        status, results, lines = self.make_test(['x86_64'])
        c = self.check(results, f'{first}: boot')
        self.assertEqual(c.status, FAIL)
        self.assertIn('timed out', c.reason)
        self.assertIn(f'boot-{first}.log', c.reason)
        self.assertEqual(self.booted, self.boots_of('x86_64'))
        self.assert_summary_last(status, results, lines)

    def test_failed_boot_then_a_bug(self):
        """A bug after a failed boot adds its own check: none counts twice."""
        first = self.boots_of('x86_64')[0]
        self.fail_boot = first
        self.fakes['parse_ktap'].side_effect = RuntimeError('parser bug')
        status, results, lines = self.make_test(['x86_64'])
        self.assertEqual(self.check(results, f'{first}: boot').status, FAIL)
        c = self.check(results, f'{first}: console results')
        self.assertEqual(c.status, FAIL)
        self.assertIn('parser bug', c.reason)
        self.assert_summary_last(status, results, lines)

    def test_interrupted(self):
        """Ctrl-C still ends with the summary line, and exit 130."""
        self.fakes['compile_kernel'].side_effect = KeyboardInterrupt
        status, results, lines = self.make_test()
        self.assertEqual(status, 130)
        self.assertEqual(self.check(results, 'make test').reason,
                         'interrupted')
        self.assertTrue(SUMMARY.match(lines[-1]), lines[-1])

    def test_dependents_counted_as_skipped(self):
        """What a failed kernel build keeps from running is listed."""
        self.fakes['compile_kernel'].side_effect = Fatal('make failed')
        status, results, lines = self.make_test(['x86_64'])
        for name in ('x86_64: build tests', 'x86_64: initramfs',
                     'workbench reports broken guests'):
            c = self.check(results, name)
            self.assertEqual(c.status, SKIP)
            self.assertIn('not run: x86_64: kernel build failed', c.reason)
        self.assert_summary_last(status, results, lines)


class TestPoeQemu(Harness):
    """The QEMU from qemu/ missing: a failure, or with the switch a skip."""

    def setUp(self):
        super().setUp()
        self.fakes['build'].side_effect = qemubuild.Unavailable(
            'could not fetch the qemu 1:10.2.2+ds-1 source package')
        self.poe_boots = [b.name for b in arches.get('arm64').boots
                          if 'poe' in b.cpu]
        self.other_boots = [b.name for b in arches.get('arm64').boots
                            if 'poe' not in b.cpu]
        self.assertTrue(self.poe_boots and self.other_boots)

    def test_missing_qemu_fails(self):
        status, results, lines = self.make_test(['arm64'])
        c = self.check(results, 'arm64: QEMU with FEAT_S1POE from qemu/')
        self.assertEqual(c.status, FAIL)
        self.assertIn('could not fetch', c.reason)
        self.assertIn('make test or make check POE_QEMU=optional', c.reason)
        for boot in self.poe_boots:
            c = self.check(results, f'{boot}: boot')
            self.assertEqual(c.status, SKIP)
            self.assertIn('not run: arm64: QEMU with FEAT_S1POE from qemu/ '
                          'failed', c.reason)
        # The boots on Debian's QEMU do not need it.
        self.assertEqual(self.booted, self.other_boots)
        self.assert_summary_last(status, results, lines)

    def test_built_qemu_does_not_run(self):
        """A QEMU that was built but does not run is a failure too."""
        self.fakes['build'].side_effect = self.fake_qemu_build
        self.fakes['version'].side_effect = Fatal(
            f'cannot run {PATCHED_QEMU}: Permission denied')
        status, results, lines = self.make_test(['arm64'])
        c = self.check(results, 'arm64: QEMU with FEAT_S1POE from qemu/')
        self.assertEqual(c.status, FAIL)
        self.assertIn('Permission denied', c.reason)
        self.assert_summary_last(status, results, lines)

    def test_missing_qemu_optional(self):
        status, results, lines = self.make_test(['arm64'],
                                                optional_qemu=True)
        c = self.check(results, 'arm64: QEMU with FEAT_S1POE from qemu/')
        self.assertEqual(c.status, SKIP)
        self.assertIn('could not fetch', c.reason)
        self.assertIn('POE_QEMU=optional', c.reason)
        for boot in self.poe_boots:
            c = self.check(results, f'{boot}: boot')
            self.assertEqual(c.status, SKIP)
            self.assertIn('POE_QEMU=optional', c.reason)
        self.assertEqual(self.booted, self.other_boots)
        self.assertEqual(status, 0)
        self.assertTrue(SUMMARY.match(lines[-1]), lines[-1])


class TestCheck(Harness):
    """make check: one boot, or one arch's, with the same summary line."""

    def test_one_boot(self):
        status, results, lines = self.make_test(
            None, run=lambda arch_names: testrun.check('x86_64-pti'))
        self.assertEqual(status, 0)
        self.assertEqual(self.booted, ['x86_64-pti'])
        self.assertEqual(self.compiled, ['x86_64'])
        self.fakes['checkpatch'].assert_not_called()
        self.fakes['build_tests'].assert_not_called()
        self.assertTrue(SUMMARY.match(lines[-1]), lines[-1])

    def test_one_arch(self):
        status, results, lines = self.make_test(
            None, run=lambda arch_names: testrun.check(None, ['arm64']))
        self.assertEqual(status, 0)
        self.assertEqual(self.booted, self.boots_of('arm64'))
        self.assertEqual(self.compiled, ['arm64'])
        self.assertTrue(SUMMARY.match(lines[-1]), lines[-1])

    def test_a_failing_boot(self):
        self.fail_boot = 'arm64-el2'
        status, results, lines = self.make_test(
            None, run=lambda arch_names: testrun.check('arm64-el2'))
        self.assertEqual(self.check(results, 'arm64-el2: boot').status, FAIL)
        self.assert_summary_last(status, results, lines)

    def test_debian_qemu_boot_needs_no_patched_qemu(self):
        self.fakes['build'].side_effect = qemubuild.Unavailable('no source')
        status, results, lines = self.make_test(
            None, run=lambda arch_names: testrun.check('arm64-debian-qemu'))
        self.assertEqual(status, 0)
        self.assertEqual(self.qemu_builds, 0)
        self.fakes['build'].assert_not_called()
        self.assertEqual(self.booted, ['arm64-debian-qemu'])

    def test_list_and_unknown(self):
        status, _, lines = self.make_test(
            None, run=lambda arch_names: testrun.check())
        self.assertEqual(status, 0)
        listed = [ln.split()[0] for ln in lines if ln.startswith('  ')]
        self.assertEqual(listed, self.boots_of('x86_64', True) +
                         self.boots_of('arm64', True))
        self.assertEqual(self.booted, [])
        with self.assertRaisesRegex(Fatal, 'no boot named nosuch'):
            testrun.check('nosuch')


# The real functions, for the cases that use them with their inputs faked.
real_initramfs = initramfs.build_for
real_ensure = tree.ensure
real_compile = build.compile_kernel

BAD_PATCH = '''From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: kpkeys developers <kpkeys@example.org>
Date: Thu, 3 Dec 2026 10:00:00 +0000
Subject: [PATCH] Change a line the tree does not have

---
 hello.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/hello.c b/hello.c
--- a/hello.c
+++ b/hello.c
@@ -1 +1 @@
-int b;
+int c;
--
2.39.5
'''


class TestCensus(unittest.TestCase):
    """The page-table census lines of a console log become checks."""

    BOOT = ('kpkeys_hardened_pgtables: on: 21 kernel page-table pages\n'
            'kpkeys_hardened_pgtables: check: tree init_mm: 1 walks\n'
            'kpkeys_hardened_pgtables: check: 2000 tables, {} offenders, '
            '0 errors; 3 free pages in the pool, keyed\n')
    GUEST = 'kpk-census: 2100 tables, 0 offenders, 0 errors; 5 free\n'

    def census(self, text):
        results = Results()
        with contextlib.redirect_stdout(io.StringIO()):
            testrun.parse_census(results, 'b', text, '/nonexistent/log')
        return [(c.name, c.status) for c in results.checks]

    def test_clean(self):
        self.assertEqual(self.census(self.BOOT.format(0) + self.GUEST), [
            ('b: page-table census at the end of boot: 2000 tables, '
             '0 offenders', PASS),
            ('b: page-table census after the guest tests: 2100 tables, '
             '0 offenders', PASS)])

    def test_offender_fails(self):
        checks = self.census(self.BOOT.format(1) + self.GUEST)
        self.assertEqual(checks[0],
                         ('b: page-table census at the end of boot', FAIL))

    def test_missing_census_fails_with_the_feature_on(self):
        self.assertEqual(self.census(self.BOOT.format(0))[1],
                         ('b: page-table census after the guest tests', FAIL))

    def test_feature_off(self):
        text = ('kpkeys_hardened_pgtables: check: skipped: '
                'kpkeys_hardened_pgtables is off\n'
                'kpk-census: skipped: kpkeys_hardened_pgtables is off\n')
        self.assertEqual([s for _, s in self.census(text)], [SKIP, SKIP])
        self.assertEqual(self.census('a kernel without the census\n'), [])


class TestArchData(unittest.TestCase):
    def test_every_boot_names_a_kernel_there_is(self):
        """Boot.kernel is 'series', 'base' or one of the arch's variants,
        whose fragments are in configs/."""
        for a in arches.all_arches():
            variants = dict(a.kernel_variants)
            for _, fragments in a.kernel_variants:
                for f in fragments:
                    self.assertTrue(os.path.exists(os.path.join(
                        common.ROOT, 'configs', f)), f'{a.name}: {f}')
            boots = a.boots + tuple(b for b in (a.demo, a.bench_off,
                                                a.bench_on, a.bench_base)
                                    if b)
            for b in boots:
                self.assertIn(b.kernel, {'series', 'base'} | set(variants),
                              f'{a.name}: {b.name}')
