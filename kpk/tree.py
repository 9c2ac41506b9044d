# SPDX-License-Identifier: GPL-2.0
"""The kernel tree: Debian's linux-source-6.12 with patches/ applied on top.

The tree lives in build/linux as a git repository whose first commit is the
pristine source (tag kpk-base).  Developers edit and commit there, then
'make export' writes the commits back to patches/.  A stamp in .git records
which series the tree was made from, so that neither side's work is lost:
changed patches are re-applied only onto a tree nobody has touched, and a
tree with unexported commits is left alone.
"""

import email
import glob
import hashlib
import json
import os
import re

from . import deps
from .common import LOGS, PATCHES, TREE, Fatal, ensure_dir, info, run

TARBALL = '/usr/src/linux-source-6.12.tar.xz'
BASE_TAG = 'kpk-base'
STAMP = os.path.join(TREE, '.git', 'kpk-stamp.json')
SERIES = os.path.join(PATCHES, 'series')
COVER = '0000-cover-letter.patch'
# Fixed identity and dates make every clone's commits, and so the exported
# patches, byte-for-byte the same.
IDENTITY = {
    'GIT_AUTHOR_NAME': 'kpkeys developers', 'GIT_AUTHOR_EMAIL': 'kpkeys@example.org',
    'GIT_COMMITTER_NAME': 'kpkeys developers',
    'GIT_COMMITTER_EMAIL': 'kpkeys@example.org',
}
BASE_DATE = '2000-01-01T00:00:00+0000'


def git(*args, **kw):
    env = dict(os.environ, **IDENTITY)
    env.update(kw.pop('env', {}))
    return run(['git', '-C', TREE] + list(args), env=env, **kw)


def git_out(*args):
    return git(*args, quiet=True).stdout.strip()


def parse_series(path, package):
    """Return ((package, version), [patch names]) from a series file.

    Its "# base: PACKAGE VERSION" line names the Debian source the patches
    were made on; the other lines that are not comments name the patches.
    """
    source, names = None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = re.match(r'#\s*base:\s*(\S+)\s+(\S+)', line)
            if m:
                source = (m.group(1), m.group(2))
            elif line and not line.startswith('#'):
                names.append(line)
    if not source:
        raise Fatal(f'{path} lacks its "# base: {package} VERSION" line')
    return source, names


def read_series():
    """Return (base version, [patch file names]) from patches/series."""
    (_, base), names = parse_series(SERIES, deps.KERNEL_SOURCE_PACKAGE)
    return base, names


def series_digest():
    h = hashlib.sha256()
    _, names = read_series()
    for name in ['series', COVER] + names:
        path = os.path.join(PATCHES, name)
        if os.path.exists(path):
            with open(path, 'rb') as f:
                h.update(name.encode() + b'\0' + f.read())
    return h.hexdigest()


def installed_version():
    res = run(['dpkg-query', '-W', '-f=${Version}', deps.KERNEL_SOURCE_PACKAGE],
              check=False, quiet=True)
    return res.stdout.strip() if res.returncode == 0 else None


def _read_stamp():
    try:
        with open(STAMP) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write_stamp(version):
    with open(STAMP, 'w') as f:
        json.dump({'version': version, 'digest': series_digest(),
                   'head': git_out('rev-parse', 'HEAD')}, f)


def _dirty():
    return bool(git_out('status', '--porcelain', '--untracked-files=no'))


def _extract(version):
    info(f'extracting {TARBALL} ({deps.KERNEL_SOURCE_PACKAGE} {version})')
    parent = os.path.dirname(TREE)
    tmp = os.path.join(parent, 'linux.extract')
    run(['rm', '-rf', tmp, TREE])
    os.makedirs(tmp)
    run(['tar', '-xf', TARBALL, '-C', tmp])
    top = os.listdir(tmp)
    if len(top) != 1:
        raise Fatal(f'{TARBALL} does not hold a single top-level folder')
    os.rename(os.path.join(tmp, top[0]), TREE)
    os.rmdir(tmp)
    env = {'GIT_AUTHOR_DATE': BASE_DATE, 'GIT_COMMITTER_DATE': BASE_DATE}
    git('init', '-q', '-b', 'main')
    git('config', 'user.name', IDENTITY['GIT_COMMITTER_NAME'])
    git('config', 'user.email', IDENTITY['GIT_COMMITTER_EMAIL'])
    git('config', 'gc.auto', '0')
    # -f: the tarball ships files its own .gitignore would hide.
    git('add', '-f', '-A', '.')
    git('commit', '-q', '-m',
        f'Linux {kernel_version()} ({deps.KERNEL_SOURCE_PACKAGE} {version})',
        env=env)
    git('tag', BASE_TAG)
    _unhide_new_files()


def _unhide_new_files():
    """Let git see new files, which Debian's .gitignore hides.

    Debian's linux-source adds '/*' to the top-level .gitignore.  The copy in
    the work tree drops that rule, and skip-worktree keeps the edit out of
    every commit, so the base stays pristine.
    """
    path = os.path.join(TREE, '.gitignore')
    with open(path) as f:
        lines = f.read().splitlines(keepends=True)
    kept = [ln for ln in lines if ln.strip() not in ('/*', '!/debian/')]
    if kept != lines:
        with open(path, 'w') as f:
            f.writelines(kept)
        git('update-index', '--skip-worktree', '.gitignore')


def kernel_version():
    values = {}
    with open(os.path.join(TREE, 'Makefile')) as f:
        for line in f:
            m = re.match(r'(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)', line)
            if m:
                values[m.group(1)] = m.group(2)
            if len(values) == 3:
                break
    return '{VERSION}.{PATCHLEVEL}.{SUBLEVEL}'.format(**values)


def _cover_description():
    """The cover letter's subject and text, as a git branch description."""
    path = os.path.join(PATCHES, COVER)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        msg = email.message_from_file(f)
    subject = ' '.join(str(msg['Subject']).split())
    subject = re.sub(r'^\[[^]]*\]\s*', '', subject)
    body = msg.get_payload().splitlines()
    # Drop what format-patch generates: the shortlog, the diffstat and
    # the signature.
    for i, line in enumerate(body):
        if re.match(r'^\S.* \(\d+\):$', line):
            body = body[:i]
            break
    return subject + '\n\n' + '\n'.join(body).strip() + '\n'


def _apply(base, version):
    """Apply the series on kpk-base; on failure, leave the tree as it was."""
    _, names = read_series()
    before = git_out('rev-parse', 'HEAD')
    git('reset', '-q', '--hard', BASE_TAG)
    desc = _cover_description()
    if desc:
        git('config', 'branch.main.description', desc)
    for name in names:
        path = os.path.join(PATCHES, name)
        res = git('am', '-q', '--committer-date-is-author-date', path,
                  check=False, quiet=True)
        if res.returncode != 0:
            git('am', '--abort', check=False, quiet=True)
            git('reset', '-q', '--hard', before)
            log = os.path.join(ensure_dir(LOGS), 'tree.log')
            with open(log, 'w') as f:
                f.write(f'$ git am {path}\n{res.stdout}')
            why = '\n'.join(ln for ln in res.stdout.splitlines()
                            if ln.startswith('error:'))
            why += f'\n(git am output: {log})'
            if version != base:
                raise Fatal(
                    f'patch {name} does not apply to {deps.KERNEL_SOURCE_PACKAGE}'
                    f' {version} (Linux {kernel_version()}); the series was made'
                    f' on {base}. Install that version '
                    f'(apt-get install {deps.KERNEL_SOURCE_PACKAGE}={base}) or '
                    f'rebase the series.\n{why}')
            raise Fatal(f'patch {name} does not apply to '
                        f'{deps.KERNEL_SOURCE_PACKAGE} {version}:\n{why}')
    info(f'applied {len(names)} patches on Linux {kernel_version()}')


def ensure():
    """Make build/linux the series applied to the installed kernel source."""
    deps.kernel_source()
    base, _ = read_series()
    version = installed_version()
    if not os.path.exists(TARBALL):
        raise Fatal(f'{deps.KERNEL_SOURCE_PACKAGE} {version} is installed but '
                    f'{TARBALL} is missing; reinstall it with apt-get install '
                    f'--reinstall {deps.KERNEL_SOURCE_PACKAGE}')
    if version != base:
        info(f'warning: installed {deps.KERNEL_SOURCE_PACKAGE} is {version}, '
             f'the series was made on {base}')
    stamp = _read_stamp()
    if stamp is None:
        _extract(version)
        _apply(base, version)
        _write_stamp(version)
        return
    head = git_out('rev-parse', 'HEAD')
    patches_changed = stamp['digest'] != series_digest()
    tree_changed = stamp['head'] != head
    if tree_changed and patches_changed:
        raise Fatal(f'both {TREE} (commits since the last apply/export) and '
                    f'patches/ changed. Export the tree (make export) or '
                    f'discard its commits (rm -rf {TREE}) first.')
    if tree_changed:
        info('note: the tree has commits not yet exported to patches/ '
             '(make export); building the tree as it is')
        return
    if stamp['version'] != version:
        if _dirty():
            raise Fatal(f'{TREE} has uncommitted changes; commit or discard '
                        f'them before it is re-made for {version}')
        _extract(version)
        _apply(base, version)
        _write_stamp(version)
        return
    if patches_changed:
        if _dirty():
            raise Fatal(f'patches/ changed but {TREE} has uncommitted changes;'
                        f' commit and export, or discard them, first')
        info('patches/ changed: re-applying the series')
        _apply(base, version)
        _write_stamp(version)


def unexported():
    """Whether build/linux has commits that patches/ does not have yet."""
    stamp = _read_stamp()
    return stamp is not None and stamp['head'] != git_out('rev-parse', 'HEAD')


def export():
    """Write the tree's commits since kpk-base to patches/."""
    stamp = _read_stamp()
    if stamp is None:
        raise Fatal('no tree to export: run make tree first')
    if _dirty():
        raise Fatal(f'{TREE} has uncommitted changes: commit them first')
    if stamp['digest'] != series_digest():
        raise Fatal('patches/ changed since the tree was made; exporting '
                    'would overwrite that change (run make tree first)')
    base, _ = read_series()
    count = int(git_out('rev-list', '--count', f'{BASE_TAG}..HEAD'))
    for path in glob.glob(os.path.join(PATCHES, '*.patch')):
        os.remove(path)
    args = ['format-patch', '-q', '-o', PATCHES, '--zero-commit',
            '--no-signature', '--cover-from-description=subject']
    if count:
        args.append('--cover-letter')
    git(*args, f'{BASE_TAG}..HEAD')
    names = sorted(os.path.basename(p) for p in
                   glob.glob(os.path.join(PATCHES, '*.patch'))
                   if not p.endswith(COVER))
    cover = os.path.join(PATCHES, COVER)
    if os.path.exists(cover):
        # format-patch dates the cover letter now; date it like the last
        # patch so that an unchanged series exports to unchanged files.
        date = git_out('log', '-1', '--format=%aD')
        with open(cover) as f:
            text = f.read()
        text = re.sub(r'^Date: .*$', f'Date: {date}', text, count=1,
                      flags=re.M)
        with open(cover, 'w') as f:
            f.write(text)
    with open(SERIES, 'w') as f:
        f.write(f'# base: {deps.KERNEL_SOURCE_PACKAGE} {base}\n')
        for name in names:
            f.write(name + '\n')
    _write_stamp(stamp['version'])
    info(f'exported {len(names)} patches to patches/')


def worktree(path, commit):
    """Check out @commit in a detached worktree at @path and return it.

    For builds that must leave build/linux and its build folders alone.  A
    worktree orphaned by a re-extracted tree is made again.
    """
    if os.path.exists(path) and run(['git', '-C', path, 'rev-parse'],
                                    check=False, quiet=True).returncode:
        run(['rm', '-rf', path])
    if not os.path.exists(path):
        git('worktree', 'prune')
        git('worktree', 'add', '-q', '--detach', path, commit)
    else:
        run(['git', '-C', path, 'checkout', '-q', '--detach', commit])
    return path
