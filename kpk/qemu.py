# SPDX-License-Identifier: GPL-2.0
"""Boot a kernel in QEMU (TCG) with a timeout, keeping the console log.

A boot succeeds only if the guest's init reports that it is done and the
console shows no panic, oops, BUG or warning.
"""

from dataclasses import dataclass
import os
import re
import subprocess
import threading
import time

from .common import ROOT, run

DONE = 'kpk-guest: done'
PANIC = re.compile(r'Kernel panic - not syncing')
# What on the console means the kernel is broken, whatever the tests say.
CRASH = re.compile(r'Kernel panic - not syncing|\bOops\b|\bBUG:|'
                   r'Unable to handle kernel|general protection fault|'
                   r'------------\[ cut here \]------------|'
                   r'WARNING: CPU: \d+|Call Trace:')
QUIT_GRACE = 20
# A KUnit case that makes the kernel warn on purpose (a refused saved
# kpkeys level) first prints 'kpk-expect-warn: TEXT': the first warning
# after that line is then not a crash if its report contains TEXT. One
# announcement excuses one warning; any other still fails the boot.
EXPECT_WARN = re.compile(r'kpk-expect-warn: (.+)')
WARN_START = '------------[ cut here ]------------'
# How many lines after a warning's first one may name it (_line_of()).
WARN_CONTEXT = 4
WARN_END = re.compile(r'---\[ end trace [0-9a-f]+ \]---')


@dataclass
class BootResult:
    ok: bool
    reason: str
    log: str
    seconds: float


def cmdline(arch, boot, extra=''):
    """The kernel command line of a boot."""
    # The initramfs is unpacked before the built-in KUnit suites run, not
    # alongside them: its "Freeing initrd memory" line once landed inside
    # a suite's KTAP header, and kunit.py parse failed the boot.
    args = [arch.cmdline, 'panic=-1', 'initramfs_async=0']
    if not boot.crash_tests:
        args.append('oops=panic')
    if not boot.kunit:
        args.append('kunit.enable=0')
    if boot.tests:
        args.append('kpk.tests=' + ','.join(boot.tests))
    args += [a for a in (boot.extra_cmdline, extra) if a]
    return ' '.join(args)


def merged_args(base, override):
    """@base's QEMU options, those that @override repeats replaced by it."""
    def options(args):
        out, i = [], 0
        while i < len(args):
            takes = i + 1 < len(args) and not args[i + 1].startswith('-')
            out.append(tuple(args[i:i + 2]) if takes else (args[i],))
            i += 2 if takes else 1
        return out
    over = options(list(override))
    names = {o[0] for o in over}
    return [a for o in options(list(base)) if o[0] not in names
            for a in o] + [a for o in over for a in o]


def command(arch, boot, kernel, initrd, cmdline_extra=''):
    return (emulator(arch, boot) +
            merged_args(arch.qemu_args, boot.qemu_args) +
            ['-nodefaults', '-display', 'none', '-serial', 'stdio',
             '-no-reboot', '-kernel', kernel, '-initrd', initrd,
             '-append', cmdline(arch, boot, cmdline_extra)])


def version(arch):
    res = run([arch.qemu_binary, '--version'], quiet=True, check=False)
    return res.stdout.splitlines()[0] if res.returncode == 0 else None


def emulator(arch, boot):
    """QEMU with the boot's board and CPU, under TCG: what every run shares."""
    machine = ','.join((arch.machine,) + boot.machine_opts)
    return [arch.qemu_binary, '-machine', machine, '-cpu', boot.cpu,
            '-accel', 'tcg']


def probe(arch, boot):
    """Check that QEMU can create the boot's CPU; return None or why not.

    The CPU is created (and 'enforce' checked) when the machine is built,
    before the paused guest would run; 'quit' on the monitor then ends it.
    """
    cmd = emulator(arch, boot) + ['-nodefaults', '-display', 'none', '-S',
                                  '-monitor', 'stdio']
    try:
        res = subprocess.run(cmd, input='quit\n', text=True, timeout=60,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError:
        return f'{arch.qemu_binary} is not installed'
    except subprocess.TimeoutExpired:
        return f'{arch.qemu_binary} did not answer the probe within 60s'
    if res.returncode != 0:
        err = ' '.join(res.stderr.split())
        want = ', '.join(boot.requires) or boot.cpu
        return (f'{version(arch)} cannot provide -cpu {boot.cpu} '
                f'(needs {want}): {err}')
    return None


def boot(arch, boot_cfg, kernel, initrd, log, cmdline_extra='', echo=False,
         timeout=None):
    """Boot once; return a BootResult.  With echo, copy the console to stdout."""
    timeout = timeout or boot_cfg.timeout
    cmd = command(arch, boot_cfg, kernel, initrd, cmdline_extra)
    start = time.time()
    with open(log, 'w') as out:
        out.write('# ' + ' '.join(cmd) + '\n')
        out.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

        def pump():
            for raw in proc.stdout:
                line = raw.decode('utf-8', 'replace').replace('\r', '')
                out.write(line)
                out.flush()
                if echo:
                    print(line, end='', flush=True)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            proc.wait()
        reader.join(QUIT_GRACE)
        err = proc.stderr.read().decode('utf-8', 'replace').strip()
        if err:
            out.write('# qemu stderr: ' + err + '\n')
    seconds = time.time() - start
    with open(log, errors='replace') as f:
        text = f.read()
    # Crash tests oops on purpose; only a panic means the kernel died.
    checked = without_expected_warnings(text)
    crash = (PANIC if boot_cfg.crash_tests else CRASH).search(checked)
    if timed_out:
        reason = f'timed out after {timeout}s'
        if crash:
            reason += f' after "{_line_of(checked, crash)}"'
        return BootResult(False, reason, log, seconds)
    if crash:
        return BootResult(False,
                          f'console shows "{_line_of(checked, crash)}"',
                          log, seconds)
    if DONE not in text:
        if proc.returncode != 0 and err:
            return BootResult(False, f'QEMU exited {proc.returncode}: {err}',
                              log, seconds)
        return BootResult(False, 'the guest stopped before its init finished',
                          log, seconds)
    return BootResult(True, '', log, seconds)


def without_expected_warnings(text):
    """@text without the warnings that a kpk-expect-warn line announced."""
    kept, pos = [], 0
    for mark in EXPECT_WARN.finditer(text):
        if mark.start() < pos:
            continue
        start = text.find(WARN_START, mark.end())
        end = WARN_END.search(text, start) if start >= 0 else None
        if not end or mark.group(1).strip() not in text[start:end.start()]:
            continue
        kept.append(text[pos:start])
        pos = end.end()
    kept.append(text[pos:])
    return ''.join(kept)


def _line_of(text, match):
    start = text.rfind('\n', 0, match.start()) + 1
    end = text.find('\n', match.end())
    line = text[start:end if end >= 0 else None].strip()
    if line != WARN_START.strip() or end < 0:
        return line
    # A warning's first line says nothing: name it by what follows, its
    # message and its "WARNING: CPU: ... at FILE:LINE FUNCTION" line, so
    # that a failure printed where the log is out of reach (CI) says which.
    tail = text[end + 1:].split('\n')
    rest = [t.strip() for t in tail[:WARN_CONTEXT] if t.strip()]
    return ' / '.join([line] + rest[:2])


def relpath(path):
    return os.path.relpath(path, ROOT)
