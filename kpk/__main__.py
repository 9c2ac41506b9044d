# SPDX-License-Identifier: GPL-2.0
"""kpk: the kpkeys workbench.  python3 -m kpk COMMAND (see README.md)."""

import argparse
import sys

from . import arch as arches, bench, bisect, build, deps, demo, \
    qemubuild, testrun, tree
from .common import Fatal


def main(argv):
    p = argparse.ArgumentParser(prog='kpk', description=__doc__)
    sub = p.add_subparsers(dest='cmd', required=True)
    sub.add_parser('deps', help='install the host packages')
    sub.add_parser('tree', help='make build/linux: linux-source-6.12 + '
                   'patches/')
    sub.add_parser('export', help='write build/linux commits to patches/')
    b = sub.add_parser('build', help='configure and build kernels')
    b.add_argument('arch', nargs='*', help=' '.join(arches.ARCH_NAMES))
    qemu_switch = dict(
        choices=('required', 'optional'), default='required',
        help="optional: go on when the QEMU from qemu/ cannot be had, "
        "skipping the boots that need it (make test POE_QEMU=optional); "
        "by default that is a failure")
    t = sub.add_parser('test', help='run every check (make test)')
    t.add_argument('arch', nargs='*', help=' '.join(arches.ARCH_NAMES))
    t.add_argument('--poe-qemu', **qemu_switch)
    c = sub.add_parser('check', help='rebuild what changed and run one '
                       'boot or one arch\'s boots; list them without '
                       'arguments (make check)')
    c.add_argument('arch', nargs='*', help=' '.join(arches.ARCH_NAMES))
    c.add_argument('--boot', default=None, help='the boot to run')
    c.add_argument('--poe-qemu', **qemu_switch)
    d = sub.add_parser('demo', help='the main job (make demo)')
    d.add_argument('arch', nargs='*', help=' '.join(arches.ARCH_NAMES))
    be = sub.add_parser('bench', help='costs with the protection off and '
                        'on, side by side (make bench)')
    be.add_argument('arch', nargs='*', help=' '.join(arches.ARCH_NAMES))
    be.add_argument('--name', default=None,
                    help='results go to docs/bench/NAME.{md,json} (default: '
                    'current, or quick with --ops)')
    be.add_argument('--series', default=None,
                    help='build patches/ as at this git revision')
    be.add_argument('--runs', type=int, default=7,
                    help='runs per benchmark (the median is reported)')
    be.add_argument('--vmalloc-loops', type=int, default=20000,
                    help="test_vmalloc's test_loop_count")
    be.add_argument('--rounds', type=int, default=2,
                    help='boots per mode; off and on alternate')
    be.add_argument('--ops', default=None,
                    help='only these benchmarks, comma-separated')
    be.add_argument('--report', action='store_true',
                    help='only write NAME.md and the plot again from '
                    'NAME.json')
    bs = sub.add_parser('bisect', help='build every prefix of the series, '
                        'both arches')
    bs.add_argument('--from', dest='first', type=int, default=1,
                    help='start at this patch (1-based)')
    sub.add_parser('qemu', help='build (or find) the QEMU with FEAT_S1POE '
                   'from qemu/')
    sub.add_parser('qemu-export', help='write build/qemu/src commits to '
                   'qemu/')
    args = p.parse_args(argv)
    for name in getattr(args, 'arch', None) or ():
        if name not in arches.ARCH_NAMES:
            p.error(f'unknown architecture {name}; known: '
                    f'{" ".join(arches.ARCH_NAMES)}')
    try:
        if args.cmd == 'deps':
            deps.host_tools(arches.all_arches())
        elif args.cmd == 'tree':
            deps.host_tools([])
            tree.ensure()
        elif args.cmd == 'export':
            tree.export()
        elif args.cmd == 'build':
            selected = [arches.get(n) for n in args.arch or arches.ARCH_NAMES]
            deps.host_tools(selected)
            tree.ensure()
            for a in selected:
                print(build.build(a))
        elif args.cmd == 'test':
            return testrun.main(args.arch,
                                optional_qemu=args.poe_qemu == 'optional')
        elif args.cmd == 'check':
            return testrun.check(args.boot, args.arch,
                                 optional_qemu=args.poe_qemu == 'optional')
        elif args.cmd == 'bench' and args.report:
            return bench.report(args.name or 'current')
        elif args.cmd == 'bench':
            return bench.main(args.arch, name=args.name, rev=args.series,
                              runs=args.runs, loops=args.vmalloc_loops,
                              ops=args.ops.split(',') if args.ops else None,
                              rounds=args.rounds)
        elif args.cmd == 'demo':
            return demo.main(args.arch)
        elif args.cmd == 'bisect':
            return bisect.main(args.first)
        elif args.cmd == 'qemu':
            print(qemubuild.build())
        elif args.cmd == 'qemu-export':
            qemubuild.export()
    except Fatal as e:
        print(f'kpk: error: {e}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


sys.exit(main(sys.argv[1:]))
