# SPDX-License-Identifier: GPL-2.0
"""leniency.py: docs/leniency.md from the hand-written rows and two TAPs
of a make compare run: each row's results, the rows without cases, the
headline's counts."""

import contextlib
import io
import json
import os
import tempfile
import unittest

from flower import needs
from tdc import leniency
from tdc import leniency_data as data

# every warning a row must name (the others are no request's)
ALL_SAID = [w for w in leniency.all_warnings()
            if not (w[0] == 'MESSAGES' and w[1] in data.NEVER_MET)]

CORPUS = [
    {'id': 'aa01', 'name': 'a key without its prerequisite, ignored',
     'category': ['flower', 'lenient', 'leniency']},
    {'id': 'aa02', 'name': 'ours warns of it',
     'category': ['flower', 'warnings', 'leniency'],
     'cmdUnderTest': "tc filter add ... 2>&1 | grep -cF 'Warning: %s.'"
                     % needs.MESSAGES['TCP']},
    {'id': 'aa03', 'name': 'a mask without its key, ignored',
     'category': ['flower', 'errors', 'leniency']},
    {'id': 'aa04', 'name': 'nothing lenient', 'category': ['flower']},
]

TAP = {
    'ours': 'ok 1 - aa01 x\nok 2 - aa02 x\nok 3 - aa03 x\nok 4 - aa04 x\n',
    # stock gives no warning: aa02 fails there
    'stock': 'ok 1 - aa01 x\nnot ok 2 - aa02 x\n# stage: execute\n'
             '# exit code 1, expected 0\nok 3 - aa03 x\nok 4 - aa04 x\n',
}


def rows(*cases_of_row):
    """Rows named r0, r1, ... with these cases; the first names every
    warning but the second's, the second MESSAGES['TCP'] (aa02's)."""
    tcp = ('MESSAGES', 'TCP')
    out = []
    for n, cases in enumerate(cases_of_row):
        says = [w for w in ALL_SAID if w != tcp] if n == 0 else [tcp]
        out.append({'kind': 'r%d' % n, 'request': 'request %d' % n,
                    'stock': 'ignored', 'ours': 'ignored', 'says': says,
                    'cases': list(cases)})
    return out


class TestLeniency(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        os.makedirs(os.path.join(self.dir, 'tc-tests'))
        self.corpus(CORPUS)
        self.taps(TAP)
        self.out = os.path.join(self.dir, 'leniency.md')

    def corpus(self, cases):
        with open(os.path.join(self.dir, 'tc-tests', 'c.json'), 'w') as f:
            json.dump(cases, f)

    def taps(self, taps, seconds=True):
        for name, text in taps.items():
            base = os.path.join(self.dir, name)
            with open(base + '.commit', 'w') as f:
                f.write('abc1234\n' if name == 'ours' else 'def5678\n')
            with open(base + '.tap', 'w') as f:
                f.write(text)
            if seconds:
                with open(base + '.seconds', 'w') as f:
                    f.write('%s=600\n' % name)

    def run_main(self, the_rows):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = leniency.main(
                ['--ours', os.path.join(self.dir, 'ours.tap'),
                 '--stock', os.path.join(self.dir, 'stock.tap'),
                 '--corpus', os.path.join(self.dir, 'tc-tests'),
                 '--out', self.out], rows=the_rows)
        page = None
        if os.path.exists(self.out):
            with open(self.out) as f:
                page = f.read()
        return rc, out.getvalue(), err.getvalue(), page

    def row_line(self, page, kind):
        return next(line for line in page.splitlines()
                    if line.startswith('| request %s |' % kind[1:]))

    def test_all_pass_on_ours_and_the_headline_counts(self):
        rc, out, err, page = self.run_main(rows(['aa01', 'aa03'],
                                                ['aa02', 'aa01']))
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, '')
        headline = ('In short: 2 rows, 3 cases; ours passes 3 of 3; stock '
                    'passes 2 of 3 (fail aa02); of the cases stock fails '
                    'and ours passes, by likely cause: warnings 1.')
        self.assertIn(headline, out)
        self.assertIn(headline, page)
        self.assertTrue(self.row_line(page, 'r0').endswith(
            '| pass ×2 | pass ×2 |'))
        self.assertTrue(self.row_line(page, 'r1').endswith(
            '| pass ×2 | **fail** aa02; pass aa01 |'))
        # the head names the commits measured, the warnings are quoted
        self.assertIn('Commit measured: ours `abc1234`, stock `def5678`',
                      page.splitlines()[2])
        self.assertIn('| `MESSAGES[\'TCP\']` | %s | r1 |'
                      % needs.MESSAGES['TCP'], page)
        self.assertNotIn('ROW WITHOUT CASES', page)

    def test_a_case_failing_on_ours_shows_as_failing(self):
        self.taps({'ours': TAP['ours'].replace(
            'ok 3 - aa03', 'not ok 3 - aa03').replace(
            'aa03 x\n', 'aa03 x\n# stage: verify\n# matchJSON: $[0]: '
            'expected 1, got 2\n')})
        rc, out, err, page = self.run_main(rows(['aa01', 'aa03'],
                                                ['aa02']))
        self.assertEqual(rc, 0, err)
        self.assertIn('ours passes 2 of 3 (fail aa03); stock passes 2 of 3 '
                      '(fail aa02)', out)
        self.assertTrue(self.row_line(page, 'r0').endswith(
            '| **fail** aa03; pass aa01 | pass ×2 |'))
        self.assertIn('| aa03 | ours | fail | verify | matchJSON: $[0]: '
                      'expected 1, got 2 |', page)
        case = next(line for line in page.splitlines()
                    if line.startswith('| aa03 |'))
        self.assertIn('| **fail** | pass | ours |', case)

    def test_a_row_without_cases_is_reported(self):
        rc, out, err, page = self.run_main(rows(['aa01', 'aa03'], []))
        self.assertEqual(rc, 1)
        self.assertIn('ROW WITHOUT CASES: r1 (request 1)', err)
        self.assertIn('**1 row without any case: r1.**', out)
        self.assertIn('**ROW WITHOUT CASES: r1 (request 1)**', page)
        self.assertIn('| **none** | **no case** | **no case** |',
                      self.row_line(page, 'r1'))
        # aa02 (category warnings, looks for a warning) is now no row's
        self.assertIn('CASE OF NO ROW: aa02', err)

    def test_a_case_no_tap_reports_is_not_run(self):
        self.taps({'stock': 'ok 1 - aa01 x\nok 3 - aa03 x\n'})
        rc, out, err, page = self.run_main(rows(['aa01', 'aa03'],
                                                ['aa02']))
        self.assertEqual(rc, 1)
        self.assertIn('NOT RUN on stock: aa02', err)
        self.assertIn('stock passes 2 of 3 (not run aa02)', out)
        self.assertTrue(self.row_line(page, 'r1').endswith(
            '| pass | **not run** |'))

    def test_a_warning_its_row_does_not_name(self):
        the_rows = rows(['aa01', 'aa02', 'aa03'])
        rc, out, err, page = self.run_main(the_rows)
        self.assertEqual(rc, 1)
        self.assertIn("WARNING OF NO ROW OF ITS CASE: case aa02 looks for "
                      "MESSAGES['TCP']", err)
        self.assertIn("WARNING OF NO ROW: MESSAGES['TCP']", err)

    def test_an_unfinished_run_or_unknown_case_writes_nothing(self):
        os.remove(os.path.join(self.dir, 'ours.seconds'))
        rc, out, err, page = self.run_main(rows(['aa01'], ['aa02']))
        self.assertEqual((rc, page), (2, None))
        self.assertIn('ours.seconds', err)
        self.taps(TAP)
        rc, out, err, page = self.run_main(rows(['aa01', 'ffff'], ['aa02']))
        self.assertEqual((rc, page), (2, None))
        self.assertIn('row r0: case ffff is not in the corpus', err)

    def test_looked_for_takes_the_longest_text(self):
        case = {'cmdUnderTest': needs.MESSAGES['L4']}
        self.assertEqual(leniency.looked_for(case), [('MESSAGES', 'L4')])


class TestData(unittest.TestCase):
    def test_rows_are_difftest_kinds_and_their_cases_are_in_the_corpus(self):
        from difftest.lenient import LENIENT_KINDS
        self.assertEqual(tuple(r['kind'] for r in data.ROWS), LENIENT_KINDS)
        corpus = leniency.load_corpus(os.path.join(leniency.REPO,
                                                   'tc-tests'))
        self.assertEqual(leniency.data_errors(data.ROWS, corpus), [])
        self.assertTrue(all(r['cases'] for r in data.ROWS))

    def test_every_case_of_the_categories_is_a_rows(self):
        corpus = leniency.load_corpus(os.path.join(leniency.REPO,
                                                   'tc-tests'))
        named = set(leniency.case_ids(data.ROWS))
        self.assertEqual(sorted(cid for cid, (_, case) in corpus.items()
                                if leniency.exercising(case) and
                                cid not in named), [])


if __name__ == '__main__':
    unittest.main()
