# SPDX-License-Identifier: GPL-2.0
from ..arch import Arch, Boot

ARCH = Arch(
    name='arm64',
    linux_arch='arm64',
    src_dir='arch/arm64',
    cross_compile='aarch64-linux-gnu-',
    toolchain_packages=('gcc-aarch64-linux-gnu', 'binutils-aarch64-linux-gnu'),
    fragment='arm64.config',
    build_targets=('Image', 'modules'),
    kernel_image='arch/arm64/boot/Image',
    deb_arch='arm64',
    qemu_package='qemu-system-arm',
    qemu_binary='qemu-system-aarch64',
    machine='virt',
    qemu_args=('-smp', '2', '-m', '512'),
    cmdline='console=ttyAMA0 earlycon',
    boots=(
        Boot(name='arm64', cpu='max', tests=('pgtables', 'lkdtm')),
    ),
)
