# SPDX-License-Identifier: GPL-2.0
"""Checks and their results.

Guest KTAP is parsed by the tree's own tools/testing/kunit/kunit.py parse;
its JSON gives each case's status and the KTAP '# SKIP' directive gives the
reason for a skip.  Host-side checks report into the same list, so the
summary line counts everything.
"""

from dataclasses import dataclass
import json
import os
import re
import subprocess

from .common import TREE

PASS, FAIL, SKIP = 'pass', 'fail', 'skip'


@dataclass
class Check:
    name: str
    status: str
    reason: str = ''


class Results:
    def __init__(self):
        self.checks = []

    def add(self, name, status, reason=''):
        self.checks.append(Check(name, status, reason))
        mark = {PASS: 'ok', FAIL: 'FAILED', SKIP: 'skipped'}[status]
        print(f'  [{mark}] {name}' + (f': {reason}' if reason else ''),
              flush=True)

    def count(self, status):
        return sum(1 for c in self.checks if c.status == status)

    def summary(self):
        """Print skips and failures, then the closing line; return success."""
        for title, status in (('skipped', SKIP), ('failed', FAIL)):
            items = [c for c in self.checks if c.status == status]
            if items:
                print(f'\n{title}:')
                for c in items:
                    print(f'  {c.name}: {c.reason or "(no reason given)"}')
        passed, failed, skipped = (self.count(PASS), self.count(FAIL),
                                   self.count(SKIP))
        line = f'{passed} passed, {failed} failed, {skipped} skipped'
        print('\n' + line, flush=True)
        return failed == 0


_RESULT = re.compile(r'^\s*(not ok|ok) \d+ (.+?)(?:\s+#\s*(SKIP)\b\s*(.*))?$')
_ERRORS = re.compile(r'errors: (\d+)')


def _skip_reasons(ktap_lines):
    reasons = {}
    for line in ktap_lines:
        m = _RESULT.match(line)
        if m and m.group(3):
            reasons[m.group(2).strip()] = m.group(4).strip()
    return reasons


def _walk(group, prefix):
    for case in group.get('test_cases', []):
        yield f'{prefix}{case["name"]}', case['status']
    for sub in group.get('sub_groups', []):
        yield from _walk(sub, f'{prefix}{sub["name"]}.')


def parse_ktap(results, label, text, workdir):
    """Parse KTAP in text with kunit.py parse; add one check per case."""
    os.makedirs(workdir, exist_ok=True)
    src = os.path.join(workdir, f'{label}.ktap.log')
    js = os.path.join(workdir, f'{label}.json')
    with open(src, 'w') as f:
        f.write(text)
    if os.path.exists(js):
        os.remove(js)
    kunit = os.path.join(TREE, 'tools/testing/kunit/kunit.py')
    res = subprocess.run(['python3', kunit, 'parse', f'--json={js}', src],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    for line in res.stdout.splitlines():
        print('    ' + line)
    if not os.path.exists(js):
        results.add(f'{label}: KTAP', FAIL, 'kunit.py parse produced no '
                    'results')
        return
    with open(js) as f:
        tree = json.load(f)
    reasons = _skip_reasons(text.splitlines())
    cases = list(_walk(tree, f'{label}.'))
    if not cases:
        results.add(f'{label}: KTAP', FAIL, 'no test cases found in the '
                    'console output')
    for name, status in cases:
        if status == 'PASS':
            results.add(name, PASS)
        elif status == 'SKIP':
            short = name.rsplit('.', 1)[-1]
            results.add(name, SKIP, reasons.get(short, ''))
        else:
            results.add(name, FAIL, f'KUnit status {status}')
    m = _ERRORS.search(res.stdout)
    if m and int(m.group(1)):
        results.add(f'{label}: KTAP', FAIL,
                    f'kunit.py parse reported {m.group(1)} errors')
