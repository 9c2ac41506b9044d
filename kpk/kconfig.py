# SPDX-License-Identifier: GPL-2.0
"""Kernel configuration: configs/base.config plus the architecture's fragment,
merged by the tree's own scripts/kconfig/merge_config.sh on top of
allnoconfig, so that only what the fragments ask for (and what it needs) is
built.  Like a .kunitconfig, the fragments are the whole configuration."""

import os
import re

from .common import BUILD, CONFIGS, LOGS, Fatal, ensure_dir, info, run

BASE = 'base.config'


def fragments(arch, extra=()):
    return [os.path.join(CONFIGS, f) for f in (BASE, arch.fragment) + extra]


def _parse(path):
    values = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = re.match(r'^(CONFIG_\w+)=(.*)$', line)
            if m:
                values[m.group(1)] = m.group(2)
                continue
            m = re.match(r'^# (CONFIG_\w+) is not set$', line)
            if m:
                values[m.group(1)] = 'n'
    return values


def _log_name(outdir):
    """build/out/x86_64 -> x86_64; other build folders by their path."""
    for top in (os.path.join(BUILD, 'out'), BUILD):
        rel = os.path.relpath(outdir, top)
        if not rel.startswith('..'):
            return rel.replace(os.sep, '-')
    return os.path.basename(outdir)


def configure(arch, tree, outdir, env, strict=True, extra=()):
    """Write outdir/.config; with strict, fail if a requested value is lost.

    Returns the list of requested options that did not take effect.
    """
    os.makedirs(outdir, exist_ok=True)
    log = os.path.join(ensure_dir(LOGS), f'config-{_log_name(outdir)}.log')
    res = run([os.path.join(tree, 'scripts/kconfig/merge_config.sh'),
               '-n', '-O', outdir] + fragments(arch, extra),
              cwd=tree, env=env, quiet=True, check=False)
    with open(log, 'w') as f:
        f.write(res.stdout)
    if res.returncode != 0:
        raise Fatal(f'merge_config.sh failed for {arch.name} (full log '
                    f'{log}):\n' + '\n'.join(res.stdout.splitlines()[-20:]))
    final = _parse(os.path.join(outdir, '.config'))
    # What was asked for: a later fragment overrides an earlier one, as
    # merge_config.sh merges them.
    wanted = {}
    for frag in fragments(arch, extra):
        for opt, want in _parse(frag).items():
            wanted[opt] = (want, os.path.basename(frag))
    lost = []
    for opt, (want, frag) in wanted.items():
        got = final.get(opt, 'n')
        if got != want:
            lost.append(f'{opt}={want} (got {got}) from configs/{frag}')
    if lost and strict:
        raise Fatal(f'{arch.name} config: requested values did not take '
                    'effect (a missing dependency, or an option the series '
                    f'does not provide; merge_config.sh log {log}):\n  '
                    + '\n  '.join(lost))
    for item in lost:
        info(f'{arch.name} config: not applied: {item}')
    return lost
