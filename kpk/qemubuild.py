# SPDX-License-Identifier: GPL-2.0
"""QEMU with FEAT_S1POE: Debian's qemu source package plus qemu/*.patch.

No QEMU release emulates the Arm Permission Overlay Extension, so arm64
boots use a QEMU built here: the source package named in qemu/series,
fetched with apt-get through a private apt configuration (the host's own
package lists are left alone), its .dsc signature checked with Debian's
keyring, our patches applied with git am, and only qemu-system-aarch64
built.  The result is kept outside the repository, under a key made of the
source version, the patches and the configure flags, so every later run,
and every clone, reuses it.

Developers edit QEMU in build/qemu/src (a git repository whose first
commit is Debian's source) and write the commits back with 'make
qemu-export'.
"""

import glob
import hashlib
import os
import re
import shutil
import time

from . import deps
from .tree import BASE_DATE, IDENTITY, parse_series
from .common import BUILD, LOGS, ROOT, Fatal, ensure_dir, info, run, \
    tail_lines

PATCH_DIR = os.path.join(ROOT, 'qemu')
SERIES = os.path.join(PATCH_DIR, 'series')
SRC = os.path.join(BUILD, 'qemu', 'src')
OBJ = os.path.join(BUILD, 'qemu', 'obj')
CACHE = os.path.join(os.environ.get('KPK_CACHE_DIR') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'kpkeys'), 'qemu')
BASE_TAG = 'debian'
BINARY = 'qemu-system-aarch64'

# Host packages the build needs; meson comes from bookworm-backports
# (bookworm's 1.0.1 is older than QEMU 10 accepts) and is only unpacked.
BUILD_PACKAGES = ('ninja-build', 'pkg-config', 'libglib2.0-dev', 'libfdt-dev',
                  'libpixman-1-dev', 'python3-venv', 'dpkg-dev', 'gpgv',
                  'xz-utils', 'git', 'ccache', 'gcc')
# (package, suite) fetched with apt-get download and unpacked, not installed.
MESON = ('meson', 'bookworm-backports')
KEYRING = ('debian-keyring', 'sid')
# Only the virt board and what it selects: about half the objects of the
# default device set, for a clean build on CI's two cores.
CONFIGURE = ('--target-list=aarch64-softmmu', '--disable-docs',
             '--disable-tools', '--disable-download', '--enable-fdt=system',
             '--disable-install-blobs', '--disable-werror',
             '--without-default-devices', '--with-devices-aarch64=minimal')


class Unavailable(Fatal):
    """The patched QEMU cannot be had here; arm64 POE cases must skip."""


def read_series():
    """Return ((package, version), [patch names]) from qemu/series."""
    return parse_series(SERIES, 'qemu')


def key():
    """What the built binary depends on, as a short hash."""
    source, names = read_series()
    h = hashlib.sha256(' '.join(source + CONFIGURE).encode())
    for name in names:
        with open(os.path.join(PATCH_DIR, name), 'rb') as f:
            h.update(name.encode() + b'\0' + f.read())
    return h.hexdigest()[:16]


def cached_binary():
    path = os.path.join(CACHE, key(), BINARY)
    return path if os.access(path, os.X_OK) else None


# -- fetching, with a private apt configuration ---------------------------

# The only key the private lists trust, whatever the host's entries say:
# the archive's own, from debian-archive-keyring.
DEBIAN_KEY = '/usr/share/keyrings/debian-archive-keyring.gpg'
APT_SOURCES = '/etc/apt'


def _host_entries(etc=None):
    """(types, uris, suites, signed-by) of each entry of the host's sources."""
    etc = etc or APT_SOURCES
    entries = []
    for path in sorted(glob.glob(os.path.join(etc, 'sources.list.d',
                                              '*.sources'))):
        with open(path) as f:
            for stanza in f.read().split('\n\n'):
                fields = {}
                for line in stanza.splitlines():
                    m = re.match(r'([A-Za-z-]+):\s*(.*)', line)
                    if m:
                        fields[m.group(1).lower()] = m.group(2).strip()
                if fields.get('enabled', 'yes').lower() == 'no':
                    continue
                entries.append((fields.get('types', ''),
                                fields.get('uris', ''),
                                fields.get('suites', ''),
                                fields.get('signed-by', '')))
    for path in [os.path.join(etc, 'sources.list')] + sorted(glob.glob(
            os.path.join(etc, 'sources.list.d', '*.list'))):
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                m = re.match(r'\s*deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)', line)
                if m:
                    opts = m.group(1) or ''
                    sb = re.search(r'signed-by=(\S+?)[\s\]]', opts)
                    entries.append(('deb', m.group(2), m.group(3),
                                    sb.group(1) if sb else ''))
    return entries


def _archives(etc=None):
    """The URIs of the Debian archives the host's apt sources name.

    An entry counts if it is Debian's (signed by the archive key, or by
    nothing named) and carries the host's release or one of the suites the
    source is looked for in (a snapshot of sid, say); the order is the
    sources' own.  Other archives (Docker's, a vendor's) are left out:
    they do not carry Debian's sources, and the private lists trust only
    the archive key.
    """
    codename = run(['sh', '-c', '. /etc/os-release; echo $VERSION_CODENAME'],
                   quiet=True).stdout.strip()
    wanted = {codename} | set(SOURCE_SUITES) | {'unstable'}
    found = []
    for types, uris, suites, signed in _host_entries(etc):
        if 'deb' not in types.split() or signed not in ('', DEBIAN_KEY):
            continue
        if not wanted & set(suites.split()):
            continue
        for uri in uris.split():
            if uri.rstrip('/') not in found:
                found.append(uri.rstrip('/'))
    if not found:
        raise Unavailable('no Debian archive in the host\'s apt sources to '
                          'fetch the qemu source package from')
    return found


def _apt_options(apt_dir):
    return ['-o', f'Dir::Etc::sourcelist={apt_dir}/sources.list',
            '-o', f'Dir::Etc::sourceparts={apt_dir}/parts',
            '-o', f'Dir::State::Lists={apt_dir}/lists',
            '-o', f'Dir::Cache={apt_dir}/cache',
            '-o', 'APT::Sandbox::User=root']


def _apt_get(opts, *args, tool='apt-get', **kw):
    """apt-get (or @tool) with the private lists, its messages in English
    (they are parsed)."""
    env = dict(os.environ, LC_ALL='C.UTF-8', LANGUAGE='')
    return run([tool] + opts + list(args), check=False, quiet=True,
               env=env, **kw)


# apt refuses lists whose Release file is past its Valid-Until date, as a
# frozen mirror or a snapshot serves them; their signatures still check.
EXPIRED = re.compile(r"^E: Release file for (\S+)/dists/(\S+)/InRelease is "
                     r"expired", re.M)
# A suite that one archive (a snapshot, a partial mirror) does not have.
NO_RELEASE = re.compile(r"^E: The repository '(\S+) (\S+) Release' does not "
                        r"have a Release file", re.M)


def _private_apt(suites):
    """Private apt lists: deb-src for @suites, and what fetch() downloads.

    Returns the apt-get options that use them.  An entry refused only for
    being past its Valid-Until date gets check-valid-until=no, that entry
    alone, on a second try (its signature is checked as before); a suite an
    archive lacks is left out for that archive.
    """
    archives = _archives()
    apt_dir = os.path.join(CACHE, 'apt')
    for sub in ('parts', 'lists/partial', 'cache/archives/partial'):
        ensure_dir(os.path.join(apt_dir, sub))
    opts = _apt_options(apt_dir)
    expired, missing = set(), set()
    where = ', '.join(archives)
    info(f'apt-get update (private lists: sources of {" ".join(suites)}; '
         f'{KEYRING[1]}, {MESON[1]}; from {where})')
    # Each round leaves out or exempts what the last one named; the
    # number of entries bounds the rounds.
    while True:
        with open(os.path.join(apt_dir, 'sources.list'), 'w') as f:
            # Binary packages (the keyring, meson) from the first archive
            # that has their suite.
            binary = [('deb', next(uri for uri in archives + [None]
                                   if (uri, suite) not in missing), suite)
                      for suite in sorted({KEYRING[1], MESON[1]})]
            for kind, uri, suite in (
                    [('deb-src', uri, suite) for uri in archives
                     for suite in suites] + binary):
                if uri is None or (uri, suite) in missing:
                    continue
                extra = (' check-valid-until=no' if (uri, suite) in expired
                         else '')
                f.write(f'{kind} [signed-by={DEBIAN_KEY}{extra}] {uri} '
                        f'{suite} main\n')
        # A mirror that cannot be reached is an error, not a warning that
        # would make every suite look as if it lacked the version.
        res = _apt_get(opts, 'update', '-qq', '--error-on=any')
        if res.returncode == 0:
            return opts
        now_expired = {(u.rstrip('/'), s)
                       for u, s in EXPIRED.findall(res.stdout)} - expired
        now_missing = {(u.rstrip('/'), s)
                       for u, s in NO_RELEASE.findall(res.stdout)} - missing
        if not now_expired and not now_missing:
            break
        for uri, suite in sorted(now_expired):
            info(f'apt-get: {uri} {suite} is past its Valid-Until date (a '
                 'frozen mirror or a snapshot): accepting it, signature '
                 'checked')
        for uri, suite in sorted(now_missing):
            info(f'apt-get: {uri} has no {suite}: leaving it out')
        expired |= now_expired
        missing |= now_missing
    raise Unavailable(f'apt-get update of the private lists failed: '
                      f'{_apt_errors(res.stdout)}')


# Where the pinned source version may still be published, in order: a
# suite is added only when those before it lack the version.
SOURCE_SUITES = ('sid', 'experimental', 'forky', 'trixie-backports',
                 'trixie')
NOT_FOUND = re.compile(r'Can not find version|Unable to find a source '
                       r'package')


def _apt_errors(output):
    return '; '.join(line[2:].strip() for line in output.splitlines()
                     if line.startswith('E:')) or output.strip()[-300:]


def _download(opts, dest, what, *args):
    res = _apt_get(opts, *args, cwd=ensure_dir(dest))
    if res.returncode != 0:
        raise Unavailable(f'could not fetch {what} with apt-get: '
                          + _apt_errors(res.stdout))


def _published(opts, package):
    """The versions of @package's source the private lists offer."""
    res = _apt_get(opts, 'showsrc', package, tool='apt-cache')
    return sorted(set(re.findall(r'^Version: (\S+)$', res.stdout, re.M)))


def _fetch_source(package, version, dest):
    """apt-get source the pinned version from the first suite that has it.

    Returns the apt options used.  A version no suite carries any more is
    an error that names the versions there are and how to move the pin.
    """
    for n in range(1, len(SOURCE_SUITES) + 1):
        opts = _private_apt(SOURCE_SUITES[:n])
        info(f'apt-get source --download-only {package}={version}')
        res = _apt_get(opts, 'source', '--download-only',
                       f'{package}={version}', cwd=ensure_dir(dest))
        if res.returncode == 0:
            return opts
        if not NOT_FOUND.search(res.stdout):
            raise Unavailable(f'could not fetch the {package} {version} '
                              'source package with apt-get: '
                              + _apt_errors(res.stdout))
    there = ', '.join(_published(opts, package)) or 'none'
    raise Unavailable(
        f'{package} {version}, the version qemu/series pins, is no longer '
        f'published in {", ".join(SOURCE_SUITES)} at '
        f'{", ".join(_archives())} (versions there now: {there}). Move the '
        'pin to one of them and rebase qemu/ onto it: README.md, "Moving '
        'the QEMU pin"')


def fetch():
    """Download what the build needs; return (.dsc, keyring, meson dir)."""
    (package, version), _ = read_series()
    upstream = version.split(':')[-1]
    dl = os.path.join(CACHE, 'downloads')
    dsc = os.path.join(dl, f'{package}_{upstream}.dsc')
    keyring_dir = os.path.join(dl, 'keyring')
    keyring = os.path.join(keyring_dir, 'usr', 'share', 'keyrings',
                           'debian-keyring.gpg')
    meson = os.path.join(dl, 'meson')
    if os.path.exists(dsc) and os.path.exists(keyring) and \
            os.path.isdir(meson):
        return dsc, keyring, meson
    opts = None
    # apt checks every file against the archive's signed indexes.
    if not os.path.exists(dsc):
        opts = _fetch_source(package, version, dl)
    # Each package is unpacked into dest; done once want exists.
    for (name, suite), dest, want in ((KEYRING, keyring_dir, keyring),
                                      (MESON, meson, meson)):
        if os.path.exists(want):
            continue
        opts = opts or _private_apt(SOURCE_SUITES[:1])
        tmp = ensure_dir(os.path.join(dl, 'debs'))
        for old in glob.glob(os.path.join(tmp, f'{name}_*.deb')):
            os.unlink(old)
        info(f'apt-get download {name}/{suite}')
        _download(opts, tmp, f'{name} from {suite}', 'download',
                  f'{name}/{suite}')
        run(['rm', '-rf', dest])
        run(['dpkg', '-x', glob.glob(os.path.join(tmp, f'{name}_*.deb'))[0],
             dest])
    return dsc, keyring, meson


def verify(dsc, keyring):
    """Check the .dsc's OpenPGP signature against Debian's keyring."""
    res = run(['gpgv', '--keyring', keyring, dsc], check=False, quiet=True)
    if res.returncode != 0:
        raise Unavailable(f'the signature of {os.path.basename(dsc)} does not '
                          f'verify against {KEYRING[0]} from {KEYRING[1]}:\n'
                          f'{res.stdout.strip()}')
    who = re.search(r'Good signature from "([^"]+)"', res.stdout)
    info(f'{os.path.basename(dsc)}: good signature'
         + (f' from {who.group(1)}' if who else ''))


# -- the source tree -------------------------------------------------------

def _git(*args, **kw):
    env = dict(os.environ, **IDENTITY, GIT_AUTHOR_DATE=BASE_DATE,
               GIT_COMMITTER_DATE=BASE_DATE)
    return run(['git', '-C', SRC] + list(args), env=env, **kw)


def _stamp():
    return os.path.join(SRC, '.git', 'kpk-qemu-stamp')


def ensure_tree(dsc):
    """build/qemu/src: the source package unpacked, qemu/*.patch applied."""
    want = key()
    if os.path.exists(_stamp()):
        with open(_stamp()) as f:
            have = f.read().split()
        head = _git('rev-parse', 'HEAD', quiet=True).stdout.strip()
        if have == [want, head]:
            return
        if have[1:] != [head]:
            raise Fatal(f'{SRC} has commits that are not in qemu/: run make '
                        f'qemu-export, or remove {SRC}')
        busy = os.path.exists(os.path.join(SRC, '.git', 'rebase-apply')) or \
            _git('status', '--porcelain', '--untracked-files=no',
                 quiet=True).stdout.strip()
        if busy:
            raise Fatal(f'{SRC} has changes not committed, or a git am in '
                        'progress: finish them (git am --continue) and run '
                        f'make qemu-export, or remove {SRC}')
    (package, version), names = read_series()
    info(f'unpacking {package} {version} into {os.path.relpath(SRC, ROOT)}')
    run(['rm', '-rf', SRC])
    ensure_dir(os.path.dirname(SRC))
    # dpkg-source checks the files against the .dsc's checksums and
    # applies Debian's own patches.
    run(['dpkg-source', '--no-copy', '-x', dsc, SRC], quiet=True,
        env=dict(os.environ, DEB_BUILD_OPTIONS=''))
    run(['rm', '-rf', os.path.join(SRC, '.pc')])  # quilt's bookkeeping
    _git('init', '-q')
    # For the commits a developer makes there by hand (git am, rebases).
    _git('config', 'user.name', IDENTITY['GIT_COMMITTER_NAME'])
    _git('config', 'user.email', IDENTITY['GIT_COMMITTER_EMAIL'])
    _git('add', '-A', '-f')
    _git('commit', '-q', '-m', f'{package} {version} (Debian source)')
    _git('tag', BASE_TAG)
    # Until the patches are in, the stamp says so: a make qemu that finds
    # the tree as it was unpacks it again, and one that finds commits a
    # developer made on it (rebasing qemu/ by hand) leaves them alone.
    with open(_stamp(), 'w') as f:
        f.write(f'{want}-unpatched '
                f'{_git("rev-parse", "HEAD", quiet=True).stdout.strip()}\n')
    if names:
        paths = [os.path.join(PATCH_DIR, n) for n in names]
        res = _git('am', '-q', '--committer-date-is-author-date', *paths,
                   check=False, quiet=True)
        if res.returncode != 0:
            _git('am', '--abort', check=False, quiet=True)
            raise Fatal(f'qemu/ patches do not apply to {package} {version}'
                        f' (README.md, "Moving the QEMU pin"):'
                        f'\n{res.stdout.strip()[-800:]}')
    head = _git('rev-parse', 'HEAD', quiet=True).stdout.strip()
    with open(_stamp(), 'w') as f:
        f.write(f'{want} {head}\n')


def export():
    """Write build/qemu/src's commits back to qemu/ as a patch series."""
    (package, version), old = read_series()
    for name in old:
        os.unlink(os.path.join(PATCH_DIR, name))
    res = _git('format-patch', '--zero-commit', '--no-signature', '-o',
               PATCH_DIR, f'{BASE_TAG}..HEAD', quiet=True)
    names = [os.path.basename(p) for p in res.stdout.split()]
    with open(SERIES, 'w') as f:
        f.write(f'# base: {package} {version}\n')
        f.writelines(n + '\n' for n in names)
    head = _git('rev-parse', 'HEAD', quiet=True).stdout.strip()
    with open(_stamp(), 'w') as f:
        f.write(f'{key()} {head}\n')
    info(f'wrote {len(names)} patches to qemu/')


# -- the build -------------------------------------------------------------

def build():
    """Return the patched qemu-system-aarch64, building it if needed.

    Raises Unavailable when the source cannot be fetched or verified, and
    Fatal when our patches or the build fail.
    """
    cached = cached_binary()
    if cached:
        return cached
    deps.apt_install(BUILD_PACKAGES)
    dsc, keyring, meson = fetch()
    verify(dsc, keyring)
    ensure_tree(dsc)
    (package, version), _ = read_series()
    env = dict(os.environ)
    # /usr/lib/ccache holds ccache's cc and gcc masquerade links.
    env['PATH'] = ':'.join([os.path.join(meson, 'usr', 'bin'),
                            '/usr/lib/ccache', env['PATH']])
    env['PYTHONPATH'] = os.path.join(meson, 'usr', 'lib', 'python3',
                                     'dist-packages')
    env.update({'CCACHE_BASEDIR': ROOT, 'CCACHE_NOHASHDIR': '1'})
    log = os.path.join(ensure_dir(LOGS), 'qemu-build.log')
    info(f'building {BINARY} from {package} {version} + qemu/ '
         f'(log: {os.path.relpath(log, ROOT)})')
    start = time.time()
    args = [os.path.join(SRC, 'configure')] + list(CONFIGURE) + [
        f'--with-pkgversion=Debian {version} + kpkeys POE patches']
    stamp = os.path.join(OBJ, 'kpk-configure')
    if not os.path.exists(stamp) or open(stamp).read() != ' '.join(args):
        run(['rm', '-rf', OBJ])
    ensure_dir(OBJ)
    with open(log, 'w') as f:
        if not os.path.exists(stamp):
            res = run(args, cwd=OBJ, env=env, stdout=f, stderr=f, check=False)
            if res.returncode != 0:
                raise Fatal(f'QEMU configure failed; last lines of {log}:\n  '
                            + '\n  '.join(tail_lines(log, 15)))
            with open(stamp, 'w') as s:
                s.write(' '.join(args))
        res = run(['ninja', BINARY], cwd=OBJ, env=env, stdout=f, stderr=f,
                  check=False)
    if res.returncode != 0:
        errors = [line for line in tail_lines(log, 400)
                  if 'error' in line.lower()][-15:]
        raise Fatal(f'QEMU build failed; last errors (full log {log}):\n  '
                    + '\n  '.join(errors or tail_lines(log, 15)))
    dest = ensure_dir(os.path.join(CACHE, key()))
    shutil.copy2(os.path.join(OBJ, BINARY), os.path.join(dest, BINARY + '.tmp'))
    os.rename(os.path.join(dest, BINARY + '.tmp'), os.path.join(dest, BINARY))
    info(f'{BINARY} built in {time.time() - start:.0f}s; kept in {dest}')
    return os.path.join(dest, BINARY)
