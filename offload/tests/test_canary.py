# SPDX-License-Identifier: GPL-2.0
"""offload/canary.py: each canary applies to today's cls_flower.c (once),
and the judge passes a canary only when the comparison failed."""
import os
import tempfile
import unittest

from offload import canary


class TestCanary(unittest.TestCase):
    def test_each_canary_changes_the_source_once(self):
        with open(canary.SOURCE) as f:
            text = f.read()
        for name, (old, new) in canary.CANARIES.items():
            self.assertEqual(text.count(old), 1, name)
            self.assertNotEqual(text.replace(old, new), text, name)

    def judge(self, output):
        with tempfile.NamedTemporaryFile('w', suffix='.out',
                                         delete=False) as f:
            f.write(output)
        self.addCleanup(os.unlink, f.name)
        return canary.judge('x', f.name)

    def test_judge(self):
        self.assertEqual(self.judge('...\n540 passed, 36 failed\n'), 0)
        self.assertEqual(self.judge('...\n576 passed, 0 failed\n'), 1)
        self.assertEqual(self.judge('Traceback ...\n'), 1)


if __name__ == '__main__':
    unittest.main()
