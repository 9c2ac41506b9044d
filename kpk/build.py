# SPDX-License-Identifier: GPL-2.0
"""Build a kernel out of tree (build/out/<arch>) with ccache."""

import os
import time

from . import kconfig, tree as trees
from .common import BUILD, LOGS, ROOT, TREE, Fatal, ensure_dir, info, run, \
    tail_lines


def outdir(arch):
    return os.path.join(BUILD, 'out', arch.name)


def make_env(arch):
    env = dict(os.environ)
    env.update({
        'ARCH': arch.linux_arch,
        'CROSS_COMPILE': arch.cross_compile,
        # Paths below the repository are hashed relative to it, so a clone
        # in another folder hits the same cache (kept outside the repo, in
        # ccache's default place unless CCACHE_DIR says otherwise).
        'CCACHE_BASEDIR': ROOT,
        'CCACHE_NOHASHDIR': '1',
        # Reproducible builds: no date, user or host in the image.
        'KBUILD_BUILD_TIMESTAMP': 'Thu Jan  1 00:00:00 UTC 2026',
        'KBUILD_BUILD_USER': 'kpkeys',
        'KBUILD_BUILD_HOST': 'workbench',
        'KBUILD_BUILD_VERSION': '1',
    })
    return env


def make_args(arch, out, tree=TREE):
    return ['make', '-C', tree, f'O={out}', f'-j{os.cpu_count() or 1}',
            f'CC=ccache {arch.cross_compile}gcc', 'HOSTCC=ccache gcc']


def configure(arch, tree=TREE, out=None, strict_config=True,
              extra_fragments=()):
    """Write the build folder's .config from configs/; return the folder."""
    out = out or outdir(arch)
    kconfig.configure(arch, tree, out, make_env(arch), strict=strict_config,
                      extra=tuple(extra_fragments))
    return out


def compile_kernel(arch, tree=TREE, out=None, log_name=None):
    """Build a configured folder; return the kernel image's path.

    A build that exits 0 without leaving the image is a failure too.
    """
    out = out or outdir(arch)
    log = os.path.join(ensure_dir(LOGS), log_name or f'build-{arch.name}.log')
    info(f'building {arch.name} kernel (log: {os.path.relpath(log, ROOT)})')
    start = time.time()
    with open(log, 'w') as f:
        res = run(make_args(arch, out, tree) + list(arch.build_targets),
                  env=make_env(arch), stdout=f, stderr=f, check=False)
    if res.returncode != 0:
        errors = [line for line in tail_lines(log, 400)
                  if 'error' in line.lower()][-15:]
        raise Fatal(f'{arch.name} kernel build failed; last errors '
                    f'(full log {log}):\n  ' + '\n  '.join(
                        errors or tail_lines(log, 15)))
    image = os.path.join(out, arch.kernel_image)
    if not os.path.exists(image):
        raise Fatal(f'{arch.name} kernel build left no image at {image} '
                    f'(full log {log})')
    info(f'{arch.name} kernel built in {time.time() - start:.0f}s')
    return image


def build(arch, tree=TREE, out=None, strict_config=True, log_name=None,
          extra_fragments=()):
    """Configure and build; return the kernel image's path."""
    out = configure(arch, tree, out, strict_config, extra_fragments)
    return compile_kernel(arch, tree, out, log_name)


def variant_kernel(arch, name):
    """Build the series with the fragments of @arch's kernel variant
    @name added, in build/out/<arch>-<name>; return the image's path.
    """
    fragments = dict(arch.kernel_variants).get(name)
    if fragments is None:
        raise Fatal(f'{arch.name} has no kernel variant {name}')
    return build(arch, out=os.path.join(BUILD, 'out', f'{arch.name}-{name}'),
                 log_name=f'build-{arch.name}-{name}.log',
                 extra_fragments=fragments)


def base_kernel(arch):
    """Build the kernel without our series (linux-source-6.12 as Debian
    ships it, with configs/ and the arch's base_fragments) in
    build/out/<arch>-base; return the image's path.
    """
    wt = trees.worktree(os.path.join(BUILD, 'base', 'linux'), trees.BASE_TAG)
    return build(arch, tree=wt, out=os.path.join(BUILD, 'out',
                                                 f'{arch.name}-base'),
                 strict_config=False, log_name=f'build-{arch.name}-base.log',
                 extra_fragments=arch.base_fragments)
