# SPDX-License-Identifier: GPL-2.0
from ..arch import Arch, Boot

# TCG emulates Intel PKS; 'enforce' makes QEMU refuse to start rather than
# silently hide it. -cpu max also has LA57, so the kernel uses 5-level
# paging unless told otherwise.
PKS = 'max,pks=on,enforce'

# What make bench boots share: its guest script, no KUnit, a 1 GiB guest,
# and a TSC clocksource: TCG passes the host's counter as the TSC, at a
# rate the guest fails to calibrate without HPET or ACPI, and then times
# with jiffies (kpk/bench.py measures the rate).
BENCH = dict(tests=('bench',), kunit=False, timeout=3600,
             qemu_args=('-m', '1024'),
             extra_cmdline='tsc_early_khz={host_counter_khz} tsc=reliable')

ARCH = Arch(
    name='x86_64',
    linux_arch='x86_64',
    src_dir='arch/x86',
    cross_compile='',
    toolchain_packages=('gcc', 'binutils', 'libc6-dev'),
    fragment='x86_64.config',
    build_targets=('bzImage', 'modules'),
    kernel_image='arch/x86/boot/bzImage',
    deb_arch='amd64',
    qemu_package='qemu-system-x86',
    qemu_binary='qemu-system-x86_64',
    # qboot boots a kernel faster than SeaBIOS and keeps the console clean.
    machine='pc',
    qemu_args=('-bios', 'qboot.rom', '-smp', '2', '-m', '512'),
    cmdline='console=ttyS0 earlyprintk=serial,ttyS0',
    boots=(
        # One boot per arch runs every benchmark once, tiny, so that
        # make bench cannot rot.
        Boot(name='x86_64', cpu=PKS, requires=('pks',),
             tests=('mode', 'pgtables', 'bench_smoke', 'kselftests')),
        Boot(name='x86_64-4level', cpu=PKS, requires=('pks',),
             extra_cmdline='no5lvl', tests=('pgtables',)),
        Boot(name='x86_64-pti', cpu=PKS, requires=('pks',),
             extra_cmdline='pti=on', tests=('pgtables',)),
        Boot(name='x86_64-nopks', cpu='max,pks=off',
             crash_tests=True, tests=('pgtables', 'lkdtm')),
        # PKS present, the feature turned off on the command line: the
        # protection cases skip with that reason, the census too.
        Boot(name='x86_64-off', cpu=PKS, requires=('pks',),
             extra_cmdline='kpkeys_hardened_pgtables=off', crash_tests=True,
             tests=('mode', 'pgtables', 'lkdtm')),
        # Report-only: a stray write to a page table warns once per call
        # site and goes on (KUnit and soft.sh); oops=panic, and no other
        # warning, so that the system must truly go on.
        Boot(name='x86_64-soft', cpu=PKS, requires=('pks',),
             extra_cmdline='kpkeys_hardened_pgtables=soft',
             tests=('mode', 'soft', 'pgtables')),
        # hotplug first: a CPU brought back online; then the page-table
        # pool grown, shrunk by vm.drop_caches and grown again; then the
        # crash tests, on what both left behind.
        Boot(name='x86_64-lkdtm', cpu=PKS, requires=('pks',), kunit=False,
             crash_tests=True, tests=('hotplug', 'pool_shrink', 'lkdtm')),
        # A debug exception's handler (a kernel data breakpoint) sets the
        # frame of its return to the kernel to user mode (LKDTM
        # FORGED_KERNEL_RETURN): the IRET must fault and panic.
        Boot(name='x86_64-forged-return', cpu=PKS, requires=('pks',),
             kunit=False, crash_tests=True, tests=('lkdtm_panic',),
             extra_cmdline='kpk.lkdtm=FORGED_KERNEL_RETURN', timeout=120,
             panics=r'kpkeys: the IRET of a return to the kernel faulted '
             r'\(error code 0x30\)'),
        # Lazy MMU sections through the paravirt hooks (PARAVIRT_XXL, which
        # only Xen PV selects): a kernel of its own, so not in make test.
        Boot(name='x86_64-paravirt', cpu=PKS, requires=('pks',),
             kernel='paravirt', tests=('pgtables',),
             check_only='a kernel build of its own (PARAVIRT_XXL), about '
             '7 minutes cold'),
    ),
    kernel_variants=(('paravirt', ('paravirt-xxl.config',)),),
    # make bench: one kernel, 1 GiB; the CPU feature hidden, then the
    # feature turned off on the command line, then on.
    bench_hidden=Boot(name='bench-hidden', cpu='max,pks=off', **BENCH),
    bench_off=Boot(name='bench-off', cpu=PKS, requires=('pks',),
                   **dict(BENCH, extra_cmdline='kpkeys_hardened_pgtables=off '
                          + BENCH['extra_cmdline'])),
    bench_on=Boot(name='bench-on', cpu=PKS, requires=('pks',), **BENCH),
    demo=Boot(name='demo', cpu=PKS, requires=('pks',), crash_tests=True,
              tests=('lkdtm',)),
    demo_fault=r'#PF: error_code\(0x[0-9a-f]+\) - protection keys violation',
    # The x86 entry selftests, run by the main boot (kselftests.sh): what
    # enters and leaves the kernel in odd ways (bad IRET frames through
    # sigreturn, SYSRET's corner cases, single-stepping into syscalls,
    # FS/GS bases), with PKS and the kpkeys record in the path.
    selftests=tuple(f'x86/{t}_64' for t in (
        'sigreturn', 'sysret_rip', 'single_step_syscall', 'syscall_nt',
        'syscall_arg_fault', 'sigtrap_loop', 'fsgsbase',
        'check_initial_reg_state', 'iopl', 'ioperm')),
    selftests_make_args=('EXTRA_CFLAGS=-static',),
    # Measured with PKS hidden too (-cpu max,pks=off: kpkeys inactive),
    # with the same result: not the series.
    selftests_unavailable=(
        ('x86/sysret_ss_attrs_64', "QEMU 7.2's TCG oopses the guest on "
         "its far return to 32-bit code: a supervisor-mode read of the "
         'user stack, which SMAP faults'),
        ('x86/mov_ss_trap_64', 'segfaults under QEMU 7.2 TCG after setting '
         'its data breakpoint on the MOV SS operand'),
    ),
)
