# SPDX-License-Identifier: GPL-2.0
"""unitfloor.py - test files that `python3 -m unittest discover` cannot
reach.

Discovery from the repository root descends only into packages: a
directory without __init__.py, and everything below it, is passed over
without a word.
A tests package that loses its __init__.py thus drops out of the gate's
unit stage, which still says OK.  gate/tests/test_unitfloor.py runs
unreachable() over the real tree in that stage, so such a loss fails it
(unless the package lost is gate/tests itself).
"""

import os

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)
SKIP = ('build', '.git')        # at the root only: not ours, or not code


def unreachable(root=REPO):
    """Sorted paths (relative to root) of the test_*.py files in a
    directory that is not a package, or below one that is not."""
    found = []
    for top, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if top != root or d not in SKIP)
        rel = os.path.relpath(top, root)
        if rel == '.':
            continue            # discovery's start: needs no __init__.py
        parts = rel.split(os.sep)
        packaged = all(os.path.isfile(os.path.join(root, *parts[:i],
                                                   '__init__.py'))
                       for i in range(1, len(parts) + 1))
        if not packaged:
            found += [os.path.join(rel, n) for n in sorted(names)
                      if n.startswith('test_') and n.endswith('.py')]
    return sorted(found)
