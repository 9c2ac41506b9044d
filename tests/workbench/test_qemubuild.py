# SPDX-License-Identifier: GPL-2.0
"""Fetching the pinned QEMU source: expired lists, other suites, a gone pin.

apt-get is a stand-in that answers as Debian's archive does on a fresh
Debian 12 root: sid's Release file past its Valid-Until date, and the
pinned version in whichever suite the case says.  The private apt folder
is a temporary one, never the real cache.
"""

import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from kpk import qemubuild

MIRROR = 'http://mirror.example/debian'
EXPIRED = ('E: Release file for http://mirror.example/debian/dists/sid/'
           'InRelease is expired (invalid since 28d 10h 20min 27s). Updates '
           'for this repository will not be applied.')


def done(cmd, code=0, out=''):
    return subprocess.CompletedProcess(cmd, code, out)


class TestFetchSource(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix='kpk-qemu-cache-')
        self.addCleanup(shutil.rmtree, self.cache, ignore_errors=True)
        self.calls = []
        self.found_in = None      # the suite that has the pinned version
        self.snapshot = None      # an archive that has sid only
        for name, value in (('CACHE', self.cache),
                            ('_archives', mock.Mock(
                                side_effect=lambda: ([self.snapshot] if
                                                     self.snapshot else [])
                                + [MIRROR])),
                            ('run', mock.Mock(side_effect=self.apt_get))):
            patcher = mock.patch.object(qemubuild, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def sources(self):
        with open(os.path.join(self.cache, 'apt', 'sources.list')) as f:
            return f.read().splitlines()

    def suites(self):
        return [ln.split()[-2] for ln in self.sources()
                if ln.startswith('deb-src') and MIRROR in ln]

    def apt_get(self, cmd, **kw):
        self.calls.append(cmd)
        self.assertEqual(kw['env']['LC_ALL'], 'C.UTF-8')
        if 'update' in cmd:
            errors = []
            for line in self.sources():
                if f'{MIRROR} sid ' in line and \
                        'check-valid-until=no' not in line:
                    errors.append(EXPIRED)
                if self.snapshot and f'{self.snapshot} ' in line and \
                        ' sid ' not in line:
                    suite = line.split()[-2]
                    errors.append(f"E: The repository '{self.snapshot} "
                                  f"{suite} Release' does not have a "
                                  "Release file.")
            return done(cmd, 100 if errors else 0, '\n'.join(errors))
        if 'source' in cmd:
            if self.found_in in self.suites():
                return done(cmd)
            return done(cmd, 100, "E: Can not find version '1:10.2.2+ds-1' "
                        "of package 'qemu'\nE: Unable to find a source "
                        "package for qemu\n")
        if cmd[0] == 'apt-cache':
            return done(cmd, 0, 'Package: qemu\nVersion: 1:11.1.3+ds-1\n')
        raise AssertionError(f'unexpected command {cmd}')

    def test_expired_lists_accepted(self):
        self.found_in = 'sid'
        opts = qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        self.assertNotIn('Acquire::Check-Valid-Until=false', opts)
        # Only the expired entries are exempt from the date check, and
        # every entry trusts the archive key alone.
        for line in self.sources():
            self.assertIn(f'signed-by={qemubuild.DEBIAN_KEY}', line)
            self.assertEqual('check-valid-until=no' in line, ' sid ' in line,
                             line)
        self.assertEqual(self.suites(), ['sid'])
        updates = [c for c in self.calls if 'update' in c]
        self.assertEqual(len(updates), 2)   # refused, then accepted

    def test_other_update_errors_not_retried(self):
        def broken(cmd, **kw):
            return done(cmd, 100, 'E: The repository '
                        f"'{MIRROR} sid InRelease' is not signed.")
        qemubuild.run.side_effect = broken
        with self.assertRaisesRegex(qemubuild.Unavailable, 'is not signed'):
            qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        self.assertEqual(qemubuild.run.call_count, 1)

    def test_version_in_a_later_suite(self):
        self.found_in = 'experimental'
        qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        self.assertEqual(self.suites(), ['sid', 'experimental'])

    def test_archive_without_a_suite(self):
        """A snapshot of sid, listed first, is asked for sid only; meson
        comes from the next archive."""
        self.snapshot = 'http://snapshot.example/archive/debian/20251101'
        self.found_in = 'experimental'
        qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        snap = [ln for ln in self.sources() if self.snapshot in ln]
        self.assertEqual(sorted(ln.split()[-2] for ln in snap),
                         ['sid', 'sid'])     # deb-src, and the keyring's
        self.assertIn(f'deb [signed-by={qemubuild.DEBIAN_KEY}] {MIRROR} '
                      f'{qemubuild.MESON[1]} main', self.sources())

    def test_version_gone(self):
        with self.assertRaises(qemubuild.Unavailable) as cm:
            qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        msg = str(cm.exception)
        self.assertIn('qemu 1:10.2.2+ds-1', msg)
        self.assertIn('no longer published', msg)
        self.assertIn('versions there now: 1:11.1.3+ds-1', msg)
        self.assertIn('Moving the QEMU pin', msg)
        self.assertEqual(self.suites(), list(qemubuild.SOURCE_SUITES))

    def test_other_errors_reported(self):
        def broken(cmd, **kw):
            if 'source' in cmd:
                return done(cmd, 100, 'E: Failed to fetch http://mirror.'
                            'example/qemu_10.2.2+ds-1.dsc  404  Not Found\n')
            return done(cmd)
        qemubuild.run.side_effect = broken
        with self.assertRaisesRegex(qemubuild.Unavailable, '404'):
            qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)


class TestArchives(unittest.TestCase):
    """Which of the host's apt entries the private lists use."""

    def test_debian_entries_only(self):
        etc = tempfile.mkdtemp(prefix='kpk-etc-apt-')
        self.addCleanup(shutil.rmtree, etc, ignore_errors=True)
        os.makedirs(os.path.join(etc, 'sources.list.d'))
        with open(os.path.join(etc, 'sources.list.d', 'a-docker.list'),
                  'w') as f:
            f.write('deb [arch=amd64 signed-by=/etc/apt/keyrings/docker.gpg]'
                    ' https://download.docker.com/linux/debian bookworm '
                    'stable\n')
        with open(os.path.join(etc, 'sources.list.d', 'debian.sources'),
                  'w') as f:
            f.write('Types: deb\nURIs: http://deb.debian.org/debian\n'
                    'Suites: bookworm bookworm-updates\nComponents: main\n'
                    f'Signed-By: {qemubuild.DEBIAN_KEY}\n\n'
                    'Types: deb\nURIs: http://deb.debian.org/debian-security'
                    '\nSuites: bookworm-security\nComponents: main\n')
        with open(os.path.join(etc, 'sources.list'), 'w') as f:
            f.write('deb http://snapshot.debian.org/archive/debian/'
                    '20251101T000000Z/ sid main\n')
        with mock.patch.object(qemubuild, 'run', return_value=done(
                [], 0, 'bookworm\n')):
            self.assertEqual(qemubuild._archives(etc), [
                'http://deb.debian.org/debian',
                'http://snapshot.debian.org/archive/debian/20251101T000000Z'])


class TestEnsureTree(unittest.TestCase):
    """A QEMU tree with work in progress is never unpacked over."""

    def test_work_in_progress_kept(self):
        src = tempfile.mkdtemp(prefix='kpk-qemu-src-')
        self.addCleanup(shutil.rmtree, src, ignore_errors=True)
        with mock.patch.object(qemubuild, 'SRC', src), \
                mock.patch.object(qemubuild, 'key', return_value='K'):
            with open(os.path.join(src, 'target.c'), 'w') as f:
                f.write('base\n')
            qemubuild._git('init', '-q')
            qemubuild._git('add', '-A')
            qemubuild._git('commit', '-q', '-m', 'base')
            head = qemubuild._git('rev-parse', 'HEAD',
                                  quiet=True).stdout.strip()
            # A make qemu whose patches did not apply, then a fix begun.
            with open(qemubuild._stamp(), 'w') as f:
                f.write(f'K-unpatched {head}\n')
            with open(os.path.join(src, 'target.c'), 'w') as f:
                f.write('half a fix\n')
            with self.assertRaisesRegex(qemubuild.Fatal, 'not committed'):
                qemubuild.ensure_tree('/nonexistent.dsc')
            with open(os.path.join(src, 'target.c')) as f:
                self.assertEqual(f.read(), 'half a fix\n')
