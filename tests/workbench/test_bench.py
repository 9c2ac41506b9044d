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

from kpk import bench
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
