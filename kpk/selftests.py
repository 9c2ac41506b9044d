# SPDX-License-Identifier: GPL-2.0
"""The tree's own kselftests, built for the guest by their own Makefiles.

Each entry of arch.selftests names tools/testing/selftests/DIR/NAME.  It is
built statically with the arch's cross compiler and libc against the
tree's UAPI headers; kpk/initramfs.py puts it in /tests/selftests/ and
a guest test (guest/tests/kselftests.sh, or pkeys.sh) runs it.
"""

import os

from . import build
from .common import BUILD, LOGS, TREE, Fatal, ensure_dir, run, tail_lines


def build_for(arch):
    """Build arch.selftests; return {NAME: path of the binary}."""
    if not arch.selftests:
        return {}
    env = build.make_env(arch)
    kout = build.outdir(arch)
    log = os.path.join(ensure_dir(LOGS), f'selftests-{arch.name}.log')
    programs = {}
    with open(log, 'w') as f:
        res = run(build.make_args(arch, kout) + ['headers'], env=env,
                  stdout=f, stderr=f, check=False)
        if res.returncode != 0:
            raise Fatal(f'{arch.name} UAPI headers failed; see {log}')
        for test in arch.selftests:
            sub, name = os.path.split(test)
            out = ensure_dir(os.path.join(BUILD, 'selftests', arch.name, sub))
            res = run(['make', '-C', os.path.join(
                TREE, 'tools', 'testing', 'selftests', sub),
                f'ARCH={arch.linux_arch}', f'CROSS_COMPILE={arch.cross_compile}',
                f'OUTPUT={out}', 'LDFLAGS=-static',
                f'KHDR_INCLUDES=-isystem {kout}/usr/include',
                *arch.selftests_make_args,
                os.path.join(out, name)], env=env, stdout=f, stderr=f,
                check=False)
            if res.returncode != 0:
                raise Fatal(f'selftest {test} does not build for {arch.name}'
                            f'; last lines of {log}:\n  ' +
                            '\n  '.join(tail_lines(log, 10)))
            programs[name] = os.path.join(out, name)
    return programs
