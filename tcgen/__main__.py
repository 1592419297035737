# SPDX-License-Identifier: GPL-2.0
"""python3 -m tcgen - write the flower tdc corpus,
tc-tests/filters/flower/*.json (usage: tcgen/main.py).

The generator is code and lives here; tc-tests/ holds only the cases.
"""

import sys

from tcgen.main import main

sys.exit(main(sys.argv))
