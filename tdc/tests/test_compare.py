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

    def stock_failure(self, *lines):
        """stock's Result of a case that failed with these '#' lines."""
        return self.tap('s3', 'not ok 1 - bbb1 x\n' + ''.join(
            '# %s\n' % line for line in lines))['bbb1']

    def test_classification_only_on_a_counter_mismatch(self):
        # a packet case explains a stock failure as classification only
        # when the failing verify is a counter check (before, any stock
        # failure at verify of a case with scapy was "classification")
        case = {'id': 'bbb1', 'category': ['flower'],
                'scapy': {'iface': 'x', 'count': 1, 'packet': 'Ether()'},
                'verifyCmd': '$TC -s -j filter show dev $DEV1 ingress'}
        show = 'command: /sbin/tc -s -j filter show dev v0 ingress'
        ours = self.tap('o', OURS)['aaa3']

        def cause(*lines, **kw):
            return compare.classify(dict(case, **kw), ours,
                                    self.stock_failure(*lines))
        self.assertEqual(cause('stage: verify', show, 'matchJSON: $[1].'
                               'options.actions[0].stats.packets: expected '
                               '1, got 0'), 'classification')
        self.assertEqual(cause(
            'stage: verify', 'command: /sbin/tc -s class show dev fla',
            "matchPattern '^class htb 1:10 .* Sent 84 bytes 2 pkt ': 0 "
            "matches, expected 1"), 'classification')
        # the verify command itself failed: no counter was compared
        self.assertEqual(cause('stage: verify', show, "verify command "
                               "'/sbin/tc -s -j filter show dev v0 ingress' "
                               "failed: exit code 1, expected 0"), 'other')
        # a key dumped otherwise is a dump difference, not classification
        self.assertEqual(cause('stage: verify', show, 'matchJSON: $[1].'
                               'options.keys.dst_ip: expected "10.0.0.1", '
                               'got null'), 'dump')
        self.assertEqual(cause('stage: execute', 'command: /sbin/tc filter '
                               'add dev v0 ingress flower', 'exit code 2, '
                               'expected 0'), 'other')
        # nor is it the zero-mask bug (which stock shows by counting none)
        self.assertEqual(cause('stage: verify', show, "matchJSON (exact): "
                               "$[1].options.keys: no key 'dst_ip'",
                               cmdUnderTest='$TC filter add dev $DEV1 '
                               'ingress flower dst_ip 0.0.0.0/0'), 'dump')

    def test_dump_only_on_a_dump_mismatch(self):
        # dump explains a stock failure only when its verify dumps filters
        # (tc filter show/get, $FLNL show) and the output did not match
        # (before: any stock failure at verify of a case naming "filter
        # show" anywhere, its setup included)
        case = {'id': 'bbb1', 'category': ['flower'],
                'setup': ['$TC filter show dev $DEV1 ingress'],
                'verifyCmd': '$TC -j filter show dev $DEV1 ingress'}
        ours = self.tap('o', OURS)['aaa3']

        def cause(case, *lines):
            return compare.classify(case, ours, self.stock_failure(*lines))
        show = 'command: /sbin/tc -j filter show dev v0 ingress'
        exact = ('stage: verify', show, "matchJSON (exact): $[1].options."
                 "keys: no key 'vlan_ethtype'")
        self.assertEqual(cause(case, *exact), 'dump')
        # and the report's "why" gives that line
        self.assertIn("no key 'vlan_ethtype'",
                      self.stock_failure(*exact).why())
        get = dict(case, verifyCmd='$TC filter get dev $DEV1 ingress '
                   'prio 1 handle 1 protocol ip flower')
        self.assertEqual(cause(get, 'stage: verify', 'command: /sbin/tc '
                               'filter get dev v0 ingress prio 1 handle 1 '
                               'protocol ip flower', "matchPattern 'dst_ip "
                               "10.0.0.1': 0 matches, expected 1"), 'dump')
        flnl = dict(case, verifyCmd='$FLNL show --dev $DEV1 --protocol 0')
        self.assertEqual(cause(flnl, 'stage: verify', 'command: env x '
                               '/usr/bin/python3 -P -m tdc.flowernl show '
                               '--dev v0 --protocol 0', 'matchJSON: $[19].'
                               'options.TCA_FLOWER_KEY_ETH_TYPE: expected '
                               '34916, got 2048'), 'dump')
        # a case not in the corpus: the diagnostic's command says it
        self.assertEqual(cause({}, 'stage: verify', show, 'matchJSON: $[1]'
                               '.options.keys.ip_proto: expected "tcp", got '
                               'null'), 'dump')
        # the verify is no filter dump (filter show only in its setup)
        actions = dict(case, verifyCmd='$TC -j actions list action gact')
        self.assertEqual(cause(actions, 'stage: verify', 'command: /sbin/tc '
                               '-j actions list action gact', 'matchJSON: '
                               '$[0].actions[0].ref: expected 1, got 2'),
                         'other')
        # the dump command failed, printed no JSON, or a counter differs
        for line in ("verify command '/sbin/tc -j filter show dev v0 "
                     "ingress' failed: exit code 2, expected 0",
                     'output is not JSON: Expecting value: line 1 column 1',
                     'matchJSON: $[1].options.actions[0].stats.packets: '
                     'expected 0, got 1'):
            self.assertEqual(cause(case, 'stage: verify', show, line),
                             'other', line)

    def test_unexplained_stock_failure_is_listed_as_other(self):
        # a case failing on stock for no declared cause stays in the
        # report, under "other"
        corpus = dict(CORPUS, aaa2=dict(CORPUS['aaa2'],
                                        verifyCmd='$TC -s -j filter show'))
        stock = STOCK.replace('# matchJSON: $[1].options.actions[0].stats.'
                              'packets: expected 1, got 0',
                              "# verify command '/sbin/tc -s -j filter "
                              "show' failed: exit code 1, expected 0")
        text = compare.report(self.tap('o', OURS), self.tap('s', stock),
                              corpus, 'o.tap', 's.tap')
        self.assertIn('| other | 1 |', text)
        other = text[text.index('### other: '):]
        self.assertIn('| aaa2 |', other)

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

    def test_another_variant_is_named_where_stock_was(self):
        text = compare.report(self.tap('o', OURS), self.tap('s', STOCK),
                              CORPUS, 'o.tap', 's.tap',
                              stock_name='stock-next')
        self.assertTrue(text.startswith('# Our flower against stock-next\n'))
        self.assertIn('| stock-next | 5 | 2 | 2 | 1 | - |', text)
        self.assertIn('| id | case | ours | stock-next | stage |', text)
        self.assertNotIn('| stock |', text)


if __name__ == '__main__':
    unittest.main()
