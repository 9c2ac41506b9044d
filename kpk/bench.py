# SPDX-License-Identifier: GPL-2.0
"""make bench: what the protection costs, off and on side by side.

For each architecture: build one kernel (configs/ base + arch fragment +
bench.config: without DEBUG_VM and DEBUG_VM_PGTABLE, with the kpkeys
counters and test_vmalloc as a module), boot it in the same QEMU with the
same 1 GiB guest, with the CPU feature hidden ("hidden", where the arch has
such a boot: the kernel as if the CPU had no kernel pkeys), with the
feature turned off on the command line (kpkeys_hardened_pgtables=off:
"off") and on ("on"), alternately, ROUNDS times each, and run
guest/bench/bench.sh in each.  Per benchmark it reports the median time per
operation in each mode, the ratios on/off and off/hidden (what the option
costs when turned off), and from the 'on' boots the kpkeys
events per operation (pkey-register writes, set_memory_pkey() calls, the
TLB-flush IPIs and direct-map splits those caused), which unlike time do
not depend on the machine or the emulator; and how the direct map is
mapped after boot and after the workload.

Results go to docs/bench/NAME.json and NAME.md; docs/bench.png plots the
time ratios of docs/bench/before.json and current.json.  With SERIES=REV
the kernel is built from patches/ as it was at git revision REV of this
repository (e.g. the series before a change, for a before/after
comparison); configs/ and guest/ are the working tree's.
"""

import dataclasses
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess

from . import arch as arches, build, deps, initramfs, qemu, qemubuild, tree
from .common import BUILD, LOGS, ROOT, Fatal, ensure_dir, info, run, \
    tail_lines

DOCS = os.path.join(ROOT, 'docs', 'bench')
PLOT = os.path.join(ROOT, 'docs', 'bench.png')
INDEX = os.path.join(ROOT, 'docs', 'bench.md')
# The results the plot compares: the series before the work on its costs,
# and as it is.
PLOTTED = ('before', 'current')
LINE = re.compile(r'^kpk-bench: (.*)$', re.M)

# Benchmarks in the order of the tables: (op, what one operation is).
OPS = (
    ('fork_exit_4k', 'fork + exit, 64 MiB touched (4 KiB pages)'),
    ('fork_exit_thp', 'fork + exit, 64 MiB touched (THP)'),
    ('munmap', 'munmap of 64 MiB touched (4 KiB pages)'),
    ('mprotect', 'mprotect of 64 MiB touched (4 KiB pages)'),
    ('fault', 'page fault, page tables in place (4 KiB pages)'),
    ('fault_first', 'page fault, first touch: page tables too'),
    ('fault_cow', 'copy-on-write fault (4 KiB pages)'),
    ('fork_exec', 'fork + exec + exit of a small static program'),
    ('vmalloc_fix_size_alloc', 'test_vmalloc fix_size_alloc (1 page)'),
    ('vmalloc_random_size_alloc', 'test_vmalloc random_size_alloc'),
    ('vmalloc_vm_map_ram', 'test_vmalloc vm_map_ram (1 page)'),
    ('idle', 'interrupt taken while idle (1 s of ticks)'),
)
# Counters of /sys/kernel/debug/kpkeys/stats shown per operation.
COUNTERS = (
    ('pkey_reg_writes', 'reg writes'),
    ('reg_writes_level', 'of which levels'),
    ('reg_writes_context_switch', 'switches'),
    ('reg_writes_exception_entry', 'exc. entries'),
    ('reg_writes_exception_exit', 'exc. returns'),
    ('level_found_raised', 'level found raised'),
    ('set_memory_pkey', 'set_memory_pkey'),
    ('set_memory_pkey_pages', 'pages keyed'),
    ('tlb_flushes', 'TLB flushes'),
    ('tlb_flush_ipis', 'TLB IPIs'),
    ('direct_map_splits', 'splits'),
)
# Operations whose time is not the point (ops counts interrupts).
UNTIMED = ('idle',)


def series_tree(rev):
    """The kernel tree to build: build/linux, or the series at git @rev."""
    if rev is None:
        tree.ensure()
        return tree.TREE, None
    full = run(['git', '-C', ROOT, 'rev-parse', '--verify', f'{rev}^{{commit}}'],
               quiet=True, check=False)
    if full.returncode:
        raise Fatal(f'SERIES={rev}: not a commit of this repository')
    full = full.stdout.strip()
    tree.ensure()
    path = os.path.join(BUILD, 'bench', full[:12], 'linux')
    stamp = os.path.join(os.path.dirname(path), 'applied')
    if os.path.exists(stamp) and os.path.exists(path):
        return path, full
    tree.worktree(path, tree.BASE_TAG)
    listing = run(['git', '-C', ROOT, 'show', f'{full}:patches/series'],
                  quiet=True).stdout
    names = [ln.strip() for ln in listing.splitlines()
             if ln.strip() and not ln.startswith('#')]
    env = dict(os.environ, **tree.IDENTITY)
    for name in names:
        text = run(['git', '-C', ROOT, 'show', f'{full}:patches/{name}'],
                   quiet=True).stdout
        res = subprocess.run(['git', '-C', path, 'am', '-q',
                              '--committer-date-is-author-date'],
                             input=text, text=True, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if res.returncode:
            run(['git', '-C', path, 'am', '--abort'], check=False, quiet=True)
            raise Fatal(f'SERIES={rev}: {name} does not apply:\n{res.stdout}')
    with open(stamp, 'w') as f:
        f.write(full + '\n')
    info(f'SERIES={rev}: {len(names)} patches applied in {path}')
    return path, full


def parse(text):
    """{'runs': {op: [run dicts]}, 'map': {point: {key: value}}, 'errors'}."""
    runs, maps, errors = {}, {}, []
    for m in LINE.finditer(text):
        body = m.group(1)
        if body.startswith('error:'):
            errors.append(body)
            continue
        fields = dict(kv.split('=', 1) for kv in body.split() if '=' in kv)
        try:
            if body.startswith('map '):
                point = fields.pop('point')
                maps[point] = {k: int(v) for k, v in fields.items()}
            elif 'op' in fields:
                op = fields.pop('op')
                fields.pop('run', None)
                run_ = {k: int(v) for k, v in fields.items()}
                if 'ops' not in run_ or 'ns' not in run_ or run_['ops'] <= 0:
                    raise ValueError('no ops= or ns=')
                if any(v < 0 for v in run_.values()):
                    raise ValueError('a counter went backwards')
                runs.setdefault(op, []).append(run_)
        except (KeyError, ValueError) as e:
            errors.append(f'unreadable result line ({e}): {body}')
    return {'runs': runs, 'map': maps, 'errors': errors}


def per_op_values(runs, key):
    """@key per operation, for each run that has it."""
    return [r[key] / r['ops'] for r in runs if key in r and r['ops']]


def per_op(runs, key):
    """Median over runs of @key per operation (None if absent)."""
    vals = per_op_values(runs, key)
    return statistics.median(vals) if vals else None


def extremes(runs, key):
    """(min, max) over runs of @key per operation (None if absent)."""
    vals = per_op_values(runs, key)
    return (min(vals), max(vals)) if vals else (None, None)


def spread(runs, key):
    """(max - min) / median over runs of @key per operation, in %."""
    vals = per_op_values(runs, key)
    if len(vals) < 2 or not statistics.median(vals):
        return None
    return 100 * (max(vals) - min(vals)) / statistics.median(vals)


def summarize(off, on, hidden=None):
    rows = []
    for op, what in OPS:
        a, b = off['runs'].get(op), on['runs'].get(op)
        h = hidden['runs'].get(op) if hidden else None
        if not a or not b:
            continue
        row = {'op': op, 'what': what, 'runs': len(b)}
        # Turned off, the option must write no pkey register at all.
        row['off_pkey_reg_writes'] = per_op(a, 'pkey_reg_writes')
        if h and op not in UNTIMED:
            row['hidden_us'] = per_op(h, 'ns') / 1000
            row['hidden_spread'] = spread(h, 'ns')
            row['off_hidden_ratio'] = per_op(a, 'ns') / per_op(h, 'ns') \
                if per_op(h, 'ns') else None
            worst = max(row['hidden_spread'] or 0, spread(a, 'ns') or 0)
            row['off_hidden_noise'] = row['off_hidden_ratio'] is not None \
                and abs(row['off_hidden_ratio'] - 1) * 100 <= worst
        if op not in UNTIMED:
            row['off_us'] = per_op(a, 'ns') / 1000
            row['on_us'] = per_op(b, 'ns') / 1000
            row['ratio'] = row['on_us'] / row['off_us'] \
                if row['off_us'] else None
            row['off_spread'] = spread(a, 'ns')
            row['on_spread'] = spread(b, 'ns')
            for mode, runs in (('off', a), ('on', b)):
                lo, hi = extremes(runs, 'ns')
                row[f'{mode}_min_us'] = lo / 1000 if lo is not None else None
                row[f'{mode}_max_us'] = hi / 1000 if hi is not None else None
            # Within noise: the ratio's distance from 1 is smaller than
            # the runs' own spread.
            worst = max(row['off_spread'] or 0, row['on_spread'] or 0)
            row['noise'] = row['ratio'] is not None and \
                abs(row['ratio'] - 1) * 100 <= worst
        for key, _ in COUNTERS:
            row[key] = per_op(b, key)
        # An operation's own writes: its level changes, where the kernel
        # counts them by cause; else all but the exceptions'.
        own = [dict(ops=r['ops'], n=r['reg_writes_level']
                    if 'reg_writes_level' in r else r['pkey_reg_writes'] -
                    r.get('exception_reg_writes', 0))
               for r in b if 'pkey_reg_writes' in r]
        row['own_reg_writes'] = per_op(own, 'n')
        rows.append(row)
    return rows


# The issue's targets: (what, op, key, limit); key 'ratio' is time on/off,
# others a counter per operation from the 'on' boot.
TARGETS = (
    ('register writes per fork + exit (4 KiB)', 'fork_exit_4k',
     'pkey_reg_writes', 200),
    ('register writes per munmap of 64 MiB', 'munmap', 'pkey_reg_writes', 100),
    ('register writes per mprotect of 64 MiB', 'mprotect', 'pkey_reg_writes',
     100),
    # The fault's own: an interrupt that lands in the fault's guard costs
    # two more, counted apart.
    ('register writes per page fault, exceptions apart', 'fault',
     'own_reg_writes', 2),
    # Two guards: the old entry cleared and flushed, the copy's set.
    ('register writes per copy-on-write fault, exceptions apart',
     'fault_cow', 'own_reg_writes', 4),
    ('register writes per interrupt while idle', 'idle', 'pkey_reg_writes', 0),
    ('set_memory_pkey() calls per fork + exit', 'fork_exit_4k',
     'set_memory_pkey', 0),
    ('TLB-flush IPIs per fork + exit', 'fork_exit_4k', 'tlb_flush_ipis', 0),
    # Off (kpkeys_hardened_pgtables=off, or the CPU feature hidden in
    # results before schema 4): no register written.
    ('register writes per fork + exit, protection off', 'fork_exit_4k',
     'off_pkey_reg_writes', 0),
    ('register writes per page fault, protection off', 'fault',
     'off_pkey_reg_writes', 0),
    ('time on/off, fork + exit (4 KiB)', 'fork_exit_4k', 'ratio', 1.10),
    ('time on/off, munmap of 64 MiB', 'munmap', 'ratio', 1.10),
    ('time on/off, mprotect of 64 MiB', 'mprotect', 'ratio', 1.10),
    ('time on/off, test_vmalloc fix_size_alloc', 'vmalloc_fix_size_alloc',
     'ratio', 1.10),
    ('time on/off, test_vmalloc random_size_alloc',
     'vmalloc_random_size_alloc', 'ratio', 1.10),
    ('time on/off, test_vmalloc vm_map_ram', 'vmalloc_vm_map_ram', 'ratio',
     1.10),
)
# At most this much more of the direct map in 4 KiB pages with the
# protection on than off, where meminfo says (x86).
DIRECT_MAP_4K_EXTRA_KB = 8 * 1024


def targets(a):
    """[(what, value, limit, met)] for one arch's results."""
    rows = {r['op']: r for r in a['rows']}
    out = []
    for what, op, key, limit in TARGETS:
        value = rows.get(op, {}).get(key)
        # None: not measured (no counters in that kernel, or not run).
        out.append((what, value, limit, None if value is None else
                    value <= limit))
    for point in ('boot', 'after'):
        off = a['map'].get(f'off/{point}', {}).get('DirectMap4k_kb')
        on = a['map'].get(f'on/{point}', {}).get('DirectMap4k_kb')
        if off is None or on is None:
            continue
        out.append((f'DirectMap4k on - off, {point} (kB)', on - off,
                    DIRECT_MAP_4K_EXTRA_KB, on - off <= DIRECT_MAP_4K_EXTRA_KB))
    return out


# The columns of the direct-map table: the kernel without the series at
# boot, where the arch has a bench_base boot, then ours off and on.
MAP_POINTS = {'base/boot': 'base kernel, boot',
              'hidden/boot': 'hidden, boot', 'hidden/after': 'hidden, after',
              'off/boot': 'off, boot',
              'off/after': 'off, after', 'on/boot': 'on, boot',
              'on/after': 'on, after'}


def fmt(v, digits=2):
    if v is None:
        return 'n/a'
    if isinstance(v, float) and v >= 100:
        return f'{v:,.0f}'
    return f'{v:,.{digits}f}' if isinstance(v, float) else f'{v:,}'


def markdown(result):
    out = [f'# make bench: {result["name"]}', '',
           'Guests: QEMU TCG. Each figure is the median of the runs (after a '
           'warm-up run) of every boot of a mode; boots alternate, off then '
           'on. "off" is the same kernel booted ' + result.get(
               'off_how', 'with the CPU feature hidden') + ', "on" with the '
           'feature on (each boot checked to say so); ' + (
               'the "hidden" columns are the same kernel booted with the CPU '
               'feature hidden, the kernel as if the CPU had no kernel pkeys, '
               'and "off/hidden" is what the option costs when turned off; '
               if any('hidden_us' in r for a in result['arches']
                      for r in a['rows']) else '') + 'the event counts are '
           'from the "on" boots, per operation, and the direct map is read '
           'in the first boot of each mode, after boot and after the '
           'workload; where a "base kernel" column is shown, it is the kernel '
           'without the series (make test\'s base kernel, the same configs), '
           'booted once on the "on" CPU to read its map at boot. "min-max" are the fastest and slowest runs, per '
           'operation; "spread" is (slowest - fastest) / median of the runs, '
           'off and on; a ratio whose distance from 1 is within it is marked '
           '"~" (noise). The test_vmalloc rows include the loading of the '
           'module (twice per run, against tens of thousands of '
           'operations).', '',
           'QEMU TCG flushes its software TLB on every PKRS write (x86, the '
           'whole TLB; Debian\'s QEMU 7.2); on a POR_EL1 write that changes '
           'the value, our QEMU (arm64, qemu/ patch 7) flushes the pages '
           'translated with overlays other than Perm0 since the last flush, '
           'or the EL1&0 regimes whole past 16 pages or when Perm0 changes. '
           'Emulated time exaggerates what a register switch costs, x86\'s '
           'more than arm64\'s; the event counts do not depend on the '
           'machine or the emulator. The page-fault rows run pinned to one '
           'CPU and count its events only.', '',
           'TCG models no TLB reach either: a direct map broken into 4 KiB '
           'pages costs a real CPU TLB misses on every kernel access, and '
           'none here, so the direct map\'s page sizes (x86 DirectMap4k, 2M '
           'and 1G from /proc/meminfo) are the measure of that cost, not '
           'the times.', '']
    for a in result['arches']:
        series = a.get('series', result.get('series'))
        rerun = (f'make bench ARCH={a["arch"]} NAME={result["name"]}' +
                 (f' SERIES={series.split()[-1]}' if ' at ' in str(series)
                  else '') +
                 f' RUNS={a.get("runs")} ROUNDS={a.get("rounds")}' +
                 (f' OPS={",".join(a["ops"])}'
                  if isinstance(a.get('ops'), list) else ''))
        hidden = any('hidden_us' in r for r in a['rows'])
        out += [f'## {a["arch"]} ({a["qemu"]}, -cpu ' +
                (f'{a["cpu_hidden"]} / ' if a.get('cpu_hidden') else '') +
                f'{a["cpu_off"]} / {a["cpu_on"]})', '',
                f'Machine: {a.get("machine", result.get("machine"))}; QEMU '
                f'arguments {a.get("qemu_args", "?")}. Series: {series}; '
                f'kernel {a.get("kernel", result.get("kernel"))} (tree '
                f'{a.get("tree_head", "?")}, .config sha256 '
                f'{a.get("config_sha256", "?")}); workbench '
                f'{a.get("workbench", "?")}; {a.get("runs", "?")} runs x '
                f'{a.get("rounds", "?")} boots per mode, test_vmalloc '
                f'{a.get("vmalloc_loops", "?")} loops; measured '
                f'{a.get("date", result.get("date"))}' +
                (f'; guest TSC told {a["tsc_khz"]} kHz'
                 if a.get('tsc_khz') else '') + f'. Rerun: `{rerun}`.' +
                (f' {a["note"]}' if a.get('note') else ''), '',
                '| benchmark | ' + ('hidden us/op | ' if hidden else '') +
                'off us/op | on us/op | on/off | ' +
                ('off/hidden | ' if hidden else '') + 'off min-max | '
                'on min-max | spread % | ' +
                ' | '.join(f'{label}/op' for _, label in COUNTERS) + ' |',
                '|---|---:|---:|---:|---:|---:|---:|' +
                '---:|' * (len(COUNTERS) + 2 * hidden)]
        for r in a['rows']:
            sp = ' / '.join('n/a' if r.get(k) is None else f'{r[k]:.0f}'
                            for k in ('off_spread', 'on_spread'))
            cells = [r['what']] + ([fmt(r.get('hidden_us'))] if hidden
                                   else []) + \
                [fmt(r.get('off_us')), fmt(r.get('on_us')),
                 ('~' if r.get('noise') else '') + fmt(r.get('ratio'))]
            if hidden:
                cells.append(('~' if r.get('off_hidden_noise') else '') +
                             fmt(r.get('off_hidden_ratio')))
            cells += ['-'.join(fmt(r.get(f'{m}_{k}_us')) for k in ('min', 'max'))
                      if r.get(f'{m}_min_us') is not None else 'n/a'
                      for m in ('off', 'on')]
            cells.append(sp)
            cells += [fmt(r.get(k), 3) for k, _ in COUNTERS]
            out.append('| ' + ' | '.join(cells) + ' |')
        points = [p for p in MAP_POINTS if p in a['map'] or
                  not p.startswith(('base/', 'hidden/'))]
        out += ['', '| direct map (kB) | ' + ' | '.join(
            MAP_POINTS[p] for p in points) + ' |',
            '|---|' + '---:|' * len(points)]
        keys = sorted(set().union(*(set(m) for m in a['map'].values()))) \
            if a['map'] else []
        for k in keys:
            cells = [a['map'].get(p, {}).get(k) for p in points]
            out.append(f'| {k} | ' + ' | '.join(
                'n/a' if c is None else f'{c:,}' for c in cells) + ' |')
        out += ['', '| target | measured | limit | met |',
                '|---|---:|---:|---|']
        for what, value, limit, met in targets(a):
            out.append(f'| {what} | {fmt(value, 3)} | {fmt(limit)} | '
                       f'{"not measured" if met is None else "yes" if met else "**no**"} |')
        out.append('')
    return '\n'.join(out)


def plot():
    """docs/bench.png: on/off time ratios, before this work and now."""
    deps.apt_install(['gnuplot-nox'])
    series = []
    for name in PLOTTED:
        path = os.path.join(DOCS, f'{name}.json')
        if not os.path.exists(path):
            continue
        with open(path) as f:
            res = json.load(f)
        # The time ratios mean the same since schema 2 (3 renamed counters).
        if res.get('schema') not in PLOT_SCHEMAS:
            continue
        for a in res['arches']:
            ratios = {r['op']: r['ratio'] for r in a['rows'] if 'ratio' in r}
            series.append((f'{res["name"]} {a["arch"]}', ratios))
    ops = [op for op, _ in OPS if op not in UNTIMED and
           any(op in s[1] for s in series)]
    data = os.path.join(BUILD, 'bench.dat')
    with open(data, 'w') as f:
        f.write('op ' + ' '.join(f'"{n}"' for n, _ in series) + '\n')
        for op in ops:
            f.write(op + ' ' + ' '.join(
                str(s[1].get(op, '-')) for s in series) + '\n')
    script = f'''
set terminal pngcairo size 1200,600 noenhanced
set output "{PLOT}"
set title "Time with the protection on / off, QEMU TCG (median; log scale)"
set style data histogram
set style histogram cluster gap 1
set style fill solid border -1
set logscale y
set yrange [0.5:*]
set ytics (0.5, 1, 2, 5, 10, 20, 50, 100, 200)
set grid ytics
set xtics rotate by -30
set key top right
set datafile missing "-"
plot for [i=2:{len(series) + 1}] "{data}" using i:xtic(1) title columnheader(i), 1.1 with lines dt 2 lc rgb "black" title "1.10"
'''
    run(['gnuplot'], input=script, text=True, quiet=True)
    index()
    return PLOT


def index():
    """docs/bench.md: the plot, then the tables of before and current."""
    out = ['# What the protection costs (make bench)', '',
           'Time with the protection on / off under QEMU TCG, the series '
           'before the work on its costs and as it stands '
           '(`python3 -m kpk bench --report --name current` writes this '
           'page again):', '', '![on/off time ratios](bench.png)', '']
    for name in reversed(PLOTTED):
        path = os.path.join(DOCS, f'{name}.md')
        if not os.path.exists(path):
            continue
        with open(path) as f:
            body = f.read().rstrip('\n').split('\n')
        # One level down: the page has a title of its own.
        out += ['#' + line if line.startswith('#') else line
                for line in body] + ['']
    with open(INDEX, 'w') as f:
        f.write('\n'.join(out))


# What each mode's kernel says when it decides (patch 7 of the series).
STATE_LINE = {'off': 'kpkeys_hardened_pgtables: off',
              'on': 'kpkeys_hardened_pgtables: on',
              'hidden': 'kpkeys_hardened_pgtables: off: this CPU has no '
              'kernel pkeys'}


def check_boot(text, got, mode, runs, ops, stats):
    """Why a boot's results cannot be used, or None."""
    if mode == 'base':
        # The kernel without the series: only its map at boot is used.
        if not any(k.startswith('linear_') or k.startswith('DirectMap')
                   for k in got['map'].get('boot', {})):
            return 'no direct-map figures at boot (no page-table dump?)'
        return None
    if STATE_LINE[mode] not in text:
        return (f'the kernel did not say "{STATE_LINE[mode]}": the '
                f'protection is not {mode}')
    switches = re.findall(r'clocksource: Switched to clocksource (\S+)', text)
    if switches and switches[-1] == 'jiffies':
        return 'the guest times with jiffies'
    for op in ops or [op for op, _ in OPS]:
        if len(got['runs'].get(op, ())) != runs:
            return (f'{op}: {len(got["runs"].get(op, ()))} results, '
                    f'{runs} expected')
    if stats:
        writes = sum(r.get('pkey_reg_writes', -1) for rs in
                     got['runs'].values() for r in rs)
        if any('pkey_reg_writes' not in r for rs in got['runs'].values()
               for r in rs):
            return 'a result line lacks the kpkeys counters'
        if (mode == 'on') != (writes > 0):
            return f'{writes} pkey-register writes with the protection {mode}'
    return None


def bench_boot(arch, boot, kernel, initrd, name, mode, rnd, runs, loops,
               ops, khz, stats):
    """Boot once and run the benchmarks; return what parse() makes of it."""
    missing = qemu.probe(arch, boot)
    if missing:
        raise Fatal(missing)
    log = os.path.join(ensure_dir(LOGS), f'bench-{name}-{arch.name}-'
                       f'{mode}-{rnd}.log')
    what = ('the kernel without the series, its map only' if mode == 'base'
            else f'protection {mode}, round {rnd}')
    info(f'{arch.name}: bench, {what} (-cpu '
         f'{boot.cpu}; log {qemu.relpath(log)})')
    extra = boot.extra_cmdline.format(host_counter_khz=khz)
    res = qemu.boot(arch, dataclasses.replace(boot, extra_cmdline=extra),
                    kernel, initrd, log,
                    cmdline_extra=f'kpk.bench_runs={runs} '
                    f'kpk.vmalloc_loops={loops}' +
                    (f' kpk.bench_ops={",".join(ops)}' if ops else ''))
    with open(log, errors='replace') as f:
        text = f.read()
    got = parse(text)
    why = None
    if not res.ok or got['errors'] or 'kpk-bench: done' not in text:
        why = res.reason or '; '.join(got['errors']) or \
            'the benchmarks did not finish'
    else:
        why = check_boot(text, got, mode, runs, ops, stats)
    if why:
        raise Fatal(f'{arch.name} bench ({mode}): {why}; last lines of '
                    f'{log}:\n  ' + '\n  '.join(tail_lines(log, 15)))
    return got


def file_sha(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def bench_arch(arch, tree_path, name, strict, runs, loops, ops=None,
               rounds=2):
    boot_off, boot_on = arch.bench_off, arch.bench_on
    modes = ((('hidden', arch.bench_hidden),) if arch.bench_hidden else ()) + \
        (('off', boot_off), ('on', boot_on))
    if arch.patched_qemu:
        try:
            arch = arches.with_qemu(arch, qemubuild.build())
        except qemubuild.Unavailable as e:
            raise Fatal(f'{arch.name}: make bench needs the QEMU from '
                        f'qemu/: {e}') from e
    out = os.path.join(BUILD, 'out', f'{arch.name}-bench-{name}')
    kernel = build.build(arch, tree=tree_path, out=out, strict_config=strict,
                         log_name=f'build-{arch.name}-bench-{name}.log',
                         extra_fragments=('bench.config',))
    with open(os.path.join(out, '.config')) as f:
        stats = 'CONFIG_KPKEYS_HARDENED_PGTABLES_STATS=y' in f.read().split('\n')
    initrd = initramfs.build_for(arch, kout=out, name=f'{arch.name}-bench',
                                 kselftests=False)
    # The guest's TSC rate (x86), measured once for every boot of the run:
    # the same clock for off and on.
    khz = host_counter_khz() if '{host_counter_khz}' in \
        boot_on.extra_cmdline + boot_off.extra_cmdline else None
    # Boots alternate, off then on, @rounds times, and each mode's runs are
    # pooled: what differs from one boot to the next then weighs on both.
    parsed = {mode: None for mode, _ in modes}
    for rnd in range(1, rounds + 1):
        for mode, boot in modes:
            got = bench_boot(arch, boot, kernel, initrd, name, mode, rnd,
                             runs, loops, ops, khz, stats)
            if parsed[mode] is None:
                parsed[mode] = got
                continue
            for op, op_runs in got['runs'].items():
                parsed[mode]['runs'].setdefault(op, []).extend(op_runs)
    maps = {f'{mode}/{point}': v for mode in parsed
            for point, v in parsed[mode]['map'].items()}
    if arch.bench_base:
        # The same initramfs: the base boot runs no benchmark, so it loads
        # none of the bench kernel's modules.
        base = bench_boot(arch, arch.bench_base, build.base_kernel(arch),
                          initrd, name, 'base', 1, runs, loops, ['none'],
                          khz, False)
        maps['base/boot'] = base['map']['boot']
    args = qemu.merged_args(arch.qemu_args, boot_on.qemu_args)
    binary = shutil.which(arch.qemu_binary) or arch.qemu_binary
    return {'arch': arch.name, 'qemu': qemu.version(arch),
            'qemu_binary_sha256': file_sha(binary)
            if os.path.exists(binary) else None,
            'cpu_off': boot_off.cpu, 'cpu_on': boot_on.cpu,
            'cpu_hidden': arch.bench_hidden.cpu if arch.bench_hidden
            else None,
            'qemu_args': ' '.join(args), 'machine': machine(),
            'tsc_khz': khz, 'config_sha256': file_sha(os.path.join(out,
                                                                   '.config')),
            'tree_head': run(['git', '-C', tree_path, 'describe', '--always',
                              '--dirty', '--abbrev=12'],
                             quiet=True).stdout.strip(),
            'workbench': run(['git', '-C', ROOT, 'describe', '--always',
                              '--dirty', '--abbrev=12'],
                             quiet=True).stdout.strip(),
            'guest_sha256': {n: file_sha(os.path.join(ROOT, 'guest', 'bench',
                                                      n))
                             for n in ('bench.sh', 'pgtbench.c')},
            'kernel': tree.kernel_version(), 'runs': runs, 'rounds': rounds,
            'vmalloc_loops': loops, 'ops': ops or 'all',
            'date': datetime.date.today().isoformat(),
            'rows': summarize(parsed['off'], parsed['on'],
                              parsed.get('hidden')), 'map': maps,
            'raw': parsed}


# The rate of the host's cycle counter, which QEMU TCG (without -icount)
# passes to an x86 guest as its TSC: told with tsc_early_khz=, it spares
# the guest a calibration that TCG makes unreliable, and gives it a
# clocksource finer than jiffies.
HOST_COUNTER_KHZ_C = r"""
#include <stdio.h>
#include <stdint.h>
#include <time.h>

static uint64_t counter(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
#error "no cycle counter for this host"
#endif
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(void)
{
	uint64_t t0 = now_ns(), c0 = counter(), t1, c1;

	do
		t1 = now_ns();
	while (t1 - t0 < 200000000);
	c1 = counter();
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000ULL /
						(t1 - t0)));
	return 0;
}
"""


def host_counter_khz():
    """Measure the host's cycle counter rate, in kHz (over 200 ms)."""
    exe = os.path.join(ensure_dir(BUILD), 'host-counter-khz')
    src = exe + '.c'
    with open(src, 'w') as f:
        f.write(HOST_COUNTER_KHZ_C)
    run(['gcc', '-O2', '-o', exe, src], quiet=True)
    return int(run([exe], quiet=True).stdout.strip())


def machine():
    model = ''
    try:
        with open('/proc/cpuinfo') as f:
            m = re.search(r'^model name\s*:\s*(.*)$', f.read(), re.M)
            model = m.group(1) if m else ''
    except OSError:
        pass
    return f'{platform.machine()} {model}, {os.cpu_count()} CPUs'.strip()


def report(name):
    """Write docs/bench/NAME.md and the plot again from NAME.json."""
    path = os.path.join(DOCS, f'{name}.json')
    if not os.path.exists(path):
        raise Fatal(f'no results in {os.path.relpath(path, ROOT)}')
    with open(path) as f:
        result = json.load(f)
    # The rows again from the runs, as this version of the workbench
    # summarizes them.
    for a in result['arches']:
        if a.get('raw'):
            a['rows'] = summarize(a['raw']['off'], a['raw']['on'],
                                  a['raw'].get('hidden'))
    md = markdown(result)
    with open(os.path.join(DOCS, f'{name}.md'), 'w') as f:
        f.write(md + '\n')
    print(md)
    if name in PLOTTED:
        plot()
    return 0


# Bumped when what the results mean changes: older files are not mixed in.
# 4: "off" is kpkeys_hardened_pgtables=off, no longer the CPU feature
# hidden (now "hidden").
SCHEMA = 4
# The schemas whose on/off time ratios the plot compares: both offs
# protect nothing, so on/off means the same.
PLOT_SCHEMAS = (2, 3, 4)


def main(arch_names, name=None, rev=None, runs=7, loops=20000,
         ops=None, rounds=2):
    selected = [arches.get(n) for n in (arch_names or arches.ARCH_NAMES)]
    unknown = set(ops or ()) - {op for op, _ in OPS}
    if unknown:
        raise Fatal(f'unknown benchmarks: {" ".join(sorted(unknown))}; '
                    f'known: {" ".join(op for op, _ in OPS)}')
    if runs < 1 or rounds < 1 or loops < 1:
        raise Fatal('RUNS, ROUNDS and the vmalloc loops must be at least 1')
    # Partial runs must not replace the full results that the docs show.
    name = name or ('quick' if ops else 'current')
    if ops and name in PLOTTED:
        raise Fatal(f'OPS= runs only some benchmarks: give them a NAME= '
                    f'other than {" or ".join(PLOTTED)}')
    if not re.match(r'^[\w.-]+$', name):
        raise Fatal(f'NAME={name}: use letters, digits, ".", "_" or "-"')
    deps.host_tools(selected)
    tree_path, full = series_tree(rev)
    series = (f'patches/ at {full[:12]}' if full else
              'patches/ of the working tree')
    if not full and tree.unexported():
        series = 'build/linux, with commits not exported to patches/'
    result = {'name': name, 'schema': SCHEMA, 'arches': [],
              'off_how': 'with kpkeys_hardened_pgtables=off on the "on" CPU'}
    for arch in selected:
        a = bench_arch(arch, tree_path, name, strict=rev is None, runs=runs,
                       loops=loops, ops=ops, rounds=rounds)
        a['series'] = series
        result['arches'].append(a)
    ensure_dir(DOCS)
    path = os.path.join(DOCS, f'{name}.json')
    # A run on some arches replaces theirs and keeps the others', if they
    # were measured with the same meaning.
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        done = {a['arch'] for a in result['arches']}
        if old.get('schema') == SCHEMA:
            result['arches'] = [a for a in old['arches']
                                if a['arch'] not in done] + result['arches']
        result['arches'].sort(key=lambda a: arches.ARCH_NAMES.index(a['arch']))
    with open(path, 'w') as f:
        json.dump(result, f, indent=1, sort_keys=True)
    md = markdown(result)
    with open(os.path.join(DOCS, f'{name}.md'), 'w') as f:
        f.write(md + '\n')
    print(md)
    info(f'wrote docs/bench/{name}.md and docs/bench/{name}.json' +
         (f', and {os.path.relpath(plot(), ROOT)}' if name in PLOTTED
          else ''))
    done = {arch.name for arch in selected}
    missed = [(a['arch'], t[0]) for a in result['arches'] if a['arch'] in done
              for t in targets(a) if t[3] is False]
    for arch_name, what in missed:
        info(f'target missed: {arch_name}: {what}')
    return 1 if missed else 0
