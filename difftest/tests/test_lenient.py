# SPDX-License-Identifier: GPL-2.0
"""The lenient requests (series step 22, docs/leniency.md): every row of
the table is generated in every batch, sent as the raw request it is
(no eth_type, another protocol, masks without keys, unknown types,
TCA_FLOWER_IN_HW_COUNT, attributes longer than their type), compared
like every other filter (answer, dump, verdicts), and a refusal by ours
that stock does not make is our bug that fails the run.  Host only."""

import contextlib
import io
import json
import os
import random
import struct
import tempfile
import unittest

from difftest import classes as CL
from difftest import compare as C
from difftest import frames as FR
from difftest import gen as G
from difftest import keys as K
from difftest import lenient as L
from difftest import model as M
from difftest import runner as R
from flower import needs, nl, uapi

_BATCHES = []


def batches():
    if not _BATCHES:
        _BATCHES.extend(G.gen_batch(random.Random(seed), 60, cover=True)
                        for seed in range(1, 5))
    return _BATCHES


def lenient(b):
    return [f for f in b['filters'] if f.get('lenient') and
            'twin_of' not in f]


def attrs(f):
    return [(t, bytes.fromhex(h)) for t, h in f['attrs']]


class TestGeneration(unittest.TestCase):
    def test_every_kind_in_every_batch(self):
        for b in batches():
            kinds = [f['lenient'][0] for f in lenient(b)]
            self.assertLessEqual(set(L.LENIENT_KINDS), set(kinds))

    def test_stock_takes_them_and_ours_warns(self):
        seconds = 0
        for b in batches():
            for f in lenient(b):
                self.assertIsNone(f['refusal'], f['desc'])
                want = L.KIND_WARNING.get(f['lenient'][0])
                if want:
                    self.assertIn(want, f['warnings'], f['desc'])
                if f['lenient'][0] != 'addr_family':
                    self.assertTrue(f['warnings'], f['desc'])
                seconds += len(f['lenient']) > 1
                for w in f['warnings']:
                    self.assertIn(w, needs.WARNING_MSGS)
        self.assertGreater(seconds, 2)      # two kinds: the first warning

    def test_the_requests_are_raw(self):
        seen = set()
        for b in batches():
            for f in lenient(b):
                at = attrs(f)
                types = [t for t, _d in at]
                k = f['lenient']
                if 'no_eth_type' in k:
                    self.assertNotIn(K.A['KEY_ETH_TYPE'], types, f['desc'])
                    self.assertNotEqual(f['proto'], 'all')
                    seen.add('no_eth_type')
                if 'eth_type' in k:
                    self.assertNotEqual(M.tc_proto(f), f['proto'])
                    self.assertIn([K.A['KEY_ETH_TYPE'],
                                   '%04x' % K.PROTOS[f['proto']]],
                                  f['attrs'])
                    seen.add('eth_type')
                if 'unknown_attr' in k:
                    self.assertTrue(any(M.unknown_type(t) for t in types))
                    seen.add('unknown_attr')
                if 'in_hw_count' in k:
                    self.assertIn(M.IN_HW_COUNT, types)
                    seen.add('in_hw_count')
                if 'attr_long' in k:
                    for t, n in f['long'].items():
                        data = [d for tt, d in at if tt == int(t)]
                        self.assertTrue(data)
                        ln = uapi.BY_NUMBER[int(t)].length
                        for d in data:
                            self.assertEqual(len(d), ln + n)
                    seen.add('attr_long')
                if 'mask_without_key' in k:
                    for t, _h in f['extra']:
                        if t not in M.MASKS:
                            continue        # a second kind's
                        key = uapi.BY_NUMBER[t].mask
                        self.assertNotIn(uapi.BY_NAME[key].number, types)
                    seen.add('mask_without_key')
                if 'enc_families' in k:
                    self.assertTrue(CL.enc_families(f))
                    self.assertEqual(f['tun_v'], 6)
                    seen.add('enc_families')
        self.assertEqual(len(seen), 7)

    def test_long_attributes_begin_with_the_value(self):
        f = dict(proto='ip', vlan_eth=None, cvlan_eth=None, ip_proto=6,
                 keys=[['tcp_dst', 80, None]], indev=None,
                 long={str(K.A['KEY_TCP_DST']): 2})
        at = dict(attrs(dict(f, attrs=G.encode_filter(f))))
        self.assertEqual(at[K.A['KEY_TCP_DST']][:2], b'\x00\x50')
        self.assertEqual(len(at[K.A['KEY_TCP_DST']]), 4)
        self.assertIn('[KEY_TCP_DST +2 bytes]', G.describe(f))

    def test_eth_type_frames(self):
        # a VLAN protocol with the eth_type inside: tagged frames, which
        # stock matches
        f = dict(proto='ip', vlan_eth=None, cvlan_eth=None, ip_proto=None,
                 keys=[], indev=None, tc_proto='802.1q')
        v = FR.frame_view(f)
        self.assertEqual((v['proto'], v['vlan_eth']), ('802.1q', 'ip'))
        s = FR.base_spec(random.Random(1), v)
        self.assertEqual(s['tags'][0][0], K.PROTOS['802.1q'])
        self.assertEqual(s['l3'], 'ipv4')
        g = dict(f, tc_proto=None)
        self.assertIs(FR.frame_view(g), g)
        self.assertIn('protocol 802.1q', G.describe(f))
        self.assertIn('[eth_type ip]', G.describe(f))

    def test_enc_families_twin(self):
        n = 0
        for b in batches():
            for i, f in enumerate(b['filters']):
                if f.get('twin_of') is not None and \
                        CL.enc_families(b['filters'][f['twin_of']]):
                    self.assertFalse(any(k[0].startswith('enc_ipv4')
                                         for k in f['keys']))
                    n += 1
        self.assertGreater(n, 3)

    def test_covered_keys_are_kept_ones(self):
        f = dict(proto='ip', vlan_eth=None, cvlan_eth=None, ip_proto=17,
                 keys=[['tcp_dst', 1, None], ['udp_dst', 1, None]],
                 indev=None)
        self.assertEqual(G.covered([f]), {'udp_dst'})


class FakeRig:
    def __init__(self):
        self.protos = []
        self.next_index = 1
        self.pkt = self

    def reset(self, hook):
        pass

    def add_filter(self, prio, proto, kind, opts, handle=1, dev=None,
                   chain=0):
        self.protos.append((kind, proto, opts))
        return 0, ''

    def counters(self):
        return {}

    def dump_filters(self, dev=None):
        return {(0, 1, 1): [[4, 'aa']]}

    def send(self, frame):
        pass


class TestRunner(unittest.TestCase):
    def test_protocol_and_raw_attributes(self):
        f = dict(proto='ip', vlan_eth=None, cvlan_eth=None, ip_proto=None,
                 keys=[], indev=None, tc_proto='802.1q',
                 extra=[[106, 'ff'], [M.IN_HW_COUNT, '01000000']])
        f['attrs'] = G.encode_filter(f)
        rig = FakeRig()
        r = R.run_batch(rig, dict(filters=[f], packets=[]), 4,
                        lambda m: None)
        kind, proto, opts = rig.protos[0]
        self.assertEqual(proto, K.PROTOS['802.1q'])
        got = nl.walk_attrs(opts)[0]
        self.assertIn((106, b'\xff'), got)
        self.assertIn((M.IN_HW_COUNT, b'\x01\0\0\0'), got)
        # each accepted filter's dump, by chain, prio and handle
        self.assertEqual(r['filters'][0]['dump'], [[4, 'aa']])

    def test_dump_filters(self):
        def msg(kind, handle, prio, opts, chain=None):
            body = nl.tcmsg(5, handle, 0xfffffff2, prio, 0x0800) + \
                nl.nla(nl.TCA_KIND, kind + b'\0')
            if opts is not None:
                body += nl.nest(nl.TCA_OPTIONS, *opts)
            if chain is not None:
                body += nl.nla(nl.TCA_CHAIN, struct.pack('=I', chain))
            return (nl.RTM_NEWTFILTER, 0, body)

        class Sock:
            def call(self, typ, flags, payload):
                self.asked = (typ, flags)
                return nl.Reply(msgs=[
                    msg(b'flower', 0, 1, None),     # the prio's own
                    msg(b'flower', 1, 1, [nl.nla(6, b'\1' * 6),
                                          nl.nla(3, b'act'),
                                          nl.nla(86, b'\0' * 4),
                                          nl.nla(4, b'\2' * 6)]),
                    msg(b'flower', 2, 3, [nl.nla(9, b'\x06')], chain=1),
                    msg(b'matchall', 1, 9, [nl.nla(2, b'x')])])
        rig = R.Rig.__new__(R.Rig)
        rig.hooks = {None: (5, 0xfffffff2)}
        rig.nl = Sock()
        got = rig.dump_filters()
        self.assertEqual(rig.nl.asked, (nl.RTM_GETTFILTER, nl.NLM_F_DUMP))
        self.assertEqual(got, {(0, 1, 1): [[4, '02' * 6], [6, '01' * 6]],
                               (1, 3, 2): [[9, '06']]})


class TestClasses(unittest.TestCase):
    def test_dump_classes(self):
        A = K.A
        ppp = dict(proto='ppp_ses', vlan_eth=None, cvlan_eth=None,
                   keys=[['ppp_proto', 0x21, None]])
        self.assertEqual(CL.dump_class(
            ppp, [(A['KEY_ETH_TYPE'], '8864')],
            [(A['KEY_ETH_TYPE'], '0800')]), 'dump-pppoe-protocol')
        zero = dict(proto='ip', vlan_eth=None, cvlan_eth=None,
                    keys=[['ipv4_src', 5, 0]])
        self.assertEqual(CL.dump_class(
            zero, [(A['KEY_IPV4_DST'], '00000000'),
                   (A['KEY_IPV4_DST_MASK'], '00000000')], []),
            'dump-zero-mask-addr')
        enc = dict(proto='ip', vlan_eth=None, cvlan_eth=None,
                   keys=[['enc_ipv6_dst', 1, None],
                         ['enc_ipv4_src', 2, None]])
        self.assertEqual(CL.dump_class(
            enc, [], [(A['KEY_ENC_IPV6_SRC'], '00000002' + '00' * 12),
                      (A['KEY_ENC_IPV6_SRC_MASK'], 'ff' * 4 + '00' * 12)]),
            'stock-enc-families')
        # a PPPoE filter's ethertype beside another class: that class
        pz = dict(ppp, keys=[['enc_ipv4_dst', 1, 0]])
        self.assertEqual(CL.dump_class(
            pz, [(A['KEY_ETH_TYPE'], '8864'),
                 (A['KEY_ENC_IPV4_DST'], '00000000'),
                 (A['KEY_ENC_IPV4_DST_MASK'], '00000000')], []),
            'dump-zero-mask-addr')
        # anything else is unexplained
        self.assertIsNone(CL.dump_class(
            zero, [(A['KEY_IP_PROTO'], '06')], []))
        self.assertIsNone(CL.dump_class(
            ppp, [(A['KEY_PPP_PROTO'], '0021')], []))

    def test_stock_enc_families_verdict(self):
        f = dict(proto='ip', vlan_eth=None, cvlan_eth=None, ip_proto=None,
                 keys=[['enc_ipv6_dst', 1, None], ['enc_ipv4_src', 2, None]],
                 dev='vxlan')
        tw = dict(f, keys=f['keys'][:1], twin_of=0)
        b = dict(packets=[dict(spec=dict(tun=dict(v=6)), hex='')],
                 prio=[1, 2])
        self.assertEqual(CL.pair_class(0, 0, 0, [f, tw], {0: 1, 1: 1},
                                       {0: 0, 1: 1}, b),
                         'stock-enc-families')
        self.assertIsNone(CL.pair_class(0, 0, 0, [f, tw], {0: 1, 1: 1},
                                        {0: 0, 1: 0}, b))


class TestRun(unittest.TestCase):
    def run_compare(self, ours, stock, f):
        cases = dict(seed=1, batches=[dict(
            filters=[dict(f, attrs=G.encode_filter(f), desc=G.describe(f))],
            packets=[dict(owner=None, kind='x', spec=None, hex='00' * 14)],
            prio=[1], handle=[1])])

        def res(fs, variant, srcversion):
            return dict(seed=1, kernel='k', variant=variant, seconds=1,
                        srcversion=srcversion, batches=[dict(
                            filters=fs, sent=[1], reached='1', t_send=0)])
        out = {}
        with tempfile.TemporaryDirectory() as d:
            for name, doc in (('cases', cases),
                              ('ours', res([ours], 'ours', 'A')),
                              ('stock', res([stock], 'stock', 'B'))):
                out[name] = os.path.join(d, name + '.json')
                with open(out[name], 'w') as fp:
                    json.dump(doc, fp)
            buf = io.StringIO()
            old = C.sys.argv
            try:
                C.sys.argv = ['compare', '--cases', out['cases'], '--ours',
                              out['ours'], '--stock', out['stock'],
                              '--final']
                with contextlib.redirect_stdout(buf):
                    rc = C.main()
            finally:
                C.sys.argv = old
        return rc, buf.getvalue()

    def flt(self):
        f = dict(proto='ip', vlan_eth=None, cvlan_eth=None, ip_proto=17,
                 keys=[['tcp_dst', 80, None]], indev=None,
                 lenient=['prereq'])
        p = M.predict(f)
        f.update(refusal=p['refusal'], warnings=p['warnings'])
        return f

    def test_a_refusal_stock_does_not_make_fails_the_run(self):
        rc, text = self.run_compare(
            dict(err=22, msg='Key requires ip_proto tcp', bits=''),
            dict(err=0, msg='', bits='0', dump=[]), self.flt())
        self.assertEqual(rc, 1, text)
        self.assertIn('our bug: ours refuses a request stock accepts', text)
        self.assertIn('lenient requests (docs/leniency.md): 1, accepted by '
                      'stock 1, by ours 0', text)
        # the divergence, and ours accepting no filter, no verdict
        self.assertEqual(text.strip().splitlines()[-1], '0 passed, 3 failed')

    def test_the_same_answer_dump_and_verdicts_pass(self):
        dump = [[K.A['KEY_ETH_TYPE'], '0800'], [K.A['KEY_IP_PROTO'], '11']]
        rc, text = self.run_compare(
            dict(err=0, msg=needs.MESSAGES['TCP'], bits='0', dump=dump),
            dict(err=0, msg='', bits='0', dump=dump), self.flt())
        self.assertEqual(rc, 0, text)
        self.assertIn('1 of them with the warning its model gives; dumps '
                      'compared: 1 filters (1 lenient)', text)

    def test_another_dump_fails_the_run(self):
        dump = [[K.A['KEY_ETH_TYPE'], '0800'], [K.A['KEY_IP_PROTO'], '11']]
        rc, text = self.run_compare(
            dict(err=0, msg=needs.MESSAGES['TCP'], bits='0',
                 dump=dump + [[K.A['KEY_TCP_DST'], '0050']]),
            dict(err=0, msg='', bits='0', dump=dump), self.flt())
        self.assertEqual(rc, 1, text)
        self.assertIn('dump differs: ours only [KEY_TCP_DST=0050], stock '
                      'only []', text)


if __name__ == '__main__':
    unittest.main()
