# SPDX-License-Identifier: GPL-2.0
"""Host packages: one package apt cannot install keeps no other out.

apt-get is a stand-in; the log goes to the tests' own build folder.
"""

import os
import subprocess
import unittest
from unittest import mock

from kpk import common, deps
from kpk.common import Fatal


class TestAptInstall(unittest.TestCase):
    def setUp(self):
        self.installed = []
        for name, value in (('run', mock.Mock(side_effect=self.apt_get)),
                            ('_missing', mock.Mock(return_value=[
                                'rsync', 'nosuchpkg', 'flex'])),
                            ('_updated', True), ('_log_started', False)):
            patcher = mock.patch.object(deps, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        patcher = mock.patch.object(deps.os, 'geteuid', return_value=0)
        patcher.start()
        self.addCleanup(patcher.stop)

    def apt_get(self, cmd, **kw):
        pkgs = [a for a in cmd[1:] if not a.startswith('-') and
                a != 'install']
        if 'nosuchpkg' in pkgs:
            return subprocess.CompletedProcess(
                cmd, 100, 'Reading package lists...\n'
                'E: Unable to locate package nosuchpkg\n')
        self.installed += pkgs
        return subprocess.CompletedProcess(cmd, 0, 'done\n')

    def test_one_bad_package(self):
        with self.assertRaises(Fatal) as cm:
            deps.apt_install(['rsync', 'nosuchpkg', 'flex'])
        msg = str(cm.exception)
        log = os.path.join(common.LOGS, 'apt.log')
        self.assertIn('could not install nosuchpkg with apt-get', msg)
        self.assertIn(log, msg)
        self.assertIn('E: Unable to locate package nosuchpkg', msg)
        self.assertNotIn('rsync', msg.split('(log')[0])
        # The others were installed on their own.
        self.assertEqual(self.installed, ['rsync', 'flex'])
        with open(log) as f:
            text = f.read()
        self.assertEqual(text.count('$ apt-get install'), 4)

    def test_log_emptied_per_run(self):
        for _ in range(2):
            with self.assertRaises(Fatal):
                deps.apt_install(['rsync', 'nosuchpkg', 'flex'])
            deps._log_started = False     # a new run
        with open(os.path.join(common.LOGS, 'apt.log')) as f:
            self.assertEqual(f.read().count('$ apt-get install'), 4)
