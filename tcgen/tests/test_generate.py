# SPDX-License-Identifier: GPL-2.0
"""tcgen (python3 -m tcgen, tcgen.main) writes only what it wrote before: its manifest
(filters/flower/generated.sha256) lists its files and their contents, and
it never overwrites or deletes a file it did not write, nor one of its
own that was changed by hand.  Here on a temporary directory with small
made-up files (no build() of the whole corpus)."""

import json
import os
import tempfile
import unittest

from tcgen.tests.test_corpus_generated import FLOWER_DIR, REPO, load_generator

GEN = load_generator()


def cases(*ids):
    return json.dumps([{'id': i, 'name': 'n' + i} for i in ids],
                      indent=4) + '\n'


class TestWrite(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.files = {'add.json': cases('0001'), 'keys-eth.json': cases('0002')}
        self.assertEqual(GEN.write(self.files, self.dir), [])

    def path(self, name):
        return os.path.join(self.dir, name)

    def put(self, name, text):
        with open(self.path(name), 'w') as f:
            f.write(text)

    def get(self, name):
        with open(self.path(name)) as f:
            return f.read()

    def test_writes_files_and_manifest(self):
        self.assertEqual(self.get('add.json'), cases('0001'))
        self.assertEqual(set(GEN.read_manifest(self.dir)), set(self.files))
        self.assertEqual(GEN.read_manifest(self.dir)['add.json'],
                         GEN.sha256(cases('0001')))

    def test_rewrites_and_deletes_its_own_files(self):
        new = {'add.json': cases('0001', '0003')}
        self.assertEqual(GEN.write(new, self.dir), [])
        self.assertEqual(self.get('add.json'), cases('0001', '0003'))
        self.assertFalse(os.path.exists(self.path('keys-eth.json')))
        self.assertEqual(set(GEN.read_manifest(self.dir)), {'add.json'})

    def test_hand_written_file_named_like_ours_is_left_alone(self):
        # the old tcgen deleted any keys-*.json it did not write
        self.put('keys-mine.json', cases('00aa'))
        self.put('regressions.json', cases('00bb'))
        self.assertEqual(GEN.write(self.files, self.dir), [])
        self.assertEqual(self.get('keys-mine.json'), cases('00aa'))
        self.assertEqual(self.get('regressions.json'), cases('00bb'))
        self.assertEqual(GEN.leftovers(self.files, self.dir), [])

    def test_refuses_to_overwrite_a_file_it_did_not_write(self):
        self.put('scale.json', cases('00aa'))
        files = dict(self.files, **{'scale.json': cases('0004')})
        problems = GEN.write(files, self.dir)
        self.assertEqual(len(problems), 1)
        self.assertIn('scale.json: not written by tcgen', problems[0])
        self.assertEqual(self.get('scale.json'), cases('00aa'))
        self.assertNotIn('scale.json', GEN.read_manifest(self.dir))

    def test_refuses_to_wipe_a_case_added_by_hand(self):
        # the old tcgen silently rewrote the file without it
        self.put('add.json', cases('0001', '00cc'))
        new = {'add.json': cases('0001', '0003'),
               'keys-eth.json': cases('0002', '0005')}
        problems = GEN.write(new, self.dir)
        self.assertEqual(len(problems), 1)
        self.assertIn('add.json: changed since tcgen wrote it',
                      problems[0])
        self.assertEqual(self.get('add.json'), cases('0001', '00cc'))
        # nothing at all was written
        self.assertEqual(self.get('keys-eth.json'), cases('0002'))

    def test_refuses_to_delete_a_changed_leftover(self):
        self.put('keys-eth.json', cases('0002', '00dd'))
        problems = GEN.write({'add.json': cases('0001')}, self.dir)
        self.assertEqual(len(problems), 1)
        self.assertIn('keys-eth.json: changed', problems[0])
        self.assertEqual(self.get('keys-eth.json'), cases('0002', '00dd'))


class TestRegressionsFile(unittest.TestCase):
    def test_regressions_json_is_hand_owned_and_documented(self):
        path = os.path.join(FLOWER_DIR, 'regressions.json')
        with open(path) as f:
            self.assertIsInstance(json.load(f), list)
        self.assertNotIn('regressions.json', GEN.read_manifest())
        for doc in ('README.md', 'tc-tests/README.md'):
            with open(os.path.join(REPO, doc)) as f:
                self.assertIn('regressions.json', f.read(), doc)


if __name__ == '__main__':
    unittest.main()
