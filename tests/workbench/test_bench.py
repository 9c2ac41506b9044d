# SPDX-License-Identifier: GPL-2.0
"""make bench's guest script and make test's smoke run of it agree with
the host on which benchmarks there are.

guest/tests/bench_smoke.sh expects the benchmarks that bench.sh --list
names; kpk/bench.py reports those of its OPS. A benchmark added to one
and not the other would go unreported or unchecked.
"""

import os
import subprocess
import unittest

from kpk import arch as arches, bench
from kpk.common import ROOT


class TestBenchList(unittest.TestCase):
    def test_guest_lists_the_host_benchmarks(self):
        script = os.path.join(ROOT, 'guest', 'bench', 'bench.sh')
        res = subprocess.run(['sh', script, '--list'], capture_output=True,
                             text=True, check=True)
        self.assertEqual(sorted(res.stdout.split()),
                         sorted(op for op, _ in bench.OPS))

    def test_rows_from_runs_without_counters(self):
        """--report recomputes rows from stored runs, old ones included."""
        runs = {'fork_exit_4k': [{'ops': 4, 'ns': 8000}, {'ops': 4,
                                                          'ns': 12000}]}
        rows = bench.summarize({'runs': runs}, {'runs': runs})
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]['off_min_us'], 2.0)
        self.assertEqual(rows[0]['on_max_us'], 3.0)
        self.assertIsNone(rows[0]['pkey_reg_writes'])
        self.assertEqual(bench.fmt(rows[0]['pkey_reg_writes']), 'n/a')

    def test_base_kernel_column_only_where_measured(self):
        """The direct-map table has a base-kernel column where that boot
        ran (arm64's bench_base), and none where it did not (x86)."""
        def arch(maps):
            return {'arch': 'a', 'qemu': 'q', 'cpu_off': 'x', 'cpu_on': 'y',
                    'rows': [], 'map': maps}
        maps = {'off/boot': {'linear_PTE_kb': 4}, 'on/boot':
                {'linear_PTE_kb': 4}}
        plain = bench.markdown({'name': 't', 'arches': [arch(maps)]})
        self.assertNotIn('base kernel, boot', plain)
        self.assertIn('| linear_PTE_kb | 4 | n/a | 4 | n/a |', plain)
        based = bench.markdown({'name': 't', 'arches': [arch(dict(
            maps, **{'base/boot': {'linear_PMD_kb': 2048}}))]})
        self.assertIn('| base kernel, boot | off, boot |', based)
        self.assertIn('| linear_PMD_kb | 2,048 | n/a | n/a | n/a | n/a |',
                      based)
        self.assertIn('| linear_PTE_kb | n/a | 4 | n/a | 4 | n/a |', based)

    def test_every_bench_base_boots_the_base_kernel(self):
        for a in arches.all_arches():
            if a.bench_base:
                self.assertEqual(a.bench_base.kernel, 'base', a.name)

    def test_hidden_mode_columns(self):
        """With a "hidden" boot, each timed row has off/hidden, and the
        table its two columns; without, neither."""
        def runs(ns):
            return {'runs': {'fork_exit_4k': [
                {'ops': 1, 'ns': ns, 'pkey_reg_writes': 0}]}}
        rows = bench.summarize(runs(1100), runs(2000), runs(1000))
        self.assertAlmostEqual(rows[0]['off_hidden_ratio'], 1.1)
        self.assertEqual(rows[0]['off_pkey_reg_writes'], 0)
        arch = {'arch': 'a', 'qemu': 'q', 'cpu_hidden': 'h', 'cpu_off': 'x',
                'cpu_on': 'y', 'rows': rows, 'map': {}}
        md = bench.markdown({'name': 't', 'arches': [arch]})
        self.assertIn('| benchmark | hidden us/op | off us/op | on us/op | '
                      'on/off | off/hidden |', md)
        self.assertIn('-cpu h / x / y', md)
        plain = bench.summarize(runs(1100), runs(2000))
        self.assertNotIn('off_hidden_ratio', plain[0])
        self.assertNotIn('off/hidden', bench.markdown(
            {'name': 't', 'arches': [dict(arch, rows=plain)]}))

    def test_off_is_the_parameter_and_hidden_the_cpu(self):
        """make bench's "off" boots the "on" CPU with the feature turned
        off on the command line; "hidden" hides the CPU feature."""
        for a in arches.all_arches():
            self.assertEqual(a.bench_off.cpu, a.bench_on.cpu, a.name)
            self.assertIn('kpkeys_hardened_pgtables=off',
                          a.bench_off.extra_cmdline, a.name)
            self.assertNotEqual(a.bench_hidden.cpu, a.bench_on.cpu, a.name)
