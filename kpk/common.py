# SPDX-License-Identifier: GPL-2.0
"""Paths, logging and subprocess helpers shared by the workbench modules."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('KPK_BUILD_DIR', os.path.join(ROOT, 'build'))
TREE = os.path.join(BUILD, 'linux')
PATCHES = os.path.join(ROOT, 'patches')
CONFIGS = os.path.join(ROOT, 'configs')
LOGS = os.path.join(BUILD, 'logs')


class Fatal(Exception):
    """An error the user must act on; printed without a traceback."""


def info(msg):
    print(f'kpk: {msg}', flush=True)


def run(cmd, check=True, quiet=False, **kw):
    """Run a command; on failure raise Fatal with the tail of its output."""
    if quiet:
        kw.setdefault('stdout', subprocess.PIPE)
        kw.setdefault('stderr', subprocess.STDOUT)
        kw.setdefault('text', True)
    try:
        res = subprocess.run(cmd, **kw)
    except FileNotFoundError as e:
        raise Fatal(f'cannot run {cmd[0]}: {e.strerror}') from e
    if check and res.returncode != 0:
        tail = ''
        if quiet and res.stdout:
            tail = '\n' + '\n'.join(res.stdout.rstrip().splitlines()[-25:])
        raise Fatal(f'command failed ({res.returncode}): {" ".join(cmd)}{tail}')
    return res


def tail_lines(path, count=30):
    try:
        with open(path, errors='replace') as f:
            return f.read().splitlines()[-count:]
    except OSError:
        return []


def ensure_dir(path):
    os.makedirs(path, exist_ok=True)
    return path


def die(msg):
    print(f'kpk: error: {msg}', file=sys.stderr, flush=True)
    sys.exit(2)
