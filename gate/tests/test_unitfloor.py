# SPDX-License-Identifier: GPL-2.0
"""The unit stage's floor (gate/unitfloor.py): every test_*.py of the tree
is in a package that `python3 -m unittest discover` reaches.  A tests
package without __init__.py drops out of discovery silently, and the
stage said OK without its tests; test_the_tree_loses_no_test_file now
fails the stage, naming the files."""

import os
import subprocess
import tempfile
import unittest

from gate import unitfloor

PY = '/usr/bin/python3'
TEST = 'import unittest\n\n\nclass T(unittest.TestCase):\n' \
    '    def test_it(self):\n        pass\n'


class TestUnitFloor(unittest.TestCase):
    def test_the_tree_loses_no_test_file(self):
        missed = unitfloor.unreachable()
        if missed:
            self.fail('test files that unittest discovery does not reach '
                      '(add the __init__.py their directories lack):\n' +
                      '\n'.join(missed))

    def tree(self, files):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        for path in files:
            path = os.path.join(tmp.name, path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(TEST if os.path.basename(path).startswith('test_')
                        else '')
        return tmp.name

    def test_a_missing_init_is_named(self):
        root = self.tree([
            'test_top.py',                              # the start dir
            'a/__init__.py', 'a/tests/__init__.py', 'a/tests/test_a.py',
            'b/tests/__init__.py', 'b/tests/test_b.py',     # b/ lacks one
            'c/__init__.py', 'c/tests/test_c.py',   # c/tests/ lacks one
            'c/tests/deep/__init__.py', 'c/tests/deep/test_d.py',
            'build/x/test_built.py', 'c/helper.py'])
        self.assertEqual(unitfloor.unreachable(root), [
            'b/tests/test_b.py', 'c/tests/deep/test_d.py',
            'c/tests/test_c.py'])
        # what discovery itself runs there: the other two
        proc = subprocess.run([PY, '-m', 'unittest', 'discover', '-v'],
                              cwd=root, capture_output=True, text=True,
                              timeout=60)
        self.assertIn('Ran 2 tests', proc.stderr)
        self.assertIn('(test_top.T.test_it)', proc.stderr)
        self.assertIn('(a.tests.test_a.T.test_it)', proc.stderr)

    def test_a_complete_tree_passes(self):
        root = self.tree(['a/__init__.py', 'a/tests/__init__.py',
                          'a/tests/test_a.py', 'test_top.py'])
        self.assertEqual(unitfloor.unreachable(root), [])


if __name__ == '__main__':
    unittest.main()
