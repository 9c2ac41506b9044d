# SPDX-License-Identifier: GPL-2.0
"""The workbench's own unit tests (tests/workbench), counted by make test.

They need no kernel build.  They run in a child Python whose KPK_BUILD_DIR
is a fresh temporary folder, so that they never touch build/, and the
child writes one result per test case to a JSON file that run() turns
into checks.  Run them alone with:

    python3 -m kpk.workbench_tests
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from .common import LOGS, ROOT, Fatal, ensure_dir, tail_lines
from .results import FAIL, PASS, SKIP

TESTS = os.path.join(ROOT, 'tests', 'workbench')
# They take seconds; a hang must not hang make test.
TIMEOUT = 300


class _Recorder(unittest.TextTestResult):
    """A verbose result that also keeps (test id, status, reason)."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.outcomes = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.append((test.id(), PASS, ''))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes.append((test.id(), FAIL, self._last_line(err)))

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes.append((test.id(), FAIL, self._last_line(err)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes.append((test.id(), SKIP, reason))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.outcomes.append((test.id(), FAIL, 'unexpected success'))

    @staticmethod
    def _last_line(err):
        lines = str(err[1]).strip().splitlines() or [err[0].__name__]
        return f'{err[0].__name__}: {lines[-1]}'


def _child(out_json):
    """Run tests/workbench; write [[id, status, reason], ...] to @out_json."""
    suite = unittest.defaultTestLoader.discover(TESTS, top_level_dir=ROOT)
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2,
                                     buffer=True, resultclass=_Recorder)
    result = runner.run(suite)
    with open(out_json, 'w') as f:
        json.dump(result.outcomes, f)
    return 0 if result.wasSuccessful() else 1


def run(results):
    """Run tests/workbench in a child with its own KPK_BUILD_DIR.

    Each test case is one check in @results.
    """
    log = os.path.join(ensure_dir(LOGS), 'workbench-tests.log')
    tmp = tempfile.mkdtemp(prefix='kpk-workbench-tests-')
    try:
        out_json = os.path.join(tmp, 'results.json')
        build = os.path.join(tmp, 'build')
        # The marker tells tests/workbench that this folder is theirs.
        env = dict(os.environ, KPK_BUILD_DIR=build, KPK_WORKBENCH_TESTS=build)
        with open(log, 'w') as f:
            try:
                res = subprocess.run(
                    [sys.executable, '-m', 'kpk.workbench_tests', '--json',
                     out_json], cwd=ROOT, env=env, stdout=f,
                    stderr=subprocess.STDOUT, check=False, timeout=TIMEOUT)
            except subprocess.TimeoutExpired as e:
                raise Fatal(f'the unit tests did not end within {TIMEOUT}s; '
                            f'see {log}') from e
        try:
            with open(out_json) as f:
                outcomes = json.load(f)
        except (OSError, ValueError):
            outcomes = []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not outcomes:
        raise Fatal(f'no test case ran (exit {res.returncode}); last lines '
                    f'of {log}:\n  ' + '\n  '.join(tail_lines(log, 15)))
    for test_id, status, reason in outcomes:
        if status == FAIL:
            reason = f'{reason} (log {os.path.relpath(log, ROOT)})'
        results.add(f'workbench {test_id.removeprefix("tests.workbench.")}',
                    status, reason)
    if res.returncode != 0 and all(o[1] != FAIL for o in outcomes):
        raise Fatal(f'the unit tests exited {res.returncode} without a '
                    f'failed case; see {log}')


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--json':
        sys.exit(_child(sys.argv[2]))
    # By hand: the same run, reported as make test reports it.
    from .results import Results
    RESULTS = Results()
    try:
        run(RESULTS)
    except Fatal as e:
        RESULTS.add('workbench unit tests', FAIL, str(e))
    sys.exit(0 if RESULTS.summary() else 1)
