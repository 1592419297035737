# SPDX-License-Identifier: GPL-2.0
"""A refusal is "by design" only where gen.py's model predicts it, errno
and extack exactly (issue 21, audit finding 1).

Before, compare.refusal_class() filed a refusal by the extack's prefix
alone: a valid vlan_id 100 refused with "VLAN id must be below 4096", a
valid firstfrag refused with "Unsupported flower key flags", a tcp_dst
refused with "Unsupported flower attribute ..." all came back by design.
Each test_*_is_our_bug below failed on that code."""

import random
import unittest

from difftest import compare as C
from difftest import gen as G
from difftest import model as M
from difftest import keys as K

ACCEPT = dict(err=0, msg='', bits='')


def flt(proto, keys, vlan_eth=None, ip_proto=None):
    f = dict(proto=proto, vlan_eth=vlan_eth, cvlan_eth=None,
             ip_proto=ip_proto, keys=[list(k) for k in keys], indev=None)
    f['refusal'] = M.predict_refusal(f)
    return f


def refused(err, msg):
    return dict(err=err, msg=msg, bits='')


class TestPrediction(unittest.TestCase):
    def test_valid_filters_are_accepted(self):
        for f in (flt('802.1q', [('vlan_id', 100, None)], 'ip'),
                  flt('ip', [('ip_flags', 2, 3)]),
                  flt('ip', [('tcp_dst', 80, None),
                             ('tcp_flags', 0x12, 0xfff)], ip_proto=6)):
            self.assertIsNone(f['refusal'], f)

    def test_declared_differences(self):
        self.assertEqual(
            flt('802.1q', [('vlan_id', 5000, None)])['refusal'],
            [22, 'VLAN id must be below 4096', 'refused-range'])
        self.assertEqual(
            flt('ip', [('ip_flags', 2, 0xf0000000)])['refusal'],
            [95, M.FLAGS_MSG, 'refused-flag-bits'])
        self.assertEqual(
            flt('ip', [('tcp_flags', 0x12, 0x800 << 4)], ip_proto=6)['refusal'],
            [22, M.TCP_FLAGS_MSG, 'refused-range'])
        # no mask attribute: all 16 bits
        self.assertEqual(
            flt('ip', [('tcp_flags', 0x12, None)], ip_proto=6)['refusal'][1],
            M.TCP_FLAGS_MSG)
        self.assertEqual(
            flt('ip', [('tcp_dst', 80, None)], ip_proto=17)['refusal'],
            [22, 'Key requires ip_proto tcp', 'refused-prerequisite'])
        # num_of_vlans 1 makes "ip" a tag's TPID: no IP keys
        self.assertEqual(
            flt('ip', [('num_of_vlans', 1, None),
                       ('ip_tos', 4, None)])['refusal'][1],
            'Key requires protocol ip or ipv6')

    def test_model_agrees_with_the_fuzzers(self):
        # stress/fuzz.py's model of ours (its answers are checked against
        # the kernel by make stress): both must predict the same answer,
        # errno and extack, for every filter the generator makes
        from stress import fuzz as F
        model = F.Model({G.RX_DEV: 2, 'lo': 1})
        n = 0
        for seed in range(1, 9):
            b = G.gen_batch(random.Random(seed), 130, cover=True)
            for f in b['filters']:
                if C.range_or_hash(f):
                    # not in stress/fuzz.py's model of ours yet (issue 31;
                    # test_ranges.py checks these)
                    continue
                attrs = [(t, bytes.fromhex(h), None) for t, h in f['attrs']]
                try:
                    model.fl_parse(attrs, False, K.PROTOS[f['proto']])
                    want = None
                except F.Err as e:
                    want = [sorted(e.codes), e.msg]
                got = f['refusal'] and [[f['refusal'][0]], f['refusal'][1]]
                self.assertEqual(got, want, f['desc'])
                n += bool(want)
        self.assertGreater(n, 40)     # refusals among them


class TestRefusalClass(unittest.TestCase):
    def test_predicted_refusal_is_by_design(self):
        f = flt('802.1q', [('vlan_id', 5000, None)])
        self.assertEqual(C.refusal_class(
            f, refused(22, 'VLAN id must be below 4096'), ACCEPT),
            'refused-range')

    def test_valid_vlan_id_refused_is_our_bug(self):
        f = flt('802.1q', [('vlan_id', 100, None)], 'ip')
        self.assertIsNone(C.refusal_class(
            f, refused(22, 'VLAN id must be below 4096'), ACCEPT))

    def test_valid_firstfrag_refused_is_our_bug(self):
        f = flt('ip', [('ip_flags', 2, 3)])
        self.assertIsNone(C.refusal_class(
            f, refused(95, 'Unsupported flower key flags: only frag and '
                       'firstfrag'), ACCEPT))

    def test_tcp_dst_refused_as_unsupported_is_our_bug(self):
        f = flt('ip', [('tcp_dst', 80, None)], ip_proto=6)
        self.assertIsNone(C.refusal_class(
            f, refused(95, 'Unsupported flower attribute '
                       'TCA_FLOWER_KEY_TCP_DST'), ACCEPT))

    def test_tcp_flags_mask_0x800_refused_is_our_bug(self):
        f = flt('ip', [('tcp_flags', 0x800, 0x800)], ip_proto=6)
        self.assertIsNone(C.refusal_class(
            f, refused(22, M.TCP_FLAGS_MSG), ACCEPT))

    def test_another_message_or_errno_is_our_bug(self):
        f = flt('802.1q', [('vlan_id', 5000, None)])
        for o in (refused(22, 'VLAN priority must be below 8'),
                  refused(95, 'VLAN id must be below 4096')):
            self.assertIsNone(C.refusal_class(f, o, ACCEPT))

    def test_no_class_hides_regressions(self):
        # ours never emits "Stacked VLAN ..." any more, and the generator
        # never sends an attribute ours does not implement
        self.assertNotIn('refused-stacked-vlan', C.DESIGN)
        self.assertNotIn('refused-unimplemented', C.DESIGN)
        classes = {f['refusal'][2] for seed in range(1, 6) for f in
                   G.gen_batch(random.Random(seed), 130)['filters']
                   if f['refusal']}
        self.assertLessEqual(set(C.DESIGN) - {'first-fragment-l4'}, classes)


class TestModelCheck(unittest.TestCase):
    """analyse(): ours' answer must be its model's even where stock
    agrees (both accept, or both refuse)."""

    def run_one(self, f, o, s):
        cases = dict(batches=[dict(filters=[f], packets=[dict(hex='ff' * 60)])])
        res = lambda x: dict(batches=[dict(filters=[x], sent=[1],    # noqa: E731
                                           reached='1')])
        return C.analyse(cases, res(o), res(s))[1]

    def test_ours_accepts_what_its_model_refuses(self):
        f = flt('802.1q', [('vlan_id', 5000, None)])
        acc = dict(err=0, msg='', bits='1')
        divs = self.run_one(f, acc, acc)
        self.assertEqual([(d['cls'], d['what']) for d in divs], [
            (None, 'ours accepts, its model predicts refusal (22: VLAN id '
             'must be below 4096)')])

    def test_its_reproducer_expects_the_models_answer(self):
        f = flt('802.1q', [('vlan_id', 5000, None)])
        f.update(attrs=G.encode_filter(f), desc=G.describe(f))
        acc = dict(err=0, msg='', bits='1')
        d = self.run_one(f, acc, acc)[0]
        case = C.tdc_case(dict(d, min_filter=None, filter_obj=f), 1)
        self.assertEqual(case['expExitCode'], '22')
        self.assertEqual(case['matchCount'], '0')

    def test_agreeing_answers(self):
        acc = dict(err=0, msg='', bits='1')
        self.assertEqual(self.run_one(flt('ip', []), acc, acc), [])
        f = flt('802.1q', [('vlan_id', 5000, None)])
        d = self.run_one(f, refused(22, 'VLAN id must be below 4096'), acc)
        self.assertEqual([x['cls'] for x in d], ['refused-range'])


if __name__ == '__main__':
    unittest.main()
