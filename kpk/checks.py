# SPDX-License-Identifier: GPL-2.0
"""Host-side checks: checkpatch on every patch, and the build tests.

The build tests are a table (tests/build/cases.txt) in the manner of
LKDTM's tests.txt: each row names a small external module and whether it
must build or must fail with a given compiler message.
"""

import functools
import os
import re
import shutil

from . import build
from .common import BUILD, LOGS, PATCHES, ROOT, TREE, ensure_dir, run
from .results import FAIL, PASS
from .tree import BASE_TAG, read_series

BUILD_TESTS = os.path.join(ROOT, 'tests', 'build')


CAMELCASE = re.compile(r'CHECK: Avoid CamelCase: <(\w+)>$')


def _existing_camelcase(line):
    """Is @line a CamelCase check on an identifier the base tree has?

    checkpatch only knows the CamelCase names that include/ defines, so it
    flags arm64's own register and field names (PIRx_ELx_PERM,
    HFGxTR_EL2_nPOR_EL1), which a patch can use but not rename.
    """
    m = CAMELCASE.search(line)
    return bool(m) and _in_base_tree(m.group(1))


@functools.lru_cache(maxsize=None)
def _in_base_tree(name):
    """Does the unpatched tree have the word @name? (Asked once per name.)"""
    res = run(['git', 'grep', '-q', '-w', '-F', name, BASE_TAG, '--'],
              cwd=TREE, quiet=True, check=False)
    return res.returncode == 0


def checkpatch(results):
    _, names = read_series()
    script = os.path.join(TREE, 'scripts', 'checkpatch.pl')
    # checkpatch runs scripts/spdxcheck.py with the python3 on PATH; that
    # must be Debian's, which has python3-ply and python3-git.
    env = dict(os.environ, PATH='/usr/bin:' + os.environ.get('PATH', ''))
    log = os.path.join(ensure_dir(LOGS), 'checkpatch.log')
    open(log, 'w').close()
    for name in names:
        res = run([script, '--strict', '--terse', '--no-summary',
                   os.path.join(PATCHES, name)], cwd=TREE, quiet=True,
                  check=False, env=env)
        with open(log, 'a') as f:
            f.write(f'$ checkpatch.pl --strict {name}\n{res.stdout}\n')
        reports = res.stdout.strip().splitlines()
        lines = [line for line in reports if not _existing_camelcase(line)]
        # checkpatch exits 1 on any report, so a run whose every report was
        # set aside above passes too; any other exit is a failure to run.
        if not lines and (res.returncode == 0 or
                          (res.returncode == 1 and reports)):
            results.add(f'checkpatch --strict {name}', PASS)
        else:
            results.add(f'checkpatch --strict {name}', FAIL,
                        '; '.join(lines[:5]) + (' ...' if len(lines) > 5
                                                 else '') + f' (log {log})')


def read_cases():
    cases = []
    with open(os.path.join(BUILD_TESTS, 'cases.txt')) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 2)
            cases.append((parts[0], parts[1], parts[2] if len(parts) > 2
                          else ''))
    return cases


def build_tests(results, arch):
    """Compile every case as an external module in one make -k run."""
    cases = read_cases()
    work = os.path.join(BUILD, 'buildtests', arch.name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for name, _, _ in cases:
        shutil.copy(os.path.join(BUILD_TESTS, f'{name}.c'), work)
    with open(os.path.join(work, 'Kbuild'), 'w') as f:
        f.write('obj-m := ' + ' '.join(f'{n}.o' for n, _, _ in cases) + '\n')
    out = build.outdir(arch)
    # -j1 keeps each file's diagnostics after its own "CC [M]" line.
    res = run(build.make_args(arch, out) + ['-j1', '-k', f'M={work}',
                                            'modules'],
              env=build.make_env(arch), quiet=True, check=False)
    log = res.stdout
    with open(os.path.join(work, 'make.log'), 'w') as f:
        f.write(log)
    errors = {name: [] for name, _, _ in cases}
    current = None
    for line in log.splitlines():
        m = re.search(r'CC \[M\]\s+\S*/(\w+)\.o$', line)
        if m:
            current = m.group(1)
        elif ' error: ' in line and current in errors:
            errors[current].append(line.strip())
    for name, expect, message in cases:
        errs = errors[name]
        built = os.path.exists(os.path.join(work, f'{name}.o'))
        label = f'{arch.name} build test {name} ({expect})'
        if expect == 'builds':
            if built and not errs:
                results.add(label, PASS)
            else:
                results.add(label, FAIL, (errs[0] if errs else
                                          'did not build')
                            + f' (see {work}/make.log)')
        elif expect == 'fails':
            if built:
                results.add(label, FAIL, 'built, but must not')
            elif any(message in e for e in errs):
                results.add(label, PASS)
            else:
                results.add(label, FAIL, f'failed without "{message}": '
                            + (errs[0] if errs else
                               f'see {work}/make.log'))
        else:
            results.add(label, FAIL, f'unknown expectation "{expect}" in '
                        'tests/build/cases.txt')
