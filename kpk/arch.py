# SPDX-License-Identifier: GPL-2.0
"""Per-architecture settings, kept as data in kpk/arches/<name>.py.

Like tools/testing/kunit/qemu_configs, each architecture is described by
one object and the code never branches on the architecture's name.
"""

import dataclasses
from dataclasses import dataclass, field
import importlib
from typing import Tuple


@dataclass(frozen=True)
class Boot:
    """One way of booting an architecture's kernel in QEMU."""
    name: str                 # used in log file names and the summary
    cpu: str                  # the -cpu argument
    # CPU properties this boot insists on; QEMU is probed for them first
    # and a QEMU that lacks one is reported as such, not as a guest failure.
    requires: Tuple[str, ...] = ()
    extra_cmdline: str = ''
    # Guest tests run by guest/init after KUnit (guest/tests/NAME[.sh]).
    tests: Tuple[str, ...] = ()
    kunit: bool = True        # run (and count) the built-in KUnit suites
    # Crash tests expect oopses: the kernel must survive them, so no
    # oops=panic, and only a panic or a hang fails the boot.
    crash_tests: bool = False
    timeout: int = 300        # seconds, from QEMU start to its exit
    # 'series': the tree with patches/; 'base': linux-source-6.12 as
    # Debian ships it, for tests of the emulator rather than of our code;
    # or the name of one of the arch's kernel_variants.
    kernel: str = 'series'
    # Options for the arch's -machine, such as 'virtualization=on'.
    machine_opts: Tuple[str, ...] = ()
    # 'debian': Debian's QEMU even where the arch boots the one built from
    # qemu/ (patched_qemu), to check a QEMU without the CPU feature.
    qemu: str = 'arch'
    # QEMU arguments that replace the arch's own options of the same name,
    # or add to them (kpk.qemu.merged_args()).
    qemu_args: Tuple[str, ...] = ()
    # Why make test leaves this boot out (counted as skipped, with this
    # reason), if it does: then only make check BOOT=<name> runs it.
    check_only: str = ''
    # The panic this boot must end in, a regex of the panic's message
    # (say, a guest test that triggers an LKDTM test which panics by
    # design): the boot passes only if the console shows that panic, and
    # its KUnit and guest tests are not counted.
    panics: str = ''


@dataclass(frozen=True)
class Arch:
    name: str
    linux_arch: str           # ARCH= for kbuild
    src_dir: str              # the tree's arch/ folder for this arch
    cross_compile: str        # CROSS_COMPILE= for kbuild ('' when native)
    toolchain_packages: Tuple[str, ...]
    fragment: str             # file in configs/, merged after base.config
    build_targets: Tuple[str, ...]
    kernel_image: str         # relative to the build output folder
    deb_arch: str             # Debian architecture of the guest's busybox
    qemu_package: str
    qemu_binary: str
    machine: str
    qemu_args: Tuple[str, ...]
    cmdline: str              # console and early-console arguments
    boots: Tuple[Boot, ...] = field(default_factory=tuple)
    demo: Boot = None         # what make demo boots, if this arch has one
    # The console line (a regex) by which the CPU's pkey fault on the
    # demo's stray write shows.
    demo_fault: str = ''
    # Boot with the QEMU built from qemu/ (kpk/qemubuild.py) rather than
    # Debian's; boots that require a CPU property only it has are skipped,
    # with the reason, when it cannot be built here.
    patched_qemu: bool = False
    # The tree's own selftests for the guest (tools/testing/selftests/
    # DIR/NAME, static, with the cross libc), put in /tests/selftests/ for
    # guest tests such as kselftests.sh; and those this tree cannot build
    # or run for the arch, with why.
    selftests: Tuple[str, ...] = ()
    selftests_unavailable: Tuple[Tuple[str, str], ...] = ()
    # Extra make variables for the selftests' Makefiles (x86's ignores
    # LDFLAGS and links in one step with its EXTRA_CFLAGS).
    selftests_make_args: Tuple[str, ...] = ()
    # Fragments in configs/ added for the kernel without our series.
    base_fragments: Tuple[str, ...] = ()
    # Other kernels of the series that boots may ask for by name (Boot.
    # kernel): (name, fragments in configs/ added to the arch's), each
    # built in build/out/<arch>-<name>.
    kernel_variants: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    # make bench: the same kernel booted with the protection turned off
    # (kpkeys_hardened_pgtables=off) and on, and, where set, with the CPU
    # feature hidden: what the option costs when turned off is off
    # against hidden.
    bench_off: Boot = None
    bench_on: Boot = None
    bench_hidden: Boot = None
    # make bench: a boot of the kernel without our series (kernel='base')
    # that only reports how the direct map is mapped, for comparison, where
    # building the series changes it whatever the CPU (arm64's linear map).
    bench_base: Boot = None


ARCH_NAMES = ('x86_64', 'arm64')


def get(name):
    if name not in ARCH_NAMES:
        raise KeyError(name)
    return importlib.import_module(f'kpk.arches.{name}').ARCH


def all_arches():
    return [get(n) for n in ARCH_NAMES]


def with_qemu(arch, binary):
    """@arch, booting with the QEMU at @binary."""
    return dataclasses.replace(arch, qemu_binary=binary)
