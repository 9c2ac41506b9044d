# SPDX-License-Identifier: GPL-2.0
from ..arch import Arch, Boot

ARCH = Arch(
    name='x86_64',
    linux_arch='x86_64',
    cross_compile='',
    toolchain_packages=('gcc', 'binutils'),
    fragment='x86_64.config',
    build_targets=('bzImage', 'modules'),
    kernel_image='arch/x86/boot/bzImage',
    deb_arch='amd64',
    qemu_package='qemu-system-x86',
    qemu_binary='qemu-system-x86_64',
    # qboot boots a kernel faster than SeaBIOS and keeps the console clean.
    machine='pc',
    qemu_args=('-bios', 'qboot.rom', '-smp', '2', '-m', '512'),
    console='ttyS0',
    boots=(
        # TCG emulates Intel PKS; 'enforce' makes QEMU refuse to start
        # rather than silently hide it.
        Boot(name='x86_64', cpu='max,pks=on,enforce', requires=('pks',)),
    ),
)
