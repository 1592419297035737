# SPDX-License-Identifier: GPL-2.0
"""compare.py: TAP parsing and the grouping of differences by cause."""

import os
import tempfile
import unittest

from tdc import compare

OURS = """ok 1 - aaa1 same key twice refused
ok 2 - aaa2 dst_ip /0 matches all
ok 3 - aaa3 plain add
not ok 4 - aaa4 a case ours fails
# stage: verify
# matchJSON: $[1].options.keys.dst_ip: expected "10.0.0.1", got null
ok 5 - aaa5 skipped on both # skip no scapy
"""

STOCK = """not ok 1 - aaa1 same key twice refused
# stage: verify
# pattern not found; printed: RTNETLINK answers: File exists
not ok 2 - aaa2 dst_ip /0 matches all
# stage: verify
# matchJSON: $[1].options.actions[0].stats.packets: expected 1, got 0
ok 3 - aaa3 plain add
ok 4 - aaa4 a case ours fails
ok 5 - aaa5 skipped on both # skip no scapy
"""

CORPUS = {
    'aaa1': {'id': 'aaa1', 'category': ['flower', 'masks'],
             'cmdUnderTest': 'tc filter add ... dst_ip 10.1.0.2/24',
             'matchPattern': '^Error: A filter with the same key exists '
                             'in this flower instance\\.$'},
    'aaa2': {'id': 'aaa2', 'category': ['flower'],
             'cmdUnderTest': 'tc filter add ... dst_ip 0.0.0.0/0',
             'scapy': {'iface': 'x', 'count': 1, 'packet': 'Ether()'}},
    'aaa4': {'id': 'aaa4', 'category': ['flower']},
}


class TestCompare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def tap(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, 'w') as f:
            f.write(text)
        return compare.parse_tap(path)

    def test_parse_tap(self):
        stock = self.tap('stock.tap', STOCK)
        self.assertEqual([r.status for r in stock.values()],
                         ['fail', 'fail', 'pass', 'pass', 'skip'])
        self.assertEqual(stock['aaa2'].stage(), 'verify')
        self.assertIn('expected 1, got 0', stock['aaa2'].why())

    def test_causes(self):
        ours, stock = self.tap('o', OURS), self.tap('s', STOCK)
        self.assertEqual(compare.classify(CORPUS['aaa1'], ours['aaa1'],
                                          stock['aaa1']), 'duplicate')
        self.assertEqual(compare.classify(CORPUS['aaa2'], ours['aaa2'],
                                          stock['aaa2']), 'zero-mask')
        self.assertEqual(compare.classify(CORPUS['aaa4'], ours['aaa4'],
                                          stock['aaa4']), 'ours')

    def test_tunnel_zero_mask_is_the_zero_mask_cause(self):
        # d718 (found by difftest): enc_dst_ip 0.0.0.0/0 on a Geneve
        # device, counted on ours only
        from tdc import corpus
        case = next(c for c in corpus.load_file(os.path.join(
            compare.REPO, 'tc-tests/filters/flower/regressions.json'))
            if c['id'] == 'd718')
        ours = self.tap('o2', 'ok 1 - d718 x\n')['d718']
        stock = self.tap('s2', 'not ok 1 - d718 x\n# stage: verify\n'
                         '# matchJSON: $[1].options.actions[0].stats.'
                         'packets: expected 1, got 0\n')['d718']
        self.assertEqual(compare.classify(case, ours, stock), 'zero-mask')

    def test_no_one_mask_cause(self):
        # several masks per prio, as stock: a second mask on a prio is no
        # cause of difference any more; such a case is "other"
        self.assertNotIn('mask', [key for key, _, _ in compare.CAUSES])
        case = {'id': 'aaa6', 'category': ['flower', 'masks'],
                'cmdUnderTest': 'tc filter add ... dst_ip 10.0.0.0/16',
                'matchPattern': "Mask differs from this prio's mask"}
        ours, stock = self.tap('o', OURS), self.tap('s', STOCK)
        self.assertEqual(compare.classify(case, ours['aaa2'],
                                          stock['aaa1']), 'other')

    def test_replace_mask_cause(self):
        # stock refuses a replace across masks: by design, by category only
        case = {'id': 'aaa7', 'category': ['flower', 'replace-mask'],
                'cmdUnderTest': 'tc filter replace ... dst_ip 10.0.0.0/16'}
        ours, stock = self.tap('o', OURS), self.tap('s', STOCK)
        self.assertEqual(compare.classify(case, ours['aaa3'], stock['aaa1']),
                         'replace-mask')
        other = dict(case, category=['flower', 'masks'])
        self.assertNotEqual(compare.classify(other, ours['aaa3'],
                                             stock['aaa1']), 'replace-mask')
        # stock passing is no difference to explain
        self.assertNotEqual(compare.classify(case, ours['aaa3'],
                                             stock['aaa3']), 'replace-mask')

    def test_first_fragment_cause(self):
        case = {'id': 'aaa8', 'category': ['flower', 'first-fragment'],
                'scapy': {'iface': 'x', 'count': 1, 'packet': 'Ether()'}}
        ours, stock = self.tap('o', OURS), self.tap('s', STOCK)
        self.assertEqual(compare.classify(case, ours['aaa3'], stock['aaa2']),
                         'first-fragment')
        self.assertEqual(compare.classify(dict(case, category=['flower']),
                                          ours['aaa3'], stock['aaa2']),
                         'classification')

    def test_bind_leak_cause(self):
        # a stock failure of a case tagged bind-leak is that stock bug;
        # untagged, the same results are no declared cause
        case = {'id': 'aaa8', 'category': ['flower', 'bind-leak']}
        ours, stock = self.tap('o', OURS), self.tap('s', STOCK)
        self.assertEqual(compare.classify(case, ours['aaa3'], stock['aaa2']),
                         'bind-leak')
        self.assertNotEqual(compare.classify(dict(case, category=['flower']),
                                             ours['aaa3'], stock['aaa2']),
                            'bind-leak')

    def test_warning_cause(self):
        # ours' warnings, which stock never gives: by category, or by a
        # warning text of flower.needs in the case
        from flower import needs
        ours, stock = self.tap('o', OURS), self.tap('s', STOCK)
        case = {'id': 'aaa9', 'category': ['flower', 'warnings'],
                'cmdUnderTest': 'tc filter add ... 2>&1 | grep -cF x'}
        self.assertEqual(compare.classify(case, ours['aaa3'], stock['aaa1']),
                         'warnings')
        named = {'id': 'aaa9', 'category': ['flower'],
                 'cmdUnderTest': "tc ... | grep -cF 'Warning: %s.'"
                 % needs.WARNINGS['mask_without_key']}
        self.assertEqual(compare.classify(named, ours['aaa3'],
                                          stock['aaa1']), 'warnings')
        # stock passing is no difference to explain
        self.assertNotEqual(compare.classify(case, ours['aaa3'],
                                             stock['aaa3']), 'warnings')
        self.assertEqual(compare.WARNINGS_CATEGORY, 'warnings')

    def test_no_unsupported_cause(self):
        # every key is implemented: nothing ours refuses as unsupported
        self.assertNotIn('unsupported', [k for k, _, _ in compare.CAUSES])

    def test_refusal_wording_cause(self):
        from flower import needs
        ours, stock = self.tap('o', OURS), self.tap('s', STOCK)
        for msg in ('Invalid flower flags', needs.SKIP_SW_MSG):
            case = {'id': 'aaaa', 'category': ['flower', 'errors'],
                    'cmdUnderTest': "$FLNL batch --expect 22 '%s' ..." % msg}
            self.assertEqual(compare.classify(case, ours['aaa3'],
                                              stock['aaa1']), 'extack', msg)

    def test_report_counts_and_lists_only_differences(self):
        text = compare.report(self.tap('o', OURS), self.tap('s', STOCK),
                              CORPUS, 'o.tap', 's.tap', {'ours': 90})
        self.assertIn('| ours | 5 | 3 | 1 | 1 | 1.5 min |', text)
        self.assertIn('| stock | 5 | 2 | 2 | 1 | - |', text)
        self.assertIn('2 cases give the same result on both, 3 differ.',
                      text)
        for cid in ('aaa1', 'aaa2', 'aaa4'):
            self.assertIn('| %s |' % cid, text)
        for cid in ('aaa3', 'aaa5'):
            self.assertNotIn('| %s |' % cid, text)


if __name__ == '__main__':
    unittest.main()
