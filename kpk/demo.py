# SPDX-License-Identifier: GPL-2.0
"""make demo: build and boot the patched x86_64 kernel, console on screen."""

import os

from . import arch as arches, build, deps, initramfs, qemu, tree
from .common import BUILD, LOGS, Fatal, ensure_dir, info
from .results import Results, parse_ktap

ARCH = 'x86_64'


def main():
    arch = arches.get(ARCH)
    deps.host_tools([arch])
    tree.ensure()
    kernel = build.build(arch)
    initrd = initramfs.build(arch, build.outdir(arch))
    boot = arch.boots[0]
    missing = qemu.probe(arch, boot)
    if missing:
        raise Fatal(missing)
    log = os.path.join(ensure_dir(LOGS), 'demo.log')
    info(f'booting {boot.name} on {qemu.version(arch)} with -cpu {boot.cpu}; '
         'the console follows')
    res = qemu.boot(arch, boot, kernel, initrd, log, echo=True)
    info(f'console log kept in {qemu.relpath(log)}')
    results = Results()
    with open(log, errors='replace') as f:
        parse_ktap(results, 'demo', f.read().split('kpk-guest: init started')[0],
                   os.path.join(BUILD, 'results'))
    if not res.ok:
        raise Fatal(f'the demo boot failed: {res.reason}')
    return 0 if results.summary() else 1
