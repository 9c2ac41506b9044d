# SPDX-License-Identifier: GPL-2.0
"""The guest's initramfs: Debian's static busybox, guest/init as PID 1 and
the guest tests (guest/tests/: shell scripts, lists, and C programs built
against the tree's nolibc) and the tree's selftests the arch asks for
(kpk/selftests.py), packed by the tree's own usr/gen_init_cpio."""

import glob
import os

from . import build, deps, selftests
from .common import BUILD, LOGS, ROOT, TREE, Fatal, ensure_dir, run, \
    tail_lines

GUEST = os.path.join(ROOT, 'guest')
TESTS = os.path.join(GUEST, 'tests')
# Everything in these folders lands in the guest's /tests.
SOURCES = (TESTS, os.path.join(GUEST, 'bench'))
# The kernel's own LKDTM expectations, read by guest/tests/lkdtm.sh.
LKDTM_TABLE = 'tools/testing/selftests/lkdtm/tests.txt'


def _nolibc_programs(arch, kout):
    """Build the guest's *.c for the guest; return {name: path}.

    @kout is a kernel build folder of the arch, where nolibc's
    headers_standalone installs the UAPI headers (through the kernel's
    headers_install; KBUILD_OUTPUT keeps it out of the tree).
    """
    out = ensure_dir(os.path.join(BUILD, 'guest', arch.name))
    sysroot = os.path.join(out, 'sysroot', 'include')
    env = build.make_env(arch)
    log = os.path.join(ensure_dir(LOGS), f'guest-{arch.name}.log')
    with open(log, 'w') as f:
        res = run(['make', '-C', os.path.join(TREE, 'tools/include/nolibc'),
                   f'ARCH={arch.linux_arch}', f'OUTPUT={out}/',
                   f'KBUILD_OUTPUT={kout}',
                   'headers_standalone'], env=env, stdout=f, stderr=f,
                  check=False)
    if res.returncode != 0:
        raise Fatal(f'nolibc headers for {arch.name} failed; see {log}')
    programs = {}
    sources = [src for d in SOURCES for src in glob.glob(os.path.join(d, '*.c'))]
    for src in sorted(sources):
        name = os.path.splitext(os.path.basename(src))[0]
        binary = os.path.join(out, name)
        res = run([f'{arch.cross_compile}gcc', '-Os', '-Wall', '-Werror',
                   '-fno-ident', '-fno-asynchronous-unwind-tables',
                   '-fno-stack-protector', '-nostdlib', '-nostdinc',
                   '-static', '-I', sysroot, '-include', 'nolibc.h',
                   '-o', binary, src, '-lgcc'],
                  quiet=True, check=False)
        if res.returncode != 0:
            raise Fatal(f'guest test {name}.c does not build for '
                        f'{arch.name}:\n{res.stdout}')
        programs[name] = binary
    return programs


def _entries(busybox, programs, kselftests, extra):
    yield 'dir /dev 0755 0 0'
    # The kernel opens /dev/console for init before devtmpfs is mounted.
    yield 'nod /dev/console 0600 0 0 c 5 1'
    for d in ('/proc', '/sys', '/tmp', '/bin', '/sbin', '/root', '/tests'):
        yield f'dir {d} 0755 0 0'
    yield f'file /bin/busybox {busybox} 0755 0 0'
    yield f'file /init {os.path.join(GUEST, "init")} 0755 0 0'
    for d in SOURCES:
        for path in sorted(glob.glob(os.path.join(d, '*'))):
            if not path.endswith(('.c', '.h')):
                yield f'file /tests/{os.path.basename(path)} {path} 0644 0 0'
    for path in extra:
        yield f'file /tests/{os.path.basename(path)} {path} 0644 0 0'
    for name, path in programs.items():
        yield f'file /tests/{name} {path} 0755 0 0'
    yield (f'file /tests/lkdtm-tests.txt {os.path.join(TREE, LKDTM_TABLE)} '
           '0644 0 0')
    if kselftests:
        yield 'dir /tests/selftests 0755 0 0'
    for name, path in kselftests.items():
        yield f'file /tests/selftests/{name} {path} 0755 0 0'


# Kernel modules the guest loads (bench.sh: test_vmalloc), from the kernel
# build folder into /tests, with the config option that builds each.
MODULES = (('lib/test_vmalloc.ko', 'CONFIG_TEST_VMALLOC=m'),)


def _modules(kout):
    """Return the paths of MODULES in @kout, each built for that kernel."""
    with open(os.path.join(kout, 'include', 'config', 'kernel.release')) as f:
        release = f.read().strip()
    paths = []
    for rel, option in MODULES:
        path = os.path.join(kout, rel)
        magic = run(['modinfo', '-F', 'vermagic', path], quiet=True,
                    check=False).stdout.split() \
            if os.path.exists(path) else []
        if not magic:
            raise Fatal(f'{path} is missing: the kernel config needs '
                        f'{option}, and the build its modules')
        if magic[0] != release:
            raise Fatal(f'{path} is built for {magic[0]}, not for this '
                        f'kernel ({release}): rebuild the kernel')
        paths.append(path)
    return paths


def build_for(arch, kout=None, name=None, kselftests=True):
    """Write build/initramfs-<name>.cpio and return its path.

    @kout is the kernel build folder (the arch's test build by default),
    whose MODULES go into /tests; @name the file's name (the arch's by
    default); without @kselftests, the tree's selftests are left out.
    """
    busybox = deps.busybox(arch)
    kout = kout or build.outdir(arch)
    name = name or arch.name
    gen = os.path.join(kout, 'usr', 'gen_init_cpio')
    if not os.path.exists(gen):
        raise Fatal(f'{gen} is missing: the kernel config needs '
                    'CONFIG_BLK_DEV_INITRD=y')
    listing = os.path.join(BUILD, f'initramfs-{name}.list')
    with open(listing, 'w') as f:
        f.write('\n'.join(_entries(busybox, _nolibc_programs(arch, kout),
                                    selftests.build_for(arch) if kselftests else {},
                                    _modules(kout))) + '\n')
    out = os.path.join(BUILD, f'initramfs-{name}.cpio')
    log = os.path.join(ensure_dir(LOGS), f'initramfs-{name}.log')
    with open(out + '.tmp', 'wb') as f, open(log, 'w') as err:
        res = run([gen, listing], stdout=f, stderr=err, check=False)
    if res.returncode != 0:
        raise Fatal(f'gen_init_cpio failed ({res.returncode}) on {listing}; '
                    f'last lines of {log}:\n  '
                    + '\n  '.join(tail_lines(log, 10)))
    os.replace(out + '.tmp', out)
    return out
