# SPDX-License-Identifier: GPL-2.0
"""Run a program of the repository's packages as its module when started
as a file.

tdc/tdc.py started as a file puts tdc/ first on the module path, where
"tdc" is that file and not the package: re-execute it as `python3 -P -m
tdc.NAME` with the repository as the module path instead.  Imported by
file name, from tdc/ itself, before any package import; gate/gate.py
(the same trouble with "gate") puts the repository first and imports it
as tdc.as_module.
"""

import os
import sys


def reexec(module):
    repo = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    os.execve(sys.executable, [sys.executable, '-P', '-m', module] +
              sys.argv[1:], dict(os.environ, PYTHONPATH=repo))
