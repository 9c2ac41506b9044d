# SPDX-License-Identifier: GPL-2.0
"""make bisect: build the tree at every patch of the series, both arches.

Runs in a separate git worktree (build/bisect/linux) so build/linux and its
build folders are left alone.  Config options that a patch later in the
series adds are allowed to be missing here.
"""

import os
import time

from . import arch as arches, build, deps, tree
from .common import BUILD, Fatal, info, run


def main():
    selected = arches.all_arches()
    deps.host_tools(selected)
    tree.ensure()
    commits = tree.git_out('rev-list', '--reverse',
                           f'{tree.BASE_TAG}..HEAD').split()
    if not commits:
        info('the series is empty: nothing to bisect')
        return 0
    work = os.path.join(BUILD, 'bisect')
    wt = os.path.join(work, 'linux')
    if not os.path.exists(wt):
        tree.git('worktree', 'add', '-q', '--detach', wt, commits[0])
    failures = 0
    for i, commit in enumerate(commits, 1):
        subject = tree.git_out('log', '-1', '--format=%s', commit)
        run(['git', '-C', wt, 'checkout', '-q', '--detach', commit])
        for arch in selected:
            start = time.time()
            try:
                # Same depth as build/out/<arch> and build/linux: ccache
                # then sees the same relative paths as for the main tree.
                build.build(arch, tree=wt,
                            out=os.path.join(work, 'out', arch.name),
                            strict_config=False,
                            log_name=f'bisect-{i:02d}-{arch.name}.log')
                info(f'[ok] {i}/{len(commits)} {arch.name} "{subject}" '
                     f'({time.time() - start:.0f}s)')
            except Fatal as e:
                failures += 1
                info(f'[FAILED] {i}/{len(commits)} {arch.name} "{subject}":'
                     f' {e}')
    info(f'{len(commits)} patches x {len(selected)} arches: '
         f'{failures} failed builds')
    return 1 if failures else 0
