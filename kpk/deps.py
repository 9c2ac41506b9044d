# SPDX-License-Identifier: GPL-2.0
"""Install what the workbench needs from Debian's archive, and nothing else.

Host packages are installed with apt-get when missing.  The guest's busybox
is fetched with 'apt-get download' and unpacked with 'dpkg -x' into build/,
so a foreign-architecture busybox is never installed on the host.
"""

import glob
import os
import subprocess

from .common import BUILD, LOGS, Fatal, ensure_dir, info, run

HOST_PACKAGES = (
    'make', 'gcc', 'bc', 'bison', 'flex', 'libelf-dev', 'libssl-dev',
    'cpio', 'xz-utils', 'git', 'perl', 'python3', 'ccache', 'kmod',
    # the kernel's headers_install (nolibc's headers for the guest tests)
    'rsync',
    # scripts/checkpatch.pl runs scripts/spdxcheck.py, which needs these
    'python3-ply', 'python3-git',
)
KERNEL_SOURCE_PACKAGE = 'linux-source-6.12'

_updated = False
_log_started = False


def _missing(packages):
    missing = []
    for pkg in packages:
        res = subprocess.run(['dpkg-query', '-W', '-f=${Status}', pkg],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
        if res.returncode != 0 or 'install ok installed' not in res.stdout:
            missing.append(pkg)
    return missing


def _apt_update():
    global _updated
    if not _updated:
        info('apt-get update')
        run(['apt-get', 'update', '-qq'], quiet=True)
        _updated = True


def _apt_log():
    """build/logs/apt.log, emptied the first time a run writes to it."""
    global _log_started
    log = os.path.join(ensure_dir(LOGS), 'apt.log')
    if not _log_started:
        open(log, 'w').close()
        _log_started = True
    return log


def _install(packages, log):
    """apt-get install @packages, appending its output to @log.

    Returns apt-get's error lines, empty if it worked.
    """
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    res = run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends']
              + packages, check=False, quiet=True, env=env)
    with open(log, 'a') as f:
        f.write(f'$ apt-get install {" ".join(packages)}\n{res.stdout}\n')
    if res.returncode == 0:
        return []
    return [ln for ln in res.stdout.splitlines() if ln.startswith('E:')] \
        or [f'apt-get exited {res.returncode}']


def apt_install(packages):
    """Install the packages that are missing; raise Fatal naming any failure.

    When apt-get refuses the whole set, each package is tried on its own,
    so that one that cannot be had does not keep the others out.
    """
    missing = _missing(packages)
    if not missing:
        return
    if os.geteuid() != 0:
        raise Fatal(f'missing packages {" ".join(missing)}: run as root, or '
                    f'install them with apt-get install {" ".join(missing)}')
    log = _apt_log()
    try:
        _apt_update()
    except Fatal as e:
        with open(log, 'a') as f:
            f.write(f'{e}\n')
        raise Fatal(f'apt-get update failed (log {log}): {e}') from e
    info(f'apt-get install {" ".join(missing)}')
    if not _install(missing, log):
        return
    failed = {}
    for pkg in missing:
        errors = _install([pkg], log)
        if errors:
            failed[pkg] = errors
    if failed:
        raise Fatal(f'could not install {" ".join(failed)} with apt-get '
                    f'(log {log}):\n' + '\n'.join(
                        f'  {pkg}: {"; ".join(errs)}'
                        for pkg, errs in failed.items()))


def host_tools(arches):
    pkgs = list(HOST_PACKAGES)
    for arch in arches:
        pkgs += list(arch.toolchain_packages) + [arch.qemu_package]
    apt_install(pkgs)


def kernel_source():
    apt_install([KERNEL_SOURCE_PACKAGE])


def busybox(arch):
    """Return the path of a static busybox for the guest's architecture."""
    dest = os.path.join(BUILD, 'deps', f'busybox-{arch.deb_arch}')
    binary = os.path.join(dest, 'bin', 'busybox')
    if os.path.exists(binary):
        return binary
    native = run(['dpkg', '--print-architecture'], quiet=True).stdout.strip()
    if arch.deb_arch != native:
        foreign = run(['dpkg', '--print-foreign-architectures'],
                      quiet=True).stdout.split()
        if arch.deb_arch not in foreign:
            info(f'dpkg --add-architecture {arch.deb_arch}')
            run(['dpkg', '--add-architecture', arch.deb_arch])
            global _updated
            _updated = False
    _apt_update()
    dl = ensure_dir(os.path.join(BUILD, 'deps', 'debs'))
    pkg = f'busybox-static:{arch.deb_arch}'
    res = run(['apt-get', 'download', pkg], check=False, quiet=True, cwd=dl)
    debs = glob.glob(os.path.join(dl, f'busybox-static_*_{arch.deb_arch}.deb'))
    if res.returncode != 0 or not debs:
        raise Fatal(f'could not download {pkg} with apt-get download:\n'
                    f'{res.stdout.strip()}')
    tmp = dest + '.tmp'
    run(['rm', '-rf', tmp])
    run(['dpkg', '-x', sorted(debs)[-1], tmp])
    run(['rm', '-rf', dest])
    os.rename(tmp, dest)
    if not os.path.exists(binary):
        raise Fatal(f'{pkg} has no bin/busybox')
    return binary
