# SPDX-License-Identifier: GPL-2.0
"""Fetching the pinned QEMU source: expired lists, other suites, a gone pin.

apt-get is a stand-in that answers as Debian's archive did on a fresh
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

EXPIRED = ('E: Release file for http://mirror.example/debian/dists/sid/'
           'InRelease is expired (invalid since 28d 10h 20min 27s). Updates '
           'for this repository will not be applied.')


class TestFetchSource(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix='kpk-qemu-cache-')
        self.addCleanup(shutil.rmtree, self.cache, ignore_errors=True)
        self.calls = []
        self.found_in = None      # the suite that has the pinned version
        for name, value in (('CACHE', self.cache),
                            ('_archives', mock.Mock(return_value=[
                                ('http://mirror.example/debian',
                                 '/usr/share/keyrings/k.gpg')])),
                            ('run', mock.Mock(side_effect=self.apt_get))):
            patcher = mock.patch.object(qemubuild, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def suites(self):
        with open(os.path.join(self.cache, 'apt', 'sources.list')) as f:
            return [ln.split()[3] for ln in f if ln.startswith('deb-src')]

    def apt_get(self, cmd, **kw):
        self.calls.append(cmd)
        if 'update' in cmd:
            if 'Acquire::Check-Valid-Until=false' in cmd:
                return subprocess.CompletedProcess(cmd, 0, '')
            return subprocess.CompletedProcess(cmd, 100, EXPIRED + '\n')
        if 'source' in cmd:
            if self.found_in in self.suites():
                return subprocess.CompletedProcess(cmd, 0, '')
            return subprocess.CompletedProcess(
                cmd, 100, "E: Can not find version '1:10.2.2+ds-1' of "
                "package 'qemu'\nE: Unable to find a source package for "
                "qemu\n")
        raise AssertionError(f'unexpected command {cmd}')

    def test_expired_lists_accepted(self):
        self.found_in = 'sid'
        opts = qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        self.assertIn('Acquire::Check-Valid-Until=false', opts)
        self.assertEqual(self.suites(), ['sid'])
        updates = [c for c in self.calls if 'update' in c]
        self.assertEqual(len(updates), 2)   # refused, then accepted

    def test_version_in_a_later_suite(self):
        self.found_in = 'experimental'
        qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        self.assertEqual(self.suites(), ['sid', 'experimental'])

    def test_version_gone(self):
        with self.assertRaises(qemubuild.Unavailable) as cm:
            qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
        msg = str(cm.exception)
        self.assertIn('qemu 1:10.2.2+ds-1', msg)
        self.assertIn('no longer published', msg)
        self.assertIn('Moving the QEMU pin', msg)
        self.assertEqual(self.suites(), list(qemubuild.SOURCE_SUITES))

    def test_other_errors_reported(self):
        def broken(cmd, **kw):
            if 'source' in cmd:
                return subprocess.CompletedProcess(
                    cmd, 100, 'E: Failed to fetch http://mirror.example/'
                    'qemu_10.2.2+ds-1.dsc  404  Not Found\n')
            return subprocess.CompletedProcess(cmd, 0, '')
        qemubuild.run.side_effect = broken
        with self.assertRaisesRegex(qemubuild.Unavailable, '404'):
            qemubuild._fetch_source('qemu', '1:10.2.2+ds-1', self.cache)
