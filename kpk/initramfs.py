# SPDX-License-Identifier: GPL-2.0
"""The guest's initramfs: Debian's static busybox, guest/init as PID 1 and
the guest tests, packed by the tree's own usr/gen_init_cpio."""

import os

from . import deps
from .common import BUILD, ROOT, Fatal, run

GUEST = os.path.join(ROOT, 'guest')


def _entries(busybox):
    yield 'dir /dev 0755 0 0'
    # The kernel opens /dev/console for init before devtmpfs is mounted.
    yield 'nod /dev/console 0600 0 0 c 5 1'
    for d in ('/proc', '/sys', '/tmp', '/bin', '/sbin', '/root'):
        yield f'dir {d} 0755 0 0'
    yield f'file /bin/busybox {busybox} 0755 0 0'
    yield f'file /init {os.path.join(GUEST, "init")} 0755 0 0'
    tests = os.path.join(GUEST, 'tests')
    if os.path.isdir(tests):
        yield 'dir /tests 0755 0 0'
        for name in sorted(os.listdir(tests)):
            yield f'file /tests/{name} {os.path.join(tests, name)} 0755 0 0'


def build(arch, kernel_out):
    """Write build/initramfs-<arch>.cpio and return its path."""
    busybox = deps.busybox(arch)
    gen = os.path.join(kernel_out, 'usr', 'gen_init_cpio')
    if not os.path.exists(gen):
        raise Fatal(f'{gen} is missing: the kernel config needs '
                    'CONFIG_BLK_DEV_INITRD=y')
    listing = os.path.join(BUILD, f'initramfs-{arch.name}.list')
    with open(listing, 'w') as f:
        f.write('\n'.join(_entries(busybox)) + '\n')
    out = os.path.join(BUILD, f'initramfs-{arch.name}.cpio')
    with open(out + '.tmp', 'wb') as f:
        run([gen, listing], stdout=f)
    os.replace(out + '.tmp', out)
    return out
