# SPDX-License-Identifier: GPL-2.0
"""docs/: every page of results names the commit it measured.

A number without the code it was measured on cannot be checked, or told
from a number of today's code.  The commit (an abbreviated hash or more)
must stand in the page's head, where a reader looks first: the first 15
lines.
"""

import os
import re
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
DOCS = os.path.join(REPO, 'docs')
HEAD_LINES = 15
COMMIT = re.compile(r'\b[0-9a-f]{7,40}\b')


def pages():
    for top, _, files in os.walk(DOCS):
        for name in sorted(files):
            if name.endswith('.md'):
                yield os.path.join(top, name)


def names_a_commit(path):
    with open(path) as f:
        head = [next(f, '') for _ in range(HEAD_LINES)]
    return any(COMMIT.search(line) for line in head)


class TestDocsNameTheirCommit(unittest.TestCase):
    def test_every_page_names_a_commit_in_its_head(self):
        found = list(pages())
        self.assertGreater(len(found), 10)      # docs/ was found at all
        missing = [os.path.relpath(p, REPO) for p in found
                   if not names_a_commit(p)]
        self.assertEqual(missing, [], 'pages of docs/ that name no commit '
                         'in their first %d lines' % HEAD_LINES)

    def test_a_page_without_a_commit_is_caught(self):
        import tempfile
        with tempfile.NamedTemporaryFile('w', suffix='.md') as f:
            f.write('# Results\n\nMeasured today: 3 passed.\n')
            f.flush()
            self.assertFalse(names_a_commit(f.name))
            f.write('Commit measured: `29e99a6`.\n')
            f.flush()
            self.assertTrue(names_a_commit(f.name))


if __name__ == '__main__':
    unittest.main()
