#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""generate.py - write the flower tdc corpus, tc-tests/filters/flower/*.json.

The command of the generator, the tcgen package: its usage is in
tcgen/main.py, how the corpus is made in tcgen/__init__.py; the key
catalogue is tcgen/catalogue/, one module per family.
"""

import sys

from tcgen.main import main

if __name__ == '__main__':
    sys.exit(main(sys.argv))
