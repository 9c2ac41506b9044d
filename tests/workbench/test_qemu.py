# SPDX-License-Identifier: GPL-2.0
"""kpk.qemu: which console output fails a boot."""

import unittest

from kpk.qemu import CRASH, _line_of, without_expected_warnings

CUT = '------------[ cut here ]------------\n'
END = '---[ end trace 0000000000000000 ]---\n'


def warning(message):
    return (CUT + message + '\n'
            'WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x0/0x10\n'
            'Call Trace:\n' + END)


class ExpectedWarnings(unittest.TestCase):
    def test_announced_warning_excused(self):
        text = ('kpk-expect-warn: kpkeys: refused\n' +
                warning('kpkeys: refused the raised level') + 'ok\n')
        self.assertIsNone(CRASH.search(without_expected_warnings(text)))

    def test_unannounced_warning_kept(self):
        text = warning('kpkeys: refused the raised level')
        self.assertIsNotNone(CRASH.search(without_expected_warnings(text)))

    def test_other_warning_kept(self):
        text = 'kpk-expect-warn: kpkeys: refused\n' + warning('other')
        self.assertIsNotNone(CRASH.search(without_expected_warnings(text)))

    def test_one_warning_per_announcement(self):
        text = ('kpk-expect-warn: kpkeys: refused\n' +
                warning('kpkeys: refused the raised level') +
                warning('kpkeys: refused the raised level'))
        self.assertIsNotNone(CRASH.search(without_expected_warnings(text)))

    def test_crash_line_after_an_excused_warning(self):
        text = ('kpk-expect-warn: kpkeys: refused\n' +
                warning('kpkeys: refused the raised level') +
                'CR2: 0000000000000000\nKernel panic - not syncing: x\n')
        checked = without_expected_warnings(text)
        self.assertEqual(_line_of(checked, CRASH.search(checked)),
                         'Kernel panic - not syncing: x')

    def test_unexpected_warning_named(self):
        checked = without_expected_warnings(warning('other'))
        self.assertEqual(_line_of(checked, CRASH.search(checked)),
                         CUT.strip() + ' / other / '
                         'WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x0/0x10')

    def test_announcement_without_warning(self):
        text = 'kpk-expect-warn: kpkeys: refused\nok\n'
        self.assertEqual(without_expected_warnings(text), text)


if __name__ == '__main__':
    unittest.main()
