# SPDX-License-Identifier: GPL-2.0
"""stress/fuzz.py's model (stress.flowerfuzz) of what ffe445f and 72c0b8f
brought: port ranges (fl_check_port_range(), need L4), the hash key, and
the vxlan, erspan and gtp tunnel options (fl_set_key_tun_opt(), their
dumps); the generator sends them, valid and broken."""

import collections
import random
import struct

from flower.needs import MESSAGES, WARNINGS
from flower import model_keys
from stress.flowerfuzz import compare, run
from stress.flowerfuzz.attrs import A, ERSPAN, Err, GTP, VXLAN, nla
from stress.flowerfuzz.gen import Gen
from stress.flowerfuzz.model import Model
from stress.flowerfuzz.recipes import Op
from stress.tests.fuzz_helpers import (DEVS, F, GENEVE_ONES, GENEVE_OPT, IP,
                                       IPV6, attr, Base, be16, geneve)

DST_BOTH = 'Both min and max destination ports must be specified'
SRC_BOTH = 'Both min and max source ports must be specified'
DST_ORDER = ('Invalid destination port range (min must be strictly smaller '
             'than max)')
SRC_ORDER = ('Invalid source port range (min must be strictly smaller than '
             'max)')


def rng(d, lo, hi):
    """PORT_<d>_MIN and _MAX (be16)."""
    return [attr('KEY_PORT_%s_MIN' % d, be16(lo)),
            attr('KEY_PORT_%s_MAX' % d, be16(hi))]


def udp(*more):
    return (attr('KEY_IP_PROTO', b'\x11'),) + more


class TestPortRanges(Base):
    def test_need_tcp_udp_or_sctp(self):
        # ignored (and not checked: stock reads them only under tcp, udp
        # or sctp), with a warning
        msg = MESSAGES['L4']
        f = self.warned(msg, *rng('DST', 1, 2))
        self.assertFalse(any(f.mask['tp_range']))
        self.warned(msg, attr('KEY_IP_PROTO', b'\1'), *rng('SRC', 1, 2))
        self.warned(msg, *rng('DST', 2, 1), attr('KEY_PORT_SRC_MIN',
                                                 be16(1)))
        for ipp in (6, 17, 132):
            self.warned(None, attr('KEY_IP_PROTO', bytes([ipp])),
                        *rng('DST', 1, 2), proto=IPV6)

    def test_both_ends_then_the_order(self):
        # destination before source, both ends before min < max
        self.refused(22, DST_BOTH, *udp(attr('KEY_PORT_DST_MIN', be16(1))))
        self.refused(22, SRC_BOTH, *udp(attr('KEY_PORT_SRC_MAX', be16(1))))
        self.refused(22, SRC_BOTH, *udp(attr('KEY_PORT_SRC_MIN', be16(9)),
                                        *rng('DST', 5, 5)))
        self.refused(22, DST_ORDER, *udp(*rng('DST', 5, 5), *rng('SRC', 9,
                                                                 1)))
        self.refused(22, DST_ORDER, *udp(*rng('DST', 0x100, 0xff)))
        self.refused(22, SRC_ORDER, *udp(*rng('DST', 0, 1),
                                         *rng('SRC', 0xffff, 0)))
        self.parse(*udp(*rng('DST', 0, 0xffff), *rng('SRC', 1000, 1001)))

    def test_after_the_tcp_flags_before_ct_state(self):
        # the TCP flags' warning, then the range's error, which replaces it
        tcp = (attr('KEY_IP_PROTO', b'\6'), attr('KEY_TCP_FLAGS', b'\0\1'),
               attr('KEY_TCP_FLAGS_MASK', b'\xf0\0'))
        f = self.warned(WARNINGS['tcp_flags'], *tcp)
        self.assertEqual(bytes(f.mask['tcp.flags']), b'\xf0\0')
        self.refused(22, DST_BOTH, *tcp, attr('KEY_PORT_DST_MIN', be16(1)))
        self.refused(22, DST_BOTH, *udp(attr('KEY_PORT_DST_MAX', be16(1)),
                                        attr('KEY_CT_STATE', b'\1\0')))

    def test_dump_and_keys(self):
        # the rows' order: dst min, dst max, src min, src max; exact
        # (no mask attribute)
        self.assertEqual(self.dump(*udp(*rng('SRC', 1000, 2000),
                                        *rng('DST', 80, 88))), [
            (8, '0800'), (9, '11'), (89, '0050'), (90, '0058'),
            (87, '03e8'), (88, '07d0'), (22, '08000000'), (86, '00000000')])
        a = self.parse(*udp(*rng('DST', 80, 88)))
        b = self.parse(*udp(*rng('DST', 80, 89)))
        self.assertEqual(model_keys.canon(a.mask), model_keys.canon(b.mask))
        self.assertNotEqual(a.ident(), b.ident())
        self.assertEqual(bytes(a.key['tp_range']),
                         bytes.fromhex('0000005000000058'))

    def test_same_range_exists(self):
        def add(lo, hi):
            return self.model.predict_new(Op(
                'new', ifindex=DEVS['fz0'], prio=3, proto=IP,
                flags=0x400, attrs=[attr('KEY_ETH_TYPE', be16(IP))] +
                list(udp(*rng('SRC', lo, hi)))))
        add(1, 10)()
        add(1, 11)()
        with self.assertRaises(Err) as cm:
            add(1, 10)
        self.assertEqual(cm.exception.codes, {17})
        self.assertEqual(len(self.model.tps[(0, 3)].masks), 1)


class TestHash(Base):
    def test_any_protocol_masked_dumped_after_l2tpv3(self):
        self.assertEqual(self.dump(
            attr('KEY_HASH', b'\x34\x12\0\0'),
            attr('KEY_HASH_MASK', b'\xff\0\0\0'),
            attr('KEY_L2TPV3_SID', b'\0\0\0\1'),
            attr('KEY_IP_PROTO', b'\x73'),
            attr('KEY_ENC_KEY_ID', b'\0\0\0\2')), [
            (8, '0800'), (9, '73'), (105, '00000001'), (100, '34120000'),
            (101, 'ff000000'), (26, '00000002'), (22, '08000000'),
            (86, '00000000')])
        self.parse(attr('KEY_HASH', bytes(4)), proto=0x0003)
        self.assertEqual(self.dump(attr('KEY_HASH', b'\1\0\0\0'),
                                   attr('KEY_HASH_MASK', bytes(4))),
                         [(8, '0800'), (22, '08000000'), (86, '00000000')])

    def test_lone_mask_and_lengths(self):
        f = self.warned(WARNINGS['mask_without_key'],
                        attr('KEY_HASH_MASK', b'\xff' * 4))
        self.assertFalse(any(f.mask['hash']))
        self.refused(34, 'Attribute failed policy validation',
                     attr('KEY_HASH', b'\1'))
        f = self.warned(WARNINGS['attr_long'],
                        attr('KEY_HASH', b'\1\2\3\4\5\6'))
        self.assertEqual(bytes(f.key['hash']), b'\1\2\3\4')


def vxlan(gbp=None, flags=F):
    return nla(2 | flags, b'' if gbp is None else nla(1, struct.pack(
        '<I', gbp)))


def erspan(ver=None, index=None, dir_=None, hwid=None, flags=F):
    parts = [nla(t, v) for t, v in ((1, ver), (2, index), (3, dir_),
                                      (4, hwid)) if v is not None]
    return nla(3 | flags, b''.join(parts))


def gtp(pdu=None, qfi=None):
    return nla(4 | F, b''.join(nla(t, v) for t, v in ((1, pdu), (2, qfi))
                               if v is not None))


def opts(key, mask=None):
    out = [attr('KEY_ENC_OPTS', key)]
    if mask is not None:
        out.append(attr('KEY_ENC_OPTS_MASK', mask))
    return out


class TestTunnelOptions(Base):
    def test_vxlan(self):
        # gbp under VXLAN_GBP_MASK; no mask: all ones (not masked)
        self.assertEqual(self.dump(*opts(vxlan(0xffffffff))), [
            (8, '0800'), (84, '0c00028008000100ffff4800'),
            (85, '0c00028008000100ffffffff'), (22, '08000000'),
            (86, '00000000')])
        f = self.parse(*opts(vxlan(0x10, flags=0),
                             vxlan(0x0000ffff | 1 << 31)))
        self.assertEqual(bytes(f.mask['enc_opts'][:4]), b'\xff\xff\0\0')
        self.assertEqual((f.key['enc_opts'][255], bytes(f.key['enc_opts'][
            256:])), (4, b'\x10\x00'))
        self.assertEqual((f.mask['enc_opts'][255], bytes(f.mask['enc_opts'][
            256:])), (4, b'\x10\x00'))
        # bits outside the mask: the same key
        self.assertEqual(self.parse(*opts(vxlan(5))).ident(),
                         self.parse(*opts(vxlan(5 | 1 << 30))).ident())
        # the tunnel: "any tunnel"
        self.assertEqual(bytes(f.mask['enc_addr_type']), b'\x02\x00')

    def test_erspan(self):
        # v2: dir one bit, hwid six; a mask without a version is one of
        # version 1, its index whole
        self.assertEqual(self.dump(*opts(
            erspan(b'\2', dir_=b'\3', hwid=b'\xff'), erspan())), [
            (8, '0800'),
            (84, '1c00038005000100020000000500030001000000050004003f000000'),
            (85, '14000380050001000100000008000200ffffffff'),
            (22, '08000000'), (86, '00000000')])
        f = self.parse(*opts(erspan(b'\2', dir_=b'\1', hwid=b'\x15'),
                             erspan(b'\2', hwid=b'\x30')))
        self.assertEqual(bytes(f.key['enc_opts'][:12]),
                         bytes.fromhex('02000000' '00000000' '0000' '01' '58'))
        self.assertEqual(bytes(f.mask['enc_opts'][:12]),
                         bytes.fromhex('02000000' '00000000' '0000' '03' '08'))
        self.assertEqual(f.key['enc_opts'][255], 12)
        self.assertEqual(self.dump(*opts(erspan(b'\1', index=be16(1) * 2)))[
            1:3], [(84, '14000380050001000100000008000200' '00010001'),
                   (85, '14000380050001000100000008000200' 'ffffffff')])

    def test_gtp(self):
        self.assertEqual(self.dump(*opts(gtp(b'\1', b'\x09'),
                                         gtp(qfi=b'\x3f'))), [
            (8, '0800'), (84, '1400048005000100010000000500020009000000'),
            (85, '1400048005000100ff000000050002003f000000'),
            (22, '08000000'), (86, '00000000')])

    def test_required_fields_and_versions(self):
        cases = [
            ('Missing tunnel key vxlan option gbp', vxlan(), None),
            ('Missing tunnel key erspan option ver', erspan(index=bytes(4)),
             None),
            ('Missing tunnel key erspan option index', erspan(b'\1'), None),
            ('Missing tunnel key erspan option dir or hwid',
             erspan(b'\2', dir_=b'\1'), None),
            ('Tunnel key erspan option ver is incorrect', erspan(b'\3'),
             None),
            ('Tunnel key erspan option ver is incorrect',
             erspan(b'\1', index=bytes(4)), erspan(b'\0')),
            ('Missing tunnel key gtp option pdu type or qfi', gtp(b'\1'),
             None),
            # the kind's policy, strict: before the fields
            ('invalid attribute length', nla(2, nla(1, b'\1\2')), None),
            ('invalid attribute length', erspan(b'\1\0', index=bytes(4)),
             None),
            ('Unknown attribute type', gtp(b'\1', b'\1'),
             nla(4, nla(3, b'\1'))),
            ('Unknown attribute type', nla(2, nla(0, b'')), None),
            ('bytes leftover after parsing attributes',
             nla(2, nla(1, bytes(4)) + b'\1\2'), None),
        ]
        for msg, key, mask in cases:
            with self.subTest(msg=msg, key=key.hex()):
                self.refused(22, msg, *opts(key, mask))

    def test_one_option_and_its_mask(self):
        cases = [
            ('Duplicate type for vxlan options', vxlan(1) + vxlan(2), None),
            ('Duplicate type for erspan options', gtp(b'\1', b'\1') +
             erspan(b'\1'), None),
            ('Duplicate type for geneve options', vxlan(1) + GENEVE_OPT,
             None),
            ('Duplicate type for gtp options', GENEVE_OPT + gtp(), None),
            ('Unknown tunnel option type', vxlan(1) + nla(7, b''), None),
            ('Unknown tunnel option type', nla(0, b'') + vxlan(1), None),
            # the key's option comes first, then the mask's
            ('Missing tunnel key vxlan option gbp', vxlan(), b''),
            ('Invalid nested attribute for masks', vxlan(1), b''),
            ('Invalid nested attribute for masks', vxlan(1), b'\5\0\2\0'),
            ('Non-vxlan option type for mask', vxlan(1), GENEVE_ONES),
            ('Non-gtp option type for mask', gtp(b'\1', b'\1'), vxlan(1)),
            ('Non-erspan option type for mask', erspan(b'\1', index=bytes(
                4)), nla(0, b'')),
            ("Tunnel options mask does not have the options' lengths",
             GENEVE_OPT, geneve(0xffff, 0xff, bytes(8))),
        ]
        for msg, key, mask in cases:
            with self.subTest(msg=msg, key=key.hex()):
                self.refused(22, msg, *opts(key, mask))
        # bytes after the option that are no attribute, a mask's second
        # option: not looked at
        a = self.parse(*opts(vxlan(7) + b'\1\2\3', vxlan(0xff) + GENEVE_OPT))
        b = self.parse(*opts(vxlan(7), vxlan(0xff)))
        self.assertEqual(a.ident(), b.ident())
        # an error, before the rows (and their warnings)
        self.refused(22, 'Missing tunnel key vxlan option gbp',
                     *opts(vxlan()), attr('KEY_TCP_SRC', b'\0\1'))

    def test_round_trip_from_the_dump(self):
        for key, mask in ((vxlan(0x12345678), None), (vxlan(3), vxlan(1)),
                          (erspan(b'\2', dir_=b'\1', hwid=b'\7'), None),
                          (erspan(b'\1', index=b'\0\0\1\0'), erspan(b'\2')),
                          (gtp(b'\1', b'\2'), gtp())):
            with self.subTest(key=key.hex()):
                f = self.parse(*opts(key, mask))
                f.handle = 1
                tp = model_keys.Tp(0, 1, IP, None)
                tp.put(f)
                dumped = self.model.expected_opts(tp, f)
                g = self.model.fl_parse(compare.dumped_request(IP, dumped),
                                        False, IP)
                self.assertEqual(g.mkey(f.mask), f.mkey())


class TestGeneratorSendsThem(Base):
    def test_ranges_hash_and_tunnel_options_valid_and_not(self):
        r = random.Random(3)
        gen = Gen(r, self.model, DEVS['fz0'])
        got = collections.Counter()
        for _ in range(1500):
            x = r.random()
            op = gen.valid_add() if x < 0.5 else gen.invalid() if x < 0.9 \
                else gen.delete()
            op.sanitize()
            op.encode()
            try:
                commit = self.model.predict_del(op) if op.what == 'del' \
                    else self.model.predict_new(op)
                commit()
                ok = 'accepted'
                got[getattr(commit, 'warning', None)] += 1
            except Err as e:
                ok = 'refused'
                got[e.msg] += 1
            for k in run.meta_kinds(op):
                got['%s %s' % (k, ok)] += 1
            for t, d, _m in op.attrs or ():
                if t & 0x3FFF == A['KEY_ENC_OPTS'] and d and ok == \
                        'accepted':
                    got['option %d' % (d[2] | d[3] << 8 & 0x3F00)] += 1
        # (fewer refused since step 22: what stock accepts, ours too)
        for k in ('port_range', 'hash', 'tun_opt'):
            self.assertGreater(got['%s accepted' % k], 10, (k, got))
            self.assertGreater(got['%s refused' % k], 3, (k, got))
        for m in (DST_BOTH, SRC_ORDER, MESSAGES['L4']):
            self.assertGreater(got[m], 0, (m, got))
        # every kind of option is accepted
        for k in (VXLAN, ERSPAN, GTP):
            self.assertGreater(got['option %d' % k.attr], 0, (k.name, got))

    def test_broken_tunnel_options(self):
        """mutate_tunnel()'s tunopt and tunoptmask: every refusal of
        fl_set_key_tun_opt() comes up, on a filter that is fine without
        them."""
        r = random.Random(4)
        gen = Gen(r, self.model, DEVS['fz0'])
        msgs = collections.Counter()
        for _ in range(600):
            op = Op('new', attrs=[])
            attrs = [attr('KEY_ETH_TYPE', be16(IP))]
            while not any(a[0] == A['KEY_ENC_OPTS'] for a in attrs):
                gen.mutate_tunnel(op, attrs)
            try:
                self.model.fl_parse(attrs, False, IP)
                msgs['accepted'] += 1
            except Err as e:
                msgs[e.msg] += 1
        want = ['accepted', 'Unknown tunnel option type',
                'Invalid nested attribute for masks',
                'Tunnel key erspan option ver is incorrect',
                'invalid attribute length', 'Unknown attribute type',
                'bytes leftover after parsing attributes']
        for k in (VXLAN, ERSPAN, GTP):
            want += [k.dup_msg, k.mask_msg]
        want += ['Missing tunnel key %s' % m for m in (
            'vxlan option gbp', 'erspan option ver', 'erspan option index',
            'erspan option dir or hwid', 'gtp option pdu type or qfi')]
        for m in want:
            self.assertGreater(msgs[m], 0, (m, msgs))


if __name__ == '__main__':
    import unittest
    unittest.main()
