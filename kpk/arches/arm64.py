# SPDX-License-Identifier: GPL-2.0
from ..arch import Arch, Boot

# No QEMU release emulates FEAT_S1POE: arm64 boots use the QEMU built from
# qemu/, whose -cpu max has it and whose 'poe' property turns it off.  A
# boot that asks for poe=on is skipped when that QEMU cannot be had; the
# others then run on Debian's QEMU, without POE.
POE = 'max,poe=on'

# What make bench boots share: its guest script, no KUnit, a 1 GiB guest.
BENCH = dict(tests=('bench',), kunit=False, timeout=3600,
             qemu_args=('-m', '1024'))

ARCH = Arch(
    name='arm64',
    linux_arch='arm64',
    src_dir='arch/arm64',
    cross_compile='aarch64-linux-gnu-',
    toolchain_packages=('gcc-aarch64-linux-gnu', 'binutils-aarch64-linux-gnu',
                        'libc6-dev-arm64-cross'),
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
        # 52-bit VA: 5 levels with LPA2, which -cpu max has.
        Boot(name='arm64', cpu=POE, requires=('poe',),
             tests=('mode', 'pgtables', 'bench_smoke')),
        Boot(name='arm64-4level', cpu=POE + ',lpa2=off', requires=('poe',),
             tests=('pgtables',)),
        # The kernel at EL2 with VHE: POR_EL1 and TCR2_EL1 accesses go to
        # POR_EL2 and TCR2_EL2.
        Boot(name='arm64-el2', cpu=POE, requires=('poe',),
             machine_opts=('virtualization=on',), tests=('pgtables',)),
        Boot(name='arm64-nopoe', cpu='max,poe=off',
             crash_tests=True, tests=('pgtables', 'lkdtm')),
        # POE present, the feature turned off on the command line: the
        # protection cases skip with that reason, the census too, and the
        # linear map is mapped with blocks again.
        Boot(name='arm64-off', cpu=POE, requires=('poe',),
             extra_cmdline='kpkeys_hardened_pgtables=off', crash_tests=True,
             tests=('mode', 'pgtables', 'lkdtm')),
        # Report-only, as x86_64-soft.
        Boot(name='arm64-soft', cpu=POE, requires=('poe',),
             extra_cmdline='kpkeys_hardened_pgtables=soft',
             tests=('mode', 'soft', 'pgtables')),
        # Debian's own QEMU, which has no POE at all.
        Boot(name='arm64-debian-qemu', cpu='max', qemu='debian',
             tests=('pgtables',)),
        # hotplug first: a CPU brought back online; then the page-table
        # pool grown, shrunk by vm.drop_caches and grown again; then the
        # crash tests, on what both left behind.
        Boot(name='arm64-lkdtm', cpu=POE, requires=('poe',), kunit=False,
             crash_tests=True, tests=('hotplug', 'pool_shrink', 'lkdtm')),
        # An interrupt handler sets the frame of its return to the kernel to
        # EL0 (LKDTM FORGED_KERNEL_RETURN): kernel_exit must panic.
        Boot(name='arm64-forged-return', cpu=POE, requires=('poe',),
             kunit=False, crash_tests=True, tests=('lkdtm_panic',),
             extra_cmdline='kpk.lkdtm=FORGED_KERNEL_RETURN', timeout=120,
             panics=r'kpkeys: an exception taken from EL1 returns to EL0'),
        # The emulator on its own: Debian's kernel source without our
        # series already uses POE for user-space protection keys.
        Boot(name='arm64-stock-pkeys', cpu=POE, requires=('poe',),
             kernel='base', kunit=False, tests=('pkeys',)),
    ),
    # make bench: one kernel, 1 GiB; the CPU feature hidden, then the
    # feature turned off on the command line, then on.
    bench_hidden=Boot(name='bench-hidden', cpu='max,poe=off',
                      requires=('poe',), **BENCH),
    bench_off=Boot(name='bench-off', cpu=POE, requires=('poe',),
                   extra_cmdline='kpkeys_hardened_pgtables=off', **BENCH),
    bench_on=Boot(name='bench-on', cpu=POE, requires=('poe',), **BENCH),
    # With the option built and not turned off, the linear map is mapped
    # with pages on every CPU; the base kernel's shows what it was.
    bench_base=Boot(name='bench-base', cpu=POE, requires=('poe',),
                    kernel='base', **BENCH),
    demo=Boot(name='demo', cpu=POE, requires=('poe',), crash_tests=True,
              tests=('lkdtm',)),
    # The abort decoding shows ISS2.Overlay: POR_EL1, not the mapping,
    # refused the write.
    demo_fault=r'GCS = \d+, Overlay = 1, .*',
    patched_qemu=True,
    selftests=('mm/protection_keys',),
    base_fragments=('selftests-pkeys.config',),
    selftests_unavailable=(
        ('mm/pkey_sighandler_tests', "6.12's version supports x86 only "
         '(syscall_raw() is an #error elsewhere; arm64 came in 6.13)'),
    ),
)
