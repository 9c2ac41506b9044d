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
