"""tree/sync-tree and tree/make-series must agree on which files under
kernel/ mirror tree paths and which paths a patch touches: the ours tree
the guest boots and the series' last step are compared file for file
(make series).  Both take mirror_files() and diff_paths() from
tree/kernel-paths.sh.  sync-tree once copied kernel/series.mk into the
tree, which make-series left out."""
import os
import re
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = '. "$repo/tree/kernel-paths.sh"'


def read(script):
    with open(os.path.join(REPO, 'tree', script)) as f:
        return f.read()


def function_body(text, name):
    m = re.search(r'^%s\(\) \{\n(.*?)^\}' % name, text, re.S | re.M)
    return ' '.join(m.group(1).split()) if m else None


class TestMirrorFiles(unittest.TestCase):
    def test_both_scripts_take_the_shared_functions(self):
        for script in ('sync-tree', 'make-series'):
            text = read(script)
            self.assertIn(SOURCE, text.splitlines(), script)
            for name in ('mirror_files', 'diff_paths', 'patch_paths'):
                self.assertIsNone(function_body(text, name),
                                  '%s defines %s() again' % (script, name))

    def test_makefiles_are_not_tree_files(self):
        body = function_body(read('kernel-paths.sh'), 'mirror_files')
        self.assertIn("! -name '*.mk'", body)

    def test_renames_count_as_paths(self):
        # step 00 and kernel/patches/0001 move the tree's flower
        body = function_body(read('kernel-paths.sh'), 'diff_paths')
        self.assertIn('rename (from|to)', body)


if __name__ == '__main__':
    unittest.main()
