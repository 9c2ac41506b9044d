# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the workbench (kpk/) that need no kernel build.

make test runs them (kpk/workbench_tests.py) in a child whose
KPK_BUILD_DIR is a temporary folder it made, and says so with
KPK_WORKBENCH_TESTS.  Run any other way, they make a temporary folder of
their own, whatever KPK_BUILD_DIR says: the cases empty it, so it must
never be a real build folder.
"""

import os
import tempfile

_OURS = os.environ.get('KPK_WORKBENCH_TESTS')
if not _OURS or _OURS != os.environ.get('KPK_BUILD_DIR'):
    os.environ['KPK_BUILD_DIR'] = tempfile.mkdtemp(prefix='kpk-workbench-')
