# SPDX-License-Identifier: GPL-2.0
"""Every tool that reads TAP reads it with flower.results.parse_tap().
Each tool's reader is pinned here against what the hand-written parser
it had before answered (tap_callers_golden.json, written by those
parsers before they were removed): the same TAP gives the same answer,
edge cases included (skip directives, a skip on a "not
ok", diagnostics after a "not ok", blank lines, plans with whitespace,
cases missing from the plan, numbers out of turn, result-like lines in
6.1's failure text, CRLF)."""

import importlib.util
import json
import os
import tempfile
import unittest

from tdc import compare, series_cases, tdc61

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'tap_callers_golden.json')) as _f:
    GOLDEN = json.load(_f)


def as_json(value):
    """`value` as the golden file holds it (tuples are lists)."""
    return json.loads(json.dumps(value))


def _stock_series():
    """kernel/stock-series/stock_series.py (a script, not a package)."""
    path = os.path.join(REPO, 'kernel', 'stock-series', 'stock_series.py')
    spec = importlib.util.spec_from_file_location('stock_series_pin', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- the TAP texts the removed parsers answered (tap_callers_golden.json) ---
TDC_TEXTS = {
    'plain': '''TAP version 13
1..4
ok 1 - aaaa first case
not ok 2 - 25cd Regression: ct_state
# stage: verify
#   matchJSON: $[1]: expected 1, got 0

ok 3 - bbbb third # skip no device
ok 4 - cccc
3 passed, 1 failed, 0 skipped
''',
    'missing cases': '1..5\nok 1 - aaaa x\nnot ok 2 - bbbb y\n',
    'more than the plan': '1..1\nok 1 - aaaa\nok 2 - bbbb\n',
    'no plan': 'ok 1 - aaaa\nnot ok 2 - bbbb\n# why\n',
    'empty': '',
    'plan only': 'TAP version 13\n1..3\n',
    'plan with whitespace': '  1..3  \nok 1 - aaaa\n',
    'two plans': '1..2\nok 1 - aaaa\n1..3\nok 2 - bbbb\n',
    'skip on not ok': 'not ok 1 - aaaa name # skip why\n# d\nok 2 - b\n',
    'skip without reason': 'ok 1 - aaaa name # skip\nok 2 - bbbb # skip \n',
    'diagnostics end at a plain line': (
        'not ok 1 - aaaa n\n# one\nplain text\n# not its\n'
        'not ok 2 - bbbb\n#two\n#\n'),
    'diagnostics of a pass are nobody\'s': (
        'ok 1 - aaaa\n# c1\nnot ok 2 - bbbb\n'),
    'a result inside diagnostics': (
        'not ok 1 - aaaa\n# ok 7 - zzzz\nok 2 - bbbb\n'),
    'same id twice': 'not ok 1 - aaaa\n# x\nok 2 - aaaa\n',
    'numbers out of turn': 'ok 5 - aaaa\nnot ok 1 - bbbb\n',
    'not a result': ('ok - aaaa\nok 1 aaaa\nnot ok 1 -\nok 1 - \n'
                     ' ok 1 - indented\nok 1 -  aaaa two spaces\n'),
    'name with a hash': 'ok 1 - aaaa a # b # skip c # d\n',
    'crlf': '1..2\r\nok 1 - aaaa n\r\nnot ok 2 - bbbb\r\n# d\r\n',
    'no newline at the end': '1..2\nok 1 - aaaa\nnot ok 2 - bbbb',
    'summary': '1..2\nok 1 - a\nok 2 - b\n2 passed, 0 failed, 0 skipped\n',
}

SIXONE_TEXTS = {
    'plain': '''1..3
ok 1 aaaa - first case
not ok 2 bbbb - second case
\tCommand exited with 2, expected 0
Error: bad.

ok 3 cccc - third # skipped - no device
''',
    'numbers out of turn are text': (
        'not ok 1 aaaa - x\n  ok 7 zzzz - in the output\nok 7 zzzz - y\n'
        'ok 2 bbbb - z\n'),
    'a result line repeated': 'ok 1 aaaa - x\nok 1 aaaa - x\nok 2 b - y\n',
    'skipped with dashes': 'ok 1 aaaa - a - b # skipped - c # skipped - d\n',
    'skipped without reason': 'ok 1 aaaa - n # skipped - \n',
    'tdc dialect is not 6.1': 'ok 1 - aaaa name\nok 1 aaaa - n\n',
    'text before the first result': 'junk\n\nok 1 aaaa - n\n  more\n',
    'empty': '',
    'crlf': 'not ok 1 aaaa - n\r\n\tline\r\nok 2 bbbb - m\r\n',
}


class PinnedAgainstTheOldParsers(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def tap_file(self, text):
        path = os.path.join(self.dir.name, 'x.tap')
        with open(path, 'w', newline='') as f:
            f.write(text)
        return path

    def test_stock_series_tap_results(self):
        tap_results = _stock_series().tap_results
        for name, text in TDC_TEXTS.items():
            with self.subTest(name):
                path = self.tap_file(text)
                self.assertEqual(as_json(tap_results(path)),
                                 GOLDEN['stock_series'][name])
        missing = os.path.join(self.dir.name, 'none.tap')
        self.assertEqual(tap_results(missing), {})

    def test_series_cases_tap_counts(self):
        for name, text in TDC_TEXTS.items():
            with self.subTest(name):
                path = self.tap_file(text)
                self.assertEqual(as_json(series_cases.tap_counts(path)),
                                 GOLDEN['series_cases'][name])

    def test_compare_parse_tap(self):
        for name, text in TDC_TEXTS.items():
            if name == 'skip without reason':
                continue        # test_compare_reads_every_skip_directive
            with self.subTest(name):
                path = self.tap_file(text)
                got = [(k, (r.status, r.name, r.detail)) for k, r in
                       compare.parse_tap(path).items()]
                self.assertEqual(as_json(got), GOLDEN['compare'][name])

    def test_compare_reads_every_skip_directive(self):
        # The one difference, accepted in 5b7f3d0: the old reader took a
        # "# skip" with no reason after it, or right after the id, for a
        # pass named "# skip".  tdc.py writes "# skip REASON" after a
        # name, which both read alike.
        path = self.tap_file(TDC_TEXTS['skip without reason'])
        got = {k: (r.status, r.name, r.detail) for k, r in
               compare.parse_tap(path).items()}
        self.assertEqual(got, {'aaaa': ('skip', 'name', ['']),
                               'bbbb': ('skip', '', [''])})
        self.assertEqual(GOLDEN['compare']['skip without reason'],
                         [['aaaa', ['pass', 'name # skip', []]],
                          ['bbbb', ['pass', '# skip', []]]])

    def test_tdc61_parse_tap(self):
        for name, text in SIXONE_TEXTS.items():
            with self.subTest(name):
                self.assertEqual(as_json(tdc61.parse_tap(text, [])),
                                 GOLDEN['tdc61'][name])


if __name__ == '__main__':
    unittest.main()
