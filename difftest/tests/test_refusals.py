# SPDX-License-Identifier: GPL-2.0
"""Ours' answer to a generated filter, as model.predict() gives it, and
what compare.py makes of a refusal (series step 22, docs/leniency.md).

Ours refuses only what stock refuses: a refusal stock does not make is
our bug, whatever ours says (no refusal is by design any more: the
classes refused-prerequisite, refused-range and refused-flag-bits are
gone).  Where both kernels agree, ours' answer must still be its
model's: the errno and extack of a refusal, one of the model's warnings
(or none) on an acceptance.  Host only."""

import random
import unittest

from difftest import compare as C
from difftest import gen as G
from difftest import model as M
from difftest import keys as K
from flower import needs

ACCEPT = dict(err=0, msg='', bits='')
W = needs.WARNINGS


def flt(proto, keys, vlan_eth=None, ip_proto=None, **kw):
    f = dict(proto=proto, vlan_eth=vlan_eth, cvlan_eth=None,
             ip_proto=ip_proto, keys=[list(k) for k in keys], indev=None,
             **kw)
    p = M.predict(f)
    f['refusal'], f['warnings'] = p['refusal'], p['warnings']
    return f


def refused(err, msg):
    return dict(err=err, msg=msg, bits='')


class TestPrediction(unittest.TestCase):
    def test_valid_filters_are_accepted_silently(self):
        for f in (flt('802.1q', [('vlan_id', 100, None)], 'ip'),
                  flt('ip', [('ip_flags', 2, 3)]),
                  flt('ip', [('tcp_dst', 80, None),
                             ('tcp_flags', 0x12, 0xfff)], ip_proto=6),
                  # IPv4 addresses under protocol all: kept, no warning
                  flt('all', [('ipv4_dst', 1, None)])):
            self.assertIsNone(f['refusal'], f)
            self.assertEqual(f['warnings'], [], f)

    def test_lenient_requests_are_accepted_with_a_warning(self):
        for f, want in (
                (flt('802.1q', [('vlan_id', 5000, None)]), W['vlan_id']),
                (flt('802.1q', [('vlan_prio', 9, None)]), W['vlan_prio']),
                (flt('ip', [('ip_flags', 2, 0xf0000000)]), W['ip_flags']),
                (flt('ip', [('tcp_flags', 0x12, 0x800 << 4)], ip_proto=6),
                 W['tcp_flags']),
                # no mask attribute: all 16 bits
                (flt('ip', [('tcp_flags', 0x12, None)], ip_proto=6),
                 W['tcp_flags']),
                (flt('ip', [('tcp_dst', 80, None)], ip_proto=17),
                 needs.MESSAGES['TCP']),
                # num_of_vlans 1 makes "ip" a tag's TPID: no IP keys
                (flt('ip', [('num_of_vlans', 1, None), ('ip_tos', 4, None)]),
                 needs.MESSAGES['IP']),
                (flt('ipv6', [('ipv4_src', 1, None)]), W['addr_family']),
                (flt('ip', [('ipv4_src', 1, None), ('ipv6_dst', 1, None)]),
                 needs.MESSAGES['NO_IPV4_ADDRS']),
                (flt('ip', [('ipv4_src', 1, None)], tc_proto='ipv6'),
                 W['eth_type']),
                (flt('802.1q', [('vlan_id', 1, None)], no_eth_type=True),
                 needs.MESSAGES['VLAN']),
                (flt('ipv6', [('enc_ipv6_dst', 1, None),
                              ('enc_ipv4_src', 2, None)]),
                 needs.MESSAGES['NO_ENC_IPV6_ADDRS']),
                (flt('ip', [], extra=[[K.A['KEY_TCP_DST_MASK'], '00ff']]),
                 W['mask_without_key']),
                (flt('ip', [], extra=[[M.IN_HW_COUNT, '01000000']]),
                 W['in_hw_count']),
                (flt('ip', [], extra=[[106, '']]), W['unknown_attr']),
                (flt('ip', [], ip_proto=6,
                     long={str(K.A['KEY_IP_PROTO']): 3}), W['attr_long'])):
            self.assertIsNone(f['refusal'], f)
            self.assertEqual(f['warnings'][:1], [want], f)

    def test_the_first_warning_in_ours_order(self):
        # the liberal parse's warnings come first, then eth_type, tags
        f = flt('802.1q', [('vlan_id', 5000, None)], 'ip',
                extra=[[M.IN_HW_COUNT, '00000000']])
        self.assertEqual(f['warnings'], [W['in_hw_count'], W['vlan_id']])
        f = flt('ip', [('vlan_id', 5000, None)], tc_proto='ipv6')
        self.assertEqual(f['warnings'], [W['eth_type'],
                                         needs.MESSAGES['VLAN']])

    def test_what_both_still_refuse(self):
        E = M.EINVAL
        self.assertEqual(flt('ip', [('ip_flags', 2, None)])['refusal'],
                         [E, 'Missing flags mask', None])
        self.assertEqual(flt('mpls_uc', [('mpls_bos', 2, None)])['refusal'],
                         [E, 'Bottom Of Stack (BOS) must be 0 or 1', None])
        # out of place, the same MPLS value is ignored
        f = flt('ip', [('mpls_bos', 2, None)])
        self.assertIsNone(f['refusal'])
        self.assertEqual(f['warnings'], [needs.MESSAGES['MPLS']])

    def test_applied_keys(self):
        f = flt('ip', [('ipv4_src', 1, None), ('ipv6_dst', 1, None),
                       ('tcp_dst', 1, None)], ip_proto=17)
        self.assertEqual(M.applied(f), {'ipv4_src'})
        self.assertEqual(M.applied(flt('802.1q', [('vlan_id', 1, None)],
                                       no_eth_type=True)), set())

    def test_model_agrees_with_the_fuzzers(self):
        # stress/fuzz.py's model of ours (its answers are checked against
        # the kernel by make stress): both must predict the same refusal,
        # errno and extack, for every filter the generator makes.  A fuzz
        # model from before step 22 (it refuses a key without its
        # prerequisite) is compared on the filters ours takes silently.
        from stress import fuzz as F
        model = F.Model({G.RX_DEV: 2, 'lo': 1})

        def fuzz(f):
            attrs = [(t, bytes.fromhex(h), None) for t, h in f['attrs']]
            try:
                model.fl_parse(attrs, False, K.PROTOS[M.tc_proto(f)])
                return None
            except F.Err as e:
                return [sorted(e.codes), e.msg]
        probe = flt('ip', [('tcp_dst', 80, None)], ip_proto=17)
        probe['attrs'] = G.encode_filter(probe)
        lenient = fuzz(probe) is None
        n = 0
        for seed in range(1, 9):
            b = G.gen_batch(random.Random(seed), 130, cover=True)
            for f in b['filters']:
                if C.range_or_hash(f):
                    # not in stress/fuzz.py's model of ours yet (issue 31;
                    # test_ranges.py checks these)
                    continue
                if (f['warnings'] or f.get('lenient')) and not lenient:
                    continue
                got = f['refusal'] and [[f['refusal'][0]], f['refusal'][1]]
                self.assertEqual(got, fuzz(f), f['desc'])
                n += bool(got)
        self.assertGreater(n, 10)     # refusals among them


class TestRefusalClass(unittest.TestCase):
    def test_no_refusal_is_by_design(self):
        for c in ('refused-prerequisite', 'refused-range',
                  'refused-flag-bits', 'refused-stacked-vlan',
                  'refused-unimplemented'):
            self.assertNotIn(c, C.DESIGN)
        self.assertIn('ours-refuses-what-stock-takes', C.OURS_BUGS)
        self.assertTrue(all(f['refusal'][2] is None
                            for seed in range(1, 4) for f in
                            G.gen_batch(random.Random(seed), 130)['filters']
                            if f['refusal']))

    def test_a_refusal_stock_does_not_make_is_our_bug(self):
        # whatever ours says: its old messages, the prerequisite's, or
        # one that looks like a declared difference
        for f, o in (
                (flt('802.1q', [('vlan_id', 5000, None)]),
                 refused(22, 'VLAN id must be below 4096')),
                (flt('ip', [('ip_flags', 2, 0xf0000000)]),
                 refused(95, 'Unsupported flower key flags: only frag and '
                         'firstfrag')),
                (flt('ip', [('tcp_dst', 80, None)], ip_proto=17),
                 refused(22, 'Key requires ip_proto tcp')),
                (flt('802.1q', [('vlan_id', 100, None)], 'ip'),
                 refused(22, 'VLAN id must be below 4096')),
                (flt('ip', [], extra=[[106, '']]),
                 refused(95, 'Unknown flower attribute type'))):
            self.assertEqual(C.refusal_class(f, o, ACCEPT),
                             'ours-refuses-what-stock-takes', f)
        self.assertIsNone(C.refusal_class(
            flt('ip', []), ACCEPT, refused(22, 'x')))


class TestModelCheck(unittest.TestCase):
    """analyse(): ours' answer must be its model's even where stock
    agrees (both accept, or both refuse)."""

    def run_one(self, f, o, s):
        cases = dict(batches=[dict(filters=[f], packets=[dict(hex='ff' * 60)])])
        res = lambda x: dict(batches=[dict(filters=[x], sent=[1],    # noqa: E731
                                           reached='1')])
        return C.analyse(cases, res(o), res(s))[1]

    def test_ours_warning_is_checked(self):
        f = flt('802.1q', [('vlan_id', 5000, None)])
        acc = dict(err=0, msg='', bits='1')
        warned = dict(acc, msg=W['vlan_id'])
        self.assertEqual(self.run_one(f, warned, acc), [])
        divs = self.run_one(f, acc, acc)
        self.assertEqual([(d['cls'], d['what']) for d in divs], [
            (None, 'ours accepts with no warning, its model predicts a '
             'warning ("%s")' % W['vlan_id'])])
        other = dict(acc, msg=W['vlan_prio'])
        self.assertEqual(len(self.run_one(f, other, acc)), 1)
        # no warning predicted: none may come
        g = flt('802.1q', [('vlan_id', 100, None)], 'ip')
        self.assertEqual(len(self.run_one(g, warned, acc)), 1)
        self.assertEqual(self.run_one(g, acc, acc), [])

    def test_ours_refuses_what_both_should_take(self):
        f = flt('802.1q', [('vlan_id', 5000, None)])
        acc = dict(err=0, msg='', bits='1')
        d = self.run_one(f, refused(22, 'VLAN id must be below 4096'), acc)
        self.assertEqual([x['cls'] for x in d],
                         ['ours-refuses-what-stock-takes'])

    def test_its_reproducer_expects_stocks_answer(self):
        f = flt('ip', [('tcp_dst', 80, None)], ip_proto=17,
                extra=[[106, '']], tc_proto='ipv6')
        f.update(attrs=G.encode_filter(f), desc=G.describe(f))
        o, s = refused(22, 'Key requires ip_proto tcp'), dict(ACCEPT)
        d = self.run_one(f, o, s)[0]
        case = C.tdc_case(dict(d, min_filter=None, filter_obj=f,
                               min_errs=(o, s)), 1)
        self.assertEqual(case['expExitCode'], '0')
        self.assertEqual(case['matchCount'], '1')
        # the request as sent: the protocol, an unknown type by number
        self.assertIn('--protocol 0x86dd', case['cmdUnderTest'])
        self.assertIn('--raw 106=', case['cmdUnderTest'])
        self.assertIn('--raw KEY_ETH_TYPE=0800', case['cmdUnderTest'])

    def test_agreeing_answers(self):
        acc = dict(err=0, msg='', bits='1')
        self.assertEqual(self.run_one(flt('ip', []), acc, acc), [])
        f = flt('ip', [('ip_flags', 2, None)])
        no = refused(22, 'Missing flags mask')
        self.assertEqual(self.run_one(f, no, no), [])
        d = self.run_one(f, refused(22, 'other'), no)
        self.assertEqual([x['cls'] for x in d], [None])


if __name__ == '__main__':
    unittest.main()
