"""tree/sync-tree and tree/make-series must agree on which files under
kernel/ mirror tree paths: the ours tree the guest boots and the series'
last step are compared file for file (make series).  sync-tree once
copied kernel/series.mk into the tree, which make-series leaves out."""
import os
import re
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mirror_files_body(script):
    with open(os.path.join(REPO, 'tree', script)) as f:
        text = f.read()
    m = re.search(r'^mirror_files\(\) \{\n(.*?)^\}', text, re.S | re.M)
    if not m:
        raise AssertionError('%s has no mirror_files()' % script)
    return ' '.join(m.group(1).split())


class TestMirrorFiles(unittest.TestCase):
    def test_same_selection(self):
        self.assertEqual(mirror_files_body('sync-tree'),
                         mirror_files_body('make-series'))

    def test_makefiles_are_not_tree_files(self):
        self.assertIn("! -name '*.mk'", mirror_files_body('sync-tree'))


if __name__ == '__main__':
    unittest.main()
