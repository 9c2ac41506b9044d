# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the workbench (kpk/) that need no kernel build.

make test runs them first (kpk/workbench_tests.py), in a child whose
KPK_BUILD_DIR is a temporary folder.  Run by hand, they take one of their
own, so that build/ is never touched.
"""

import os
import tempfile

if not os.environ.get('KPK_BUILD_DIR'):
    os.environ['KPK_BUILD_DIR'] = tempfile.mkdtemp(prefix='kpk-workbench-')
