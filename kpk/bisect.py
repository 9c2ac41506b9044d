# SPDX-License-Identifier: GPL-2.0
"""make bisect: build the tree at every patch of the series, both arches.

Runs in a separate git worktree (build/bisect/linux) so build/linux and its
build folders are left alone.  Config options that a patch later in the
series adds are allowed to be missing here.  A patch that only touches
another architecture's arch/ folder, or files the build never reads,
cannot change this architecture's build: its result is the previous
patch's, and it is not built again.
"""

import os
import time

from . import arch as arches, build, deps, tree
from .common import BUILD, Fatal, info


# Paths no kernel build reads.
NOT_BUILT = ('Documentation/', 'tools/', 'MAINTAINERS')


def affects(arch, paths):
    """Whether a change to @paths can change @arch's kernel build."""
    for p in paths:
        if p.startswith(NOT_BUILT):
            continue
        if p.startswith('arch/') and not p.startswith(arch.src_dir + '/'):
            continue
        return True
    return False


def main(first=1):
    """Build patches @first.. of the series (1-based), and every one after."""
    selected = arches.all_arches()
    deps.host_tools(selected)
    tree.ensure()
    commits = tree.git_out('rev-list', '--reverse',
                           f'{tree.BASE_TAG}..HEAD').split()
    if not commits:
        info('the series is empty: nothing to bisect')
        return 0
    work = os.path.join(BUILD, 'bisect')
    if not 1 <= first <= len(commits):
        raise Fatal(f'FROM={first}: the series has patches 1 to '
                    f'{len(commits)}')
    wt = tree.worktree(os.path.join(work, 'linux'), commits[first - 1])
    failures = 0
    last_ok = {}
    for i, commit in enumerate(commits, 1):
        if i < first:
            continue
        subject = tree.git_out('log', '-1', '--format=%s', commit)
        paths = tree.git_out('diff', '--name-only', f'{commit}^',
                             commit).split()
        tree.worktree(wt, commit)
        for arch in selected:
            if arch.name in last_ok and not affects(arch, paths):
                if not last_ok[arch.name]:
                    failures += 1
                info(f'[{"ok" if last_ok[arch.name] else "FAILED"}] '
                     f'{i}/{len(commits)} {arch.name} "{subject}" (same '
                     f'build as the patch before: touches no file of it)')
                continue
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
                last_ok[arch.name] = True
            except Fatal as e:
                failures += 1
                last_ok[arch.name] = False
                info(f'[FAILED] {i}/{len(commits)} {arch.name} "{subject}":'
                     f' {e}')
    info(f'patches {first}-{len(commits)} x {len(selected)} arches: '
         f'{failures} failed builds')
    return 1 if failures else 0
