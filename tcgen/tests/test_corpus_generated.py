# SPDX-License-Identifier: GPL-2.0
"""The generated flower corpus: committed files are what
the tcgen package (python3 -m tcgen) writes, and the corpus is as large as the issue asks
(400+ flower cases, 100+ of them sending packets with scapy), with ids
unique over the whole of tc-tests/.

Run on the host, from the repository root: python3 -m unittest discover
(tcgen needs scapy to compute packet sizes: use /usr/bin/python3).
"""

import json
import os
import re
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
TC_TESTS = os.path.join(REPO, 'tc-tests')
FLOWER_DIR = os.path.join(TC_TESTS, 'filters', 'flower')

MIN_CASES = 400
MIN_SCAPY = 100


def load_generator():
    """tcgen.main: build() the corpus, and the manifest helpers."""
    from tcgen import main
    return main


class TestGeneratedCorpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gen = load_generator()
        cls.files = cls.gen.build()
        cls.cases = [case for text in cls.files.values()
                     for case in json.loads(text)]

    def test_committed_files_are_up_to_date(self):
        for name, text in sorted(self.files.items()):
            path = os.path.join(FLOWER_DIR, name)
            with self.subTest(file=name):
                self.assertTrue(os.path.exists(path),
                                '%s is missing: run python3 -m '
                                'tcgen'
                                % path)
                with open(path) as f:
                    self.assertEqual(
                        f.read(), text, '%s differs from what '
                        'tcgen writes: run python3 -m '
                        'tcgen' % path)

    def test_no_left_over_generated_files(self):
        self.assertEqual(self.gen.leftovers(self.files), [])

    def test_manifest_lists_exactly_the_generated_files(self):
        self.assertEqual(self.gen.read_manifest(), {
            name: self.gen.sha256(text) for name, text in self.files.items()})

    def test_refused_cases_count_filters_on_the_device_they_add_to(self):
        # 6da1 added on $DEV2 and counted $DEV1: "adds nothing" held always
        counted = re.compile(r'filter show dev (\S+) ingress \| grep -c')
        for case in self.cases:
            devs = set(counted.findall(case.get('verifyCmd', '')))
            if not devs:
                continue
            with self.subTest(id=case['id']):
                # (a tc -b batch names its devices in the batch file)
                used = set(re.findall(r'(?:^| )(?:--)?dev (\S+)',
                                      case['cmdUnderTest']))
                self.assertLessEqual(used, devs, case['name'])

    def test_bundled_requests_are_checked_one_by_one(self):
        # many $FLNL requests in one case go through `$FLNL batch`, which
        # names each request that was not refused as expected
        for case in self.cases:
            cmd = case['cmdUnderTest']
            with self.subTest(id=case['id']):
                self.assertNotIn('flowernl.main', cmd)
                if cmd.startswith('$FLNL batch'):
                    self.assertEqual(cmd.count(' --expect '), len(
                        re.findall(r"'(?:add|replace|change) --dev ", cmd)))
                    self.assertEqual(case['expExitCode'], '0')

    def test_generation_is_deterministic(self):
        self.assertEqual(self.gen.build(), self.files)

    def test_case_counts(self):
        scapy = [c for c in self.cases if c.get('scapy')]
        self.assertGreaterEqual(len(self.cases), MIN_CASES)
        self.assertGreaterEqual(len(scapy), MIN_SCAPY)

    def test_ids_unique_over_tc_tests(self):
        seen = {}
        for root, dirs, names in os.walk(TC_TESTS):
            for name in sorted(names):
                if not name.endswith('.json'):
                    continue
                path = os.path.join(root, name)
                with open(path) as f:
                    for case in json.load(f):
                        cid = case.get('id')
                        rel = os.path.relpath(path, TC_TESTS)
                        with self.subTest(id=cid, file=rel):
                            self.assertRegex(str(cid), r'^[0-9a-f]{4}$')
                            self.assertNotIn(cid, seen,
                                             'also in %s' % seen.get(cid))
                        seen[cid] = rel

    def test_names_unique(self):
        names = [c['name'] for c in self.cases]
        self.assertEqual(len(names), len(set(names)))

    def test_categories_and_plugins(self):
        for name, text in self.files.items():
            theme = name[:-len('.json')]
            for case in json.loads(text):
                with self.subTest(id=case['id']):
                    self.assertEqual(case['category'][:2],
                                     ['filter', 'flower'])
                    # the third names the theme: the file, or its family
                    self.assertTrue(theme.startswith(case['category'][2]),
                                    case['category'])
                    requires = case['plugins']['requires']
                    requires = [requires] if isinstance(requires, str) \
                        else requires
                    self.assertIn('nsPlugin', requires)
                    self.assertEqual('scapyPlugin' in requires,
                                     bool(case.get('scapy')))
                    for field in ('setup', 'cmdUnderTest', 'expExitCode',
                                  'teardown'):
                        self.assertIn(field, case)

    def test_patterns_compile(self):
        for case in self.cases:
            if 'matchPattern' in case:
                with self.subTest(id=case['id']):
                    re.compile(case['matchPattern'])


if __name__ == '__main__':
    unittest.main()
