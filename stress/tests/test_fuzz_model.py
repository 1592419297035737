# SPDX-License-Identifier: GPL-2.0
"""stress/fuzz.py's model of cls_flower: the tunnel (enc_*) and conntrack
(ct_*) keys, their dumps, several masks in one prio, and resync().  The
golden dumps below marked "guest" are what the ours kernel (1046a8a)
answered in the guest to the same requests in a prio of protocol ip,
plus the ETH_TYPE 0800 that a request without ETH_TYPE gets since it takes
the filter's protocol (then it defaulted to all: nothing was set)."""

import collections
import random
import socket
import struct
import unittest

from stress import fuzz
from stress.fuzz import A, Err, nla

DEVS = {'fz0': 4, 'fz1': 5, 'lo': 1}
IP, IPV6, VLAN = 0x0800, 0x86DD, 0x8100


def attr(name, data):
    return (A[name], data, None)


def geneve(cls, typ, data, nested=False):
    return fuzz.geneve_opt(struct.pack('>H', cls), bytes([typ]), data,
                           nested)


class Base(unittest.TestCase):
    def setUp(self):
        self.model = fuzz.Model(DEVS)

    def parse(self, *attrs, proto=IP):
        return self.model.fl_parse(list(attrs), False, proto)

    def refused(self, code, msg, *attrs, proto=IP):
        with self.assertRaises(Err) as cm:
            self.parse(*attrs, proto=proto)
        self.assertIn(code, cm.exception.codes)
        self.assertEqual(cm.exception.msg, msg)

    def dump(self, *attrs, proto=IP):
        """[(type, hex)] fl_dump() puts for a filter alone in its prio."""
        f = self.parse(*attrs, proto=proto)
        f.handle = 1
        tp = fuzz.Tp(0, 1, proto, None)
        tp.put(f)
        return [(t, v.hex()) for t, v in self.model.expected_opts(tp, f)]


class TestTunnelKeys(Base):
    def test_both_families_refused(self):
        # fl_set_key_enc_control() counts masks too, before "Mask given
        # without its key"
        self.refused(22, 'IPv4 and IPv6 tunnel addresses cannot be combined',
                     attr('KEY_ENC_IPV4_SRC_MASK', b'\xff' * 4),
                     attr('KEY_ENC_IPV6_DST', bytes(16)))

    def test_family_and_tunnel_any(self):
        f = self.parse(attr('KEY_ENC_KEY_ID', b'\0\0\0\1'))
        self.assertEqual(bytes(f.key['enc_addr_type']), b'\x02\x00')
        self.assertEqual(bytes(f.mask['enc_addr_type']), b'\x02\x00')
        f = self.parse(attr('KEY_ENC_IPV6_SRC', bytes(16)))
        self.assertEqual(bytes(f.key['enc_addr_type']), b'\x03\x00')
        self.assertEqual(bytes(f.mask['enc_addr_type']), b'\xff\xff')
        # a lone mask fixes the family, then is refused
        self.refused(22, 'Mask given without its key',
                     attr('KEY_ENC_IPV4_DST_MASK', b'\xff' * 4))

    def test_lengths(self):
        self.refused(22, 'invalid attribute length',
                     attr('KEY_ENC_KEY_ID', b'\0\0\1'))
        self.refused(34, 'binary attribute size out of range',
                     attr('KEY_ENC_IPV6_SRC', bytes(4)))
        self.refused(34, 'Attribute failed policy validation',
                     attr('KEY_ENC_OPTS', b'\1\2\3'))

    def test_dump_enc_key_id_ipv6_and_ct_zone(self):
        # guest: prio 8
        self.assertEqual(self.dump(
            attr('KEY_ENC_KEY_ID', b'\0\0\0\1'),
            attr('KEY_CT_ZONE', b'\1\0'),
            attr('KEY_ENC_IPV6_DST', bytes(16))),
            [(8, '0800'), (26, '00000001'), (33, '00' * 16), (34, 'ff' * 16),
             (93, '0100'), (94, 'ffff'), (22, '08000000'), (86, '00000000')])

    def test_dump_skips_a_zero_mask_and_the_other_family(self):
        # guest: prio 16 (1046a8a left the zero-mask address out; now
        # fl_dump_key_zero_addrs() gives the family back as dst 0/0,
        # after the rows)
        self.assertEqual(self.dump(
            attr('KEY_ENC_IPV4_SRC', b'\x0a\0\0\1'),
            attr('KEY_ENC_IPV4_SRC_MASK', bytes(4)),
            attr('KEY_ENC_UDP_DST_PORT', b'\x12\xb5')),
            [(8, '0800'), (45, '12b5'), (46, 'ffff'), (29, '00000000'),
             (30, '00000000'), (22, '08000000'), (86, '00000000')])
        got = self.dump(attr('KEY_ENC_IPV4_DST', b'\x0a\0\0\2'))
        self.assertEqual(got, [(8, '0800'), (29, '0a000002'),
                               (30, 'ffffffff'), (22, '08000000'),
                               (86, '00000000')])

    def test_zero_mask_address_dumps_as_dst_0_0(self):
        # one address key under a zero mask, the other not: the row dumps
        self.assertEqual(self.dump(
            attr('KEY_IPV6_SRC', bytes(16)),
            attr('KEY_IPV6_SRC_MASK', bytes(16)), proto=IPV6),
            [(8, '86dd'), (16, '00' * 16), (17, '00' * 16),
             (22, '08000000'), (86, '00000000')])
        self.assertEqual(self.dump(
            attr('KEY_IPV4_SRC', b'\1\2\3\4'),
            attr('KEY_IPV4_SRC_MASK', bytes(4)),
            attr('KEY_IPV4_DST', b'\1\2\3\4')),
            [(8, '0800'), (12, '01020304'), (13, 'ffffffff'),
             (22, '08000000'), (86, '00000000')])
        # "any tunnel" (a key id alone) is no family: nothing more
        self.assertEqual(self.dump(attr('KEY_ENC_KEY_ID', b'\0\0\0\1')),
                         [(8, '0800'), (26, '00000001'), (22, '08000000'),
                          (86, '00000000')])
        # dst 0/0 parses back to the same filter
        f = self.parse(attr('KEY_IPV4_SRC', b'\1\2\3\4'),
                       attr('KEY_IPV4_SRC_MASK', bytes(4)))
        g = self.parse(attr('KEY_IPV4_DST', bytes(4)),
                       attr('KEY_IPV4_DST_MASK', bytes(4)))
        self.assertEqual(f.ident(), g.ident())


class TestGeneve(Base):
    OPT = geneve(0x0102, 0x80, b'\x00\x88\x00\x22', nested=True)
    ONES = geneve(0xFFFF, 0xFF, b'\xff' * 4, nested=True)

    def test_dump_with_mask(self):
        # guest: prio 2
        self.assertEqual(self.dump(attr('KEY_ENC_OPTS', self.OPT),
                                   attr('KEY_ENC_OPTS_MASK', self.ONES)), [
            (8, '0800'),
            (84, '1c000180060001000102000005000200800000000800030000880022'),
            (85, '1c00018006000100ffff000005000200ff00000008000300ffffffff'),
            (22, '08000000'), (86, '00000000')])

    def test_layout(self):
        f = self.parse(attr('KEY_ENC_OPTS',
                            self.OPT + geneve(1, 2, b'\7' * 8)),
                       attr('KEY_ENC_OPTS_MASK', self.ONES + geneve(
                           0, 0xF, b'\xf0' * 8)))
        k, m = f.key['enc_opts'], f.mask['enc_opts']
        self.assertEqual(bytes(k[:20]), bytes.fromhex(
            '0102800100880022000102020707070707070707'))
        self.assertEqual((k[255], bytes(k[256:])), (20, b'\x08\x00'))
        # the mask's length bits are all ones, its len 0xff
        self.assertEqual(bytes(m[:20]), bytes.fromhex(
            'ffffff1fffffffff00000f1ff0f0f0f0f0f0f0f0'))
        self.assertEqual((m[255], bytes(m[256:])), (0xFF, b'\xd8\x00'))

    def test_no_mask_is_the_all_ones_mask(self):
        # What the model says (the kernel comment: "Without a mask every
        # bit counts"); the kernel at 1046a8a refuses it (guest: prio 1)
        a = self.parse(attr('KEY_ENC_OPTS', self.OPT))
        b = self.parse(attr('KEY_ENC_OPTS', self.OPT),
                       attr('KEY_ENC_OPTS_MASK', self.ONES))
        self.assertEqual(fuzz.canon(a.mask), fuzz.canon(b.mask))

    def test_refusals(self):
        cases = [
            # guest: prio 11, 12, 13, 14
            (22, 'Malformed or empty tunnel options', b''),
            (22, 'Unknown attribute type', nla(1, nla(4, bytes(4)) + nla(
                1, b'\1\0') + nla(2, b'\1') + nla(3, bytes(4)))),
            (22, 'Malformed or empty tunnel options',
             geneve(1, 1, b'\1' * 4) + b'\1\2\3\4\5'),
            (95, 'Only Geneve tunnel options are supported',
             nla(2, nla(1, bytes(4)))),
            (22, 'Geneve option needs class, type and data',
             nla(1, nla(1, b'\1\2') + nla(3, bytes(4)))),
            (22, 'invalid attribute length',
             nla(1, nla(1, b'\1') + nla(2, b'\1') + nla(3, bytes(4)))),
            (22, 'Geneve option data must be 4 to 124 bytes, a multiple '
                 'of 4', geneve(1, 1, bytes(6))),
            (22, 'Geneve option data must be 4 to 124 bytes, a multiple '
                 'of 4', geneve(1, 1, bytes(128))),
            (34, 'Attribute failed policy validation',
             geneve(1, 1, bytes(132))),
            (22, 'bytes leftover after parsing attributes',
             nla(1, nla(1, b'\1\2') + nla(2, b'\1') + nla(3, bytes(4)) +
                 b'\1\2')),
            (22, 'Geneve options longer than 255 bytes',
             geneve(1, 1, bytes(124)) + geneve(1, 1, bytes(124)) +
             geneve(1, 1, bytes(4))),
        ]
        for code, msg, payload in cases:
            with self.subTest(msg=msg, payload=payload.hex()):
                self.refused(code, msg, attr('KEY_ENC_OPTS', payload),
                             attr('KEY_ENC_OPTS_MASK', self.ONES))

    def test_unpadded_last_option(self):
        inner = nla(1, b'\1\2') + nla(3, bytes(4)) + \
            struct.pack('<HH', 5, 2) + b'\x80'
        payload = struct.pack('<HH', 4 + len(inner), 1) + inner
        self.refused(22, 'Malformed or empty tunnel options',
                     attr('KEY_ENC_OPTS', payload),
                     attr('KEY_ENC_OPTS_MASK', self.ONES))

    def test_mask_lengths(self):
        # guest: prio 14
        self.refused(22, "Tunnel options mask does not have the options' "
                         "lengths",
                     attr('KEY_ENC_OPTS', geneve(1, 1, b'\1' * 4)),
                     attr('KEY_ENC_OPTS_MASK', geneve(1, 1, b'\1' * 8)))
        self.refused(22, 'Mask given without its key',
                     attr('KEY_ENC_OPTS_MASK', self.ONES))


class TestConntrackKeys(Base):
    def state(self, key, mask=None):
        attrs = [attr('KEY_CT_STATE', struct.pack('<H', key))]
        if mask is not None:
            attrs.append(attr('KEY_CT_STATE_MASK', struct.pack('<H', mask)))
        return attrs

    def test_impossible_sets(self):
        for key, mask, msg in (
                (1, None, 'ct_state flags other than trk need +trk'),
                (0x0B, None, 'ct_state +new excludes +est and +rpl'),
                (0x29, 0x3F, 'ct_state +new excludes +est and +rpl'),
                (0x1A, None, 'ct_state +inv goes with +trk alone'),
                (0x48, 0xFFFF, 'Unknown ct_state flags')):
            with self.subTest(key=key, mask=mask):
                self.refused(22, msg, *self.state(key, mask))

    def test_only_flags_under_the_mask_count(self):
        self.parse(*self.state(0x0B, 0x09))          # +trk+new, est ignored
        self.parse(*self.state(0x48, 0x3F))          # unknown bit masked out
        self.parse(*self.state(0x00, 0x08))          # -trk
        self.assertEqual(self.dump(*self.state(0x0B, 0x09)),
                         [(8, '0800'), (91, '0b00'), (92, '0900'),
                          (22, '08000000'), (86, '00000000')])

    def test_labels_short_and_long(self):
        # guest: prio 5, 6, 9, 10
        self.assertEqual(self.dump(attr('KEY_CT_LABELS', b'\1\2')),
                         [(8, '0800'), (97, '0102' + '00' * 14),
                          (98, 'ff' * 16), (22, '08000000'), (86, '00000000')])
        self.refused(34, 'Attribute failed policy validation',
                     attr('KEY_CT_LABELS', bytes(17)))
        self.assertEqual(self.dump(
            attr('KEY_CT_LABELS', b''), attr('KEY_CT_MARK', b'\1\0\0\0'),
            attr('KEY_CT_MARK_MASK', bytes(4))),
            [(8, '0800'), (97, '00' * 16), (98, 'ff' * 16),
             (22, '08000000'), (86, '00000000')])
        self.assertEqual(self.dump(attr('KEY_CT_LABELS', b'\1'),
                                   attr('KEY_CT_LABELS_MASK', b'')),
                         [(8, '0800'), (22, '08000000'), (86, '00000000')])

    def test_order_tunnel_options_before_ct_state(self):
        # fl_set_key(): enc_opts are parsed before the fl_keys[] rows and
        # fl_check_ct() comes last
        self.refused(22, 'Malformed or empty tunnel options',
                     *self.state(1),
                     attr('KEY_ENC_OPTS', b''))


def u16(v):
    return struct.pack('<H', v)


def be16(v):
    return struct.pack('>H', v)


def be32(v):
    return struct.pack('>I', v)


MPLS_UC, PPP_SES, QINQ = 0x8847, 0x8864, 0x88A8
LSE = fuzz.LSE_ATTR
F = fuzz.NLA_F_NESTED


def lse(*attrs, nested=True):
    """One MPLS_OPTS_LSE of (name, bytes) attributes."""
    return nla(1 | (F if nested else 0),
               b''.join(nla(LSE[n], v) for n, v in attrs))


class TestIpFlags(Base):
    def test_key_and_mask_both_known_bits(self):
        # fl_set_key_ip_flags()
        self.refused(22, 'Mask given without its key',
                     attr('KEY_FLAGS_MASK', be32(1)))
        self.refused(22, 'Missing flags mask', attr('KEY_FLAGS', be32(1)))
        self.refused(95, 'Unsupported flower key flags: only frag and '
                         'firstfrag',
                     attr('KEY_FLAGS', be32(1)), attr('KEY_FLAGS_MASK',
                                                      be32(4)))
        self.refused(95, 'Unsupported flower key flags: only frag and '
                         'firstfrag',
                     attr('KEY_FLAGS', be32(0x80000000)),
                     attr('KEY_FLAGS_MASK', be32(3)))
        self.refused(22, 'invalid attribute length',
                     attr('KEY_FLAGS', b'\1'), attr('KEY_FLAGS_MASK',
                                                     be32(3)))

    def test_any_protocol_and_dump(self):
        # no need: ip_flags on an ARP filter; dumped after the protocol,
        # before the fl_keys[] rows (fl_dump_key())
        self.assertEqual(self.dump(
            attr('KEY_ARP_OP', b'\1'), attr('KEY_FLAGS_MASK', be32(3)),
            attr('KEY_FLAGS', be32(1)), attr('KEY_ETH_TYPE', be16(0x0806)),
            proto=0x0806),
            [(8, '0806'), (47, '00000001'), (48, '00000003'), (61, '01'),
             (62, 'ff'), (22, '08000000'), (86, '00000000')])
        # under a zero mask: not dumped, the mask is a filter's without
        self.assertEqual(self.dump(attr('KEY_FLAGS', be32(1)),
                                   attr('KEY_FLAGS_MASK', be32(0)),
                                   proto=0x0003),
                         [(22, '08000000'), (86, '00000000')])
        a = self.parse(attr('KEY_FLAGS', be32(1)),
                       attr('KEY_FLAGS_MASK', be32(0)), proto=0x0003)
        self.assertEqual(fuzz.canon(a.mask), ())


class TestTags(Base):
    QINQ = [attr('KEY_ETH_TYPE', be16(VLAN)), attr('KEY_VLAN_ID', u16(5)),
            attr('KEY_VLAN_ETH_TYPE', be16(QINQ))]

    def test_qinq_dump(self):
        # fl_dump_key_vlans(): the innermost ethertype first, the outer
        # tag, vlan_ethtype (the inner TPID), the inner tag, its ethertype
        self.assertEqual(self.dump(
            *self.QINQ, attr('KEY_CVLAN_PRIO', b'\3'),
            attr('KEY_CVLAN_ID', u16(7)),
            attr('KEY_CVLAN_ETH_TYPE', be16(IP)),
            attr('KEY_IPV4_SRC', b'\1\2\3\4'), proto=VLAN),
            [(8, '0800'), (23, '0500'), (25, '88a8'), (77, '0700'),
             (78, '03'), (79, '0800'), (10, '01020304'), (11, 'ffffffff'),
             (22, '08000000'), (86, '00000000')])
        # no inner ethertype: no ETH_TYPE at all
        self.assertEqual(self.dump(*self.QINQ, attr('KEY_CVLAN_ID', u16(7)),
                                   proto=VLAN),
                         [(23, '0500'), (25, '88a8'), (77, '0700'),
                          (22, '08000000'), (86, '00000000')])

    def test_inner_tag_needs_qinq(self):
        msg = 'Key requires vlan_ethtype 802.1q or 802.1ad'
        self.refused(22, msg, attr('KEY_ETH_TYPE', be16(VLAN)),
                     attr('KEY_VLAN_ETH_TYPE', be16(IP)),
                     attr('KEY_CVLAN_ID', u16(7)), proto=VLAN)
        # without vlan_ethtype the inner id's range is not even looked at
        self.refused(22, msg, attr('KEY_ETH_TYPE', be16(VLAN)),
                     attr('KEY_CVLAN_ID', u16(5000)), proto=VLAN)
        self.refused(22, msg, attr('KEY_CVLAN_ETH_TYPE', be16(IP)))
        # the outer tag's checks come first
        self.refused(22, 'Key requires protocol 802.1q or 802.1ad',
                     attr('KEY_CVLAN_ID', u16(5)), attr('KEY_VLAN_ID', u16(5)))

    def test_tag_needs_come_after_the_rows(self):
        # fl_check_tags() runs after the fl_keys[] rows: a row's need is
        # refused first, whatever the message order
        self.refused(22, 'Key requires protocol ipv6',
                     attr('KEY_VLAN_ID', u16(5)),
                     attr('KEY_IPV6_SRC', bytes(16)))
        self.refused(22, 'Key requires protocol 802.1q or 802.1ad',
                     attr('KEY_VLAN_ID', u16(5)),
                     attr('KEY_IPV4_SRC', bytes(4)))

    def test_inner_tag_ranges(self):
        self.refused(22, 'VLAN id must be below 4096', *self.QINQ,
                     attr('KEY_CVLAN_ID', u16(4096)), proto=VLAN)
        self.refused(22, 'VLAN priority must be below 8', *self.QINQ,
                     attr('KEY_CVLAN_PRIO', b'\x08'), proto=VLAN)

    def test_num_of_vlans_makes_a_tag_of_any_ethertype(self):
        # fl_is_tag(): protocol ip num_of_vlans 1: ETH_TYPE is the TPID
        f = self.parse(attr('KEY_ETH_TYPE', be16(IP)),
                       attr('KEY_NUM_OF_VLANS', b'\1'),
                       attr('KEY_VLAN_ID', u16(5)))
        self.assertEqual(bytes(f.key['vlan_tpid']), be16(IP))
        self.assertFalse(any(f.mask['n_proto']))
        # so an IP key needs vlan_ethtype ip
        self.refused(22, 'Key requires protocol ip',
                     attr('KEY_ETH_TYPE', be16(IP)),
                     attr('KEY_NUM_OF_VLANS', b'\1'),
                     attr('KEY_IPV4_SRC', bytes(4)))
        self.assertEqual(self.dump(
            attr('KEY_ETH_TYPE', be16(IP)), attr('KEY_NUM_OF_VLANS', b'\1'),
            attr('KEY_VLAN_ETH_TYPE', be16(IPV6)),
            attr('KEY_IPV6_DST', bytes(16))),
            [(8, '86dd'), (25, '86dd'), (102, '01'), (16, '00' * 16),
             (17, 'ff' * 16), (22, '08000000'), (86, '00000000')])
        # > 1: vlan_ethtype is the inner tag's TPID, whatever it is
        f = self.parse(attr('KEY_ETH_TYPE', be16(VLAN)),
                       attr('KEY_NUM_OF_VLANS', b'\2'),
                       attr('KEY_VLAN_ETH_TYPE', be16(IP)),
                       attr('KEY_CVLAN_ID', u16(9)), proto=VLAN)
        self.assertEqual(bytes(f.key['cvlan_tpid']), be16(IP))
        # 0: no tag
        self.refused(22, 'Key requires protocol 802.1q or 802.1ad',
                     attr('KEY_ETH_TYPE', be16(IP)),
                     attr('KEY_NUM_OF_VLANS', b'\0'),
                     attr('KEY_VLAN_ID', u16(5)))
        # no ETH_TYPE: num_of_vlans is a plain key
        self.assertEqual(self.dump(attr('KEY_NUM_OF_VLANS', b'\3'),
                                   attr('KEY_ETH_SRC', bytes(6)), proto=0x3),
                         [(6, '00' * 6), (7, 'ff' * 6), (102, '03'),
                          (22, '08000000'), (86, '00000000')])


class TestPppoe(Base):
    def test_session_and_carried_protocol(self):
        # fl_set_key_pppoe(): ppp_proto ip sets basic.n_proto
        self.assertEqual(self.dump(
            attr('KEY_ETH_TYPE', be16(PPP_SES)),
            attr('KEY_PPP_PROTO', be16(0x21)),
            attr('KEY_PPPOE_SID', be16(0x1234)),
            attr('KEY_IPV4_DST', b'\1\2\3\4'), proto=PPP_SES),
            [(8, '8864'), (104, '0021'), (103, '1234'), (12, '01020304'),
             (13, 'ffffffff'), (22, '08000000'), (86, '00000000')])
        self.refused(22, 'Key requires protocol ip',
                     attr('KEY_ETH_TYPE', be16(PPP_SES)),
                     attr('KEY_PPP_PROTO', be16(0x57)),
                     attr('KEY_IPV4_DST', b'\1\2\3\4'), proto=PPP_SES)
        # any other PPP protocol is taken as given
        f = self.parse(attr('KEY_ETH_TYPE', be16(PPP_SES)),
                       attr('KEY_PPP_PROTO', be16(0xC021)), proto=PPP_SES)
        self.assertFalse(any(f.mask['n_proto']))

    def test_behind_a_tag(self):
        self.assertEqual(self.dump(
            attr('KEY_ETH_TYPE', be16(VLAN)),
            attr('KEY_VLAN_ETH_TYPE', be16(PPP_SES)),
            attr('KEY_PPP_PROTO', be16(0x281)),
            attr('KEY_MPLS_LABEL', struct.pack('<I', 16)), proto=VLAN),
            [(8, '8847'), (25, '8864'), (104, '0281'), (70, '10000000'),
             (22, '08000000'), (86, '00000000')])

    def test_needs_ppp_ses(self):
        for a in (attr('KEY_PPP_PROTO', be16(0x21)),
                  attr('KEY_PPPOE_SID', be16(1))):
            with self.subTest(a=a):
                self.refused(22, 'Key requires protocol ppp_ses', a)
        # num_of_vlans 1: the session ethertype is a tag's TPID
        self.refused(22, 'Key requires protocol ppp_ses',
                     attr('KEY_ETH_TYPE', be16(PPP_SES)),
                     attr('KEY_NUM_OF_VLANS', b'\1'),
                     attr('KEY_PPP_PROTO', be16(0x21)), proto=PPP_SES)


class TestMpls(Base):
    MPLS = attr('KEY_ETH_TYPE', be16(MPLS_UC))

    def test_needs_the_protocol(self):
        for name, v in (('KEY_MPLS_LABEL', bytes(4)), ('KEY_MPLS_TTL', b'\1'),
                        ('KEY_MPLS_OPTS', b'')):
            with self.subTest(name=name):
                self.refused(22, 'Key requires protocol mpls_uc or mpls_mc',
                             attr(name, v))
        # before the range: fl_check_need() first
        self.refused(22, 'Key requires protocol mpls_uc or mpls_mc',
                     attr('KEY_MPLS_BOS', b'\2'))

    def test_ranges(self):
        for name, v, msg in (
                ('KEY_MPLS_BOS', b'\2', 'Bottom Of Stack (BOS) must be 0 or 1'),
                ('KEY_MPLS_TC', b'\x08',
                 'Traffic Class (TC) must be between 0 and 7'),
                ('KEY_MPLS_LABEL', struct.pack('<I', 0x100000),
                 'Label must be between 0 and 1048575')):
            with self.subTest(name=name):
                self.refused(22, msg, self.MPLS, attr(name, v),
                             proto=MPLS_UC)
        # bos is looked at before the label, whatever the message order
        self.refused(22, 'Bottom Of Stack (BOS) must be 0 or 1', self.MPLS,
                     attr('KEY_MPLS_LABEL', struct.pack('<I', 0x100000)),
                     attr('KEY_MPLS_BOS', b'\3'), proto=MPLS_UC)

    def test_flat_and_options_exclusive(self):
        self.refused(74, 'MPLS label, Traffic Class, Bottom Of Stack and '
                         'Time To Live must be encapsulated in the MPLS '
                         'options attribute',
                     self.MPLS, attr('KEY_MPLS_TTL', b'\1'),
                     attr('KEY_MPLS_OPTS', lse(('DEPTH', b'\1'))),
                     proto=MPLS_UC)

    def test_option_refusals(self):
        d1 = ('DEPTH', b'\1')
        cases = [
            (22, 'Malformed or empty MPLS options', b''),
            (34, 'Attribute failed policy validation', b'\1\2\3'),
            (22, 'Only LSE options are allowed in MPLS options',
             lse(d1) + nla(2, nla(1, b'\2'))),
            (22, 'Missing MPLS option "depth"', lse(('TTL', b'\1'))),
            (22, 'MPLS depth must be between 1 and 7', lse(('DEPTH', b'\0'))),
            (22, 'MPLS depth must be between 1 and 7', lse(('DEPTH', b'\x08'))),
            (22, 'MPLS depth given more than once',
             lse(d1, ('TTL', b'\1')) + lse(('LABEL', bytes(4)), d1)),
            (22, 'invalid attribute length', lse(d1, ('LABEL', b'\1'))),
            (22, 'invalid attribute length', lse(('DEPTH', b'\1\0'))),
            (22, 'Unknown attribute type', nla(1, nla(6, b'') + nla(
                LSE['DEPTH'], b'\1'))),
            (22, 'bytes leftover after parsing attributes',
             nla(1, nla(LSE['DEPTH'], b'\1') + b'\1\2')),
            (22, 'Malformed or empty MPLS options', lse(d1) + b'\1\2'),
            (22, 'Traffic Class (TC) must be between 0 and 7',
             lse(('DEPTH', b'\3'), ('TC', b'\x09'))),
        ]
        for code, msg, payload in cases:
            with self.subTest(msg=msg, payload=payload.hex()):
                self.refused(code, msg, self.MPLS,
                             attr('KEY_MPLS_OPTS', payload), proto=MPLS_UC)

    def test_unpadded_last_option(self):
        inner = nla(LSE['TTL'], b'\5') + struct.pack('<HH', 5, LSE['DEPTH']) \
            + b'\3'
        payload = struct.pack('<HH', 4 + len(inner), 1) + inner
        self.refused(22, 'Malformed or empty MPLS options', self.MPLS,
                     attr('KEY_MPLS_OPTS', payload), proto=MPLS_UC)

    def test_dumps(self):
        # fl_dump_key_mpls(): the first entry alone, with a field: flat
        label = struct.pack('<I', 0xFFFFF)
        flat = [(8, '8847'), (67, '40'), (70, 'ffff0f00'), (22, '08000000'),
                (86, '00000000')]
        self.assertEqual(self.dump(self.MPLS, attr('KEY_MPLS_LABEL', label),
                                   attr('KEY_MPLS_TTL', b'\x40'),
                                   proto=MPLS_UC), flat)
        self.assertEqual(self.dump(self.MPLS, attr('KEY_MPLS_OPTS', lse(
            ('LABEL', label), ('DEPTH', b'\1'), ('TTL', b'\x40'),
            nested=False)), proto=MPLS_UC), flat)
        # other depths, or an entry without a field: nested, in depth
        # order, NLA_F_NESTED on each entry (nla_nest_start())
        self.assertEqual(self.dump(self.MPLS, attr('KEY_MPLS_OPTS', lse(
            ('DEPTH', b'\3'), ('TC', b'\5')) + lse(('DEPTH', b'\1'))),
            proto=MPLS_UC),
            [(8, '8847'), (99, nla(1 | F, nla(1, b'\1')).hex() +
                           nla(1 | F, nla(1, b'\3') + nla(4, b'\5')).hex()),
             (22, '08000000'), (86, '00000000')])

    def test_dump_of_the_first_entry_without_a_field_is_nested(self):
        self.assertEqual(self.dump(self.MPLS, attr('KEY_MPLS_OPTS', lse(
            ('DEPTH', b'\1'))), proto=MPLS_UC),
            [(8, '8847'), (99, nla(1 | F, nla(1, b'\1')).hex()),
             (22, '08000000'), (86, '00000000')])

    def test_dump_order_ip_flags_then_mpls(self):
        # fl_dump_key(): eth_type, ip_flags, MPLS, then the fl_keys[] rows
        self.assertEqual(self.dump(
            attr('KEY_ETH_DST', bytes(6)), attr('KEY_MPLS_BOS', b'\1'),
            attr('KEY_FLAGS', be32(2)), attr('KEY_FLAGS_MASK', be32(2)),
            self.MPLS, proto=MPLS_UC),
            [(8, '8847'), (47, '00000002'), (48, '00000002'), (68, '01'),
             (4, '00' * 6), (5, 'ff' * 6), (22, '08000000'), (86, '00000000')])

    def test_mask_counts_the_entries(self):
        a = self.parse(self.MPLS, attr('KEY_MPLS_OPTS', lse(('DEPTH', b'\2'))),
                       proto=MPLS_UC)
        b = self.parse(self.MPLS, attr('KEY_MPLS_OPTS', lse(('DEPTH', b'\3'))),
                       proto=MPLS_UC)
        self.assertNotEqual(fuzz.canon(a.mask), fuzz.canon(b.mask))


class TestL2tp(Base):
    def test_needs_ip_proto_l2tp(self):
        self.refused(22, 'Key requires ip_proto l2tp',
                     attr('KEY_ETH_TYPE', be16(IP)),
                     attr('KEY_IP_PROTO', b'\x06'),
                     attr('KEY_L2TPV3_SID', be32(1)))
        # dumped after the ARP rows, before the tunnel's (fl_keys[])
        self.assertEqual(self.dump(
            attr('KEY_ENC_KEY_ID', be32(2)), attr('KEY_L2TPV3_SID', be32(7)),
            attr('KEY_IP_PROTO', b'\x73'), attr('KEY_ETH_TYPE', be16(IPV6)),
            proto=IPV6),
            [(8, '86dd'), (9, '73'), (105, '00000007'), (26, '00000002'),
             (22, '08000000'), (86, '00000000')])


def v4src(addr, mask):
    """ETH_TYPE ip and src_ip addr/mask (dotted strings)."""
    return [attr('KEY_ETH_TYPE', be16(IP)),
            attr('KEY_IPV4_SRC', socket.inet_aton(addr)),
            attr('KEY_IPV4_SRC_MASK', socket.inet_aton(mask))]


class TestMasks(Base):
    """Several masks in one prio, as stock's fl_check_assign_mask() keeps
    them: each its own hash table, in the order first added."""

    def new(self, attrs, prio=1, proto=IP, handle=0, replace=False):
        """predict_new() of an add (or a replace of handle) -> commit."""
        flags = fuzz.NLM_F_CREATE | (fuzz.NLM_F_REPLACE if replace else
                                     fuzz.NLM_F_EXCL)
        return self.model.predict_new(fuzz.Op(
            'new', ifindex=DEVS['fz0'], prio=prio, proto=proto,
            flags=flags, handle=handle, attrs=list(attrs)))

    def add(self, attrs, **kw):
        commit = self.new(attrs, **kw)
        commit()
        return commit.tp

    def masks(self, prio=1):
        """The prio's masks, oldest first, as their IPv4 source masks."""
        return [bytes(m['l3'][:4]) for m in
                self.model.tps[(0, prio)].masks.values()]

    def test_another_mask_joins_the_prio_youngest_last(self):
        self.add(v4src('10.0.0.0', '255.0.0.0'))
        self.add(v4src('10.1.0.0', '255.255.0.0'))
        self.add(v4src('11.0.0.0', '255.0.0.0'))      # the first mask again
        self.add(v4src('10.1.2.0', '255.255.255.0'))
        self.assertEqual(self.masks(), [b'\xff\0\0\0', b'\xff\xff\0\0',
                                        b'\xff\xff\xff\0'])
        self.assertEqual(sorted(self.model.tps[(0, 1)].filters), [1, 2, 3, 4])

    def test_a_mask_goes_with_its_last_filter_and_comes_back_youngest(self):
        self.add(v4src('10.0.0.0', '255.0.0.0'))               # handle 1
        self.add(v4src('10.1.0.0', '255.255.0.0'))             # 2
        self.add(v4src('11.0.0.0', '255.0.0.0'))               # 3
        drop = fuzz.Op('del', ifindex=DEVS['fz0'], prio=1, proto=IP,
                       handle=1)
        self.model.predict_del(drop)()
        self.assertEqual(self.masks(), [b'\xff\0\0\0', b'\xff\xff\0\0'])
        drop.handle = 3
        self.model.predict_del(drop)()
        self.assertEqual(self.masks(), [b'\xff\xff\0\0'])
        self.add(v4src('12.0.0.0', '255.0.0.0'))
        self.assertEqual(self.masks(), [b'\xff\xff\0\0', b'\xff\0\0\0'])
        # the last filter: the prio goes
        for h in (1, 2):
            drop.handle = h
            self.model.predict_del(drop)()
        self.assertNotIn((0, 1), self.model.tps)

    def test_same_masked_key_in_the_same_mask_exists(self):
        self.add(v4src('10.0.0.0', '255.0.0.0'))
        self.add(v4src('10.1.0.0', '255.255.0.0'))
        with self.assertRaises(Err) as cm:
            self.new(v4src('10.9.9.9', '255.0.0.0'))    # 10/8 again
        self.assertEqual(cm.exception.codes, {17})
        self.assertEqual(cm.exception.msg, fuzz.EEXIST_MSG)
        with self.assertRaises(Err):
            self.new(v4src('10.1.7.7', '255.255.0.0'))  # 10.1/16 again

    def test_same_masked_bytes_under_another_mask_are_another_key(self):
        # 10.0.0.0 under /8 and under /16: the same masked bytes, but two
        # masks (two hash tables): both accepted
        self.add(v4src('10.0.0.0', '255.0.0.0'))
        a = self.model.tps[(0, 1)].filters[1]
        b = self.parse(*v4src('10.0.0.0', '255.255.0.0'))
        self.assertEqual(a.mkey(), b.mkey())
        self.add(v4src('10.0.0.0', '255.255.0.0'))
        self.assertEqual(len(self.model.tps[(0, 1)].masks), 2)

    def test_replace_moves_the_filter_to_another_mask(self):
        self.add(v4src('10.0.0.0', '255.0.0.0'))                # 1
        self.add(v4src('10.1.0.0', '255.255.0.0'))              # 2
        self.add(v4src('10.1.2.0', '255.255.255.0'), handle=1, replace=True)
        tp = self.model.tps[(0, 1)]
        self.assertEqual(sorted(tp.filters), [1, 2])
        # the new mask appended, the old one gone with its only filter
        self.assertEqual(self.masks(), [b'\xff\xff\0\0',
                                        b'\xff\xff\xff\0'])
        # onto another filter's key under its mask: EEXIST, nothing changes
        with self.assertRaises(Err) as cm:
            self.new(v4src('10.1.9.9', '255.255.0.0'), handle=1,
                     replace=True)
        self.assertEqual(cm.exception.codes, {17})
        # its own key and mask again (other action): fine, order kept
        self.add(v4src('10.1.2.0', '255.255.255.0'), handle=1, replace=True)
        self.assertEqual(self.masks(), [b'\xff\xff\0\0',
                                        b'\xff\xff\xff\0'])

    def test_dump_shows_each_filters_own_mask(self):
        self.add(v4src('10.0.0.0', '255.0.0.0'))
        tp = self.add(v4src('10.1.0.0', '255.255.0.0'))
        self.assertEqual(
            [(t, v.hex()) for t, v in self.model.expected_opts(
                tp, tp.filters[2])],
            [(8, '0800'), (10, '0a010000'), (11, 'ffff0000'),
             (22, '08000000'), (86, '00000000')])

    def test_resync_keeps_the_mask_order_of_the_filters_it_keeps(self):
        self.add(v4src('10.1.0.0', '255.255.0.0'))              # 1
        self.add(v4src('10.0.0.0', '255.0.0.0'))                # 2
        tp = self.model.tps[(0, 1)]
        bodies = [body(1, IP, 0, None)] + [
            body(1, IP, h, self.model.expected_opts(tp, tp.filters[h]))
            for h in (1, 2)]
        self.assertEqual(fuzz.resync(self.model, bodies), [])
        self.assertEqual(self.masks(), [b'\xff\xff\0\0', b'\xff\0\0\0'])


class TestProtocol(Base):
    """A request without ETH_TYPE takes the filter's protocol."""

    def test_no_eth_type_is_the_filters_protocol(self):
        f = self.parse(attr('KEY_IPV4_SRC', b'\1\2\3\4'))
        g = self.parse(attr('KEY_ETH_TYPE', be16(IP)),
                       attr('KEY_IPV4_SRC', b'\1\2\3\4'))
        self.assertEqual(f.ident(), g.ident())
        self.assertEqual(self.dump(attr('KEY_IPV4_SRC', b'\1\2\3\4')),
                         [(8, '0800'), (10, '01020304'), (11, 'ffffffff'),
                          (22, '08000000'), (86, '00000000')])
        # a VLAN protocol is the tag's TPID
        f = self.parse(attr('KEY_VLAN_ID', u16(5)), proto=VLAN)
        self.assertEqual(bytes(f.key['vlan_tpid']), be16(VLAN))
        # protocol all: no ethertype, IPv4 keys refused
        self.refused(22, 'Key requires protocol ip',
                     attr('KEY_IPV4_SRC', b'\1\2\3\4'), proto=0x0003)


class TestNumOfVlans(Base):
    """Stock's rule: num_of_vlans > 0 makes the vlan_* keys apply (the
    ethertype need not be a VLAN TPID; under protocol all there is no TPID
    to match), num_of_vlans > 1 the cvlan_* keys."""

    def test_protocol_all_one_tag_without_a_tpid(self):
        f = self.parse(attr('KEY_NUM_OF_VLANS', b'\1'),
                       attr('KEY_VLAN_PRIO', b'\5'), proto=0x0003)
        self.assertFalse(any(f.mask['vlan_tpid']))
        self.assertEqual(f.key['vlan_prio'][0], 5)
        self.assertEqual(self.dump(attr('KEY_NUM_OF_VLANS', b'\1'),
                                   attr('KEY_VLAN_PRIO', b'\5'),
                                   proto=0x0003),
                         [(24, '05'), (102, '01'), (22, '08000000'),
                          (86, '00000000')])

    def test_protocol_all_vlan_ethtype_ip_and_src_ip(self):
        self.assertEqual(self.dump(
            attr('KEY_NUM_OF_VLANS', b'\1'),
            attr('KEY_VLAN_ETH_TYPE', be16(IP)),
            attr('KEY_IPV4_SRC', b'\1\2\3\4'), proto=0x0003),
            [(8, '0800'), (25, '0800'), (102, '01'), (10, '01020304'),
             (11, 'ffffffff'), (22, '08000000'), (86, '00000000')])

    def test_two_tags_without_vlan_ethtype(self):
        # stock's is_vlan_key() with no VLAN_ETH_TYPE: num_of_vlans > 1
        # is enough for the inner tag, and cvlan_ethtype is the protocol
        self.assertEqual(self.dump(
            attr('KEY_NUM_OF_VLANS', b'\2'), attr('KEY_CVLAN_ID', u16(7)),
            attr('KEY_CVLAN_ETH_TYPE', be16(IPV6)), proto=0x0003),
            [(8, '86dd'), (77, '0700'), (79, '86dd'), (102, '02'),
             (22, '08000000'), (86, '00000000')])
        f = self.parse(attr('KEY_NUM_OF_VLANS', b'\2'),
                       attr('KEY_CVLAN_ID', u16(7)), proto=VLAN)
        self.assertEqual(bytes(f.key['vlan_tpid']), be16(VLAN))
        self.assertFalse(any(f.mask['cvlan_tpid']))

    def test_tag_keys_need_enough_tags(self):
        self.refused(22, 'Key requires vlan_ethtype 802.1q or 802.1ad',
                     attr('KEY_NUM_OF_VLANS', b'\1'),
                     attr('KEY_CVLAN_PRIO', b'\3'), proto=0x0003)
        for n in (None, b'\0'):
            with self.subTest(n=n):
                attrs = [attr('KEY_VLAN_PRIO', b'\5')]
                if n is not None:
                    attrs.append(attr('KEY_NUM_OF_VLANS', n))
                self.refused(22, 'Key requires protocol 802.1q or 802.1ad',
                             *attrs, proto=0x0003)


class TestAnswer(unittest.TestCase):
    """Extack messages compare exactly, not on a prefix."""

    def test_exact_message(self):
        from stress.nlsock import Reply
        want = Err(22, 'Key requires protocol ip')
        self.assertTrue(fuzz.answer_matches(want, Reply(
            err=22, msg='Key requires protocol ip')))
        # the first 25 characters are the same: still another message
        self.assertFalse(fuzz.answer_matches(want, Reply(
            err=22, msg='Key requires protocol ip or ipv6')))
        self.assertFalse(fuzz.answer_matches(want, Reply(err=22)))
        self.assertFalse(fuzz.answer_matches(want, Reply(
            err=95, msg='Key requires protocol ip')))
        # None: the kernel gives none; ANY: not predicted
        self.assertTrue(fuzz.answer_matches(Err(19), Reply(err=19)))
        self.assertFalse(fuzz.answer_matches(Err(19), Reply(err=19,
                                                            msg='x')))
        self.assertTrue(fuzz.answer_matches(Err(22, fuzz.ANY), Reply(
            err=22, msg='anything')))
        self.assertTrue(fuzz.answer_matches(None, Reply(err=0)))
        self.assertFalse(fuzz.answer_matches(None, Reply(err=0,
                                                         lost=True)))


def body(prio, proto, handle, opts, chain=0):
    """An RTM_NEWTFILTER payload as a dump gives it (opts: [(type,
    bytes)], None for a prio's header)."""
    out = struct.pack('<BxxxiIII', 0, DEVS['fz0'], handle, 0xFFFFFFF1,
                      (prio << 16) | socket.htons(proto))
    out += nla(1, b'flower\0') + nla(11, struct.pack('<I', chain))
    if opts is not None and A['IN_HW_COUNT'] not in (t for t, _v in opts):
        opts = list(opts) + [(A['IN_HW_COUNT'], bytes(4))]   # fl_dump_flags()
    if opts is not None:
        out += nla(2, b''.join(nla(t, v) for t, v in opts))
    return out


class TestResync(Base):
    FLAGS = (A['FLAGS'], struct.pack('<I', 8))

    def test_unparseable_filter_is_a_problem(self):
        # a VLAN key in a prio of protocol all: its TPID is not in the dump
        bodies = [body(3, 0x0003, 0, None),
                  body(3, 0x0003, 7, [(A['KEY_VLAN_ID'], b'\5\0'),
                                      self.FLAGS])]
        problems = fuzz.resync(self.model, bodies)
        self.assertEqual(len(problems), 1)
        self.assertIn('chain 0 prio 3 handle 0x7: a VLAN filter in a prio '
                      'of protocol 0x3: its TPID is not in the dump',
                      problems[0])
        # one the parser refuses: a key that needs another protocol
        problems = fuzz.resync(self.model, [
            body(4, IPV6, 0, None),
            body(4, IPV6, 1, [(A['KEY_IPV4_SRC'], b'\1\2\3\4'),
                              (A['KEY_IPV4_SRC_MASK'], b'\xff' * 4),
                              self.FLAGS])])
        self.assertEqual(problems, [
            "chain 0 prio 4 handle 0x1: the model cannot parse the dumped "
            "filter (EINVAL 'Key requires protocol ip'): "
            "[KEY_IPV4_SRC=01020304, KEY_IPV4_SRC_MASK=ffffffff, "
            "FLAGS=00000000]"])
        self.assertEqual(self.model.tps[(0, 4)].filters, {})

    def test_vlan_filter_rebuilt_in_its_tpid_prio(self):
        opts = [(A['KEY_ETH_TYPE'], b'\x08\x00'),
                (A['KEY_VLAN_ID'], b'\5\0'),
                (A['KEY_VLAN_ETH_TYPE'], b'\x08\x00'),
                (A['KEY_CT_ZONE'], b'\1\0'),
                (A['KEY_CT_ZONE_MASK'], b'\xff\xff'),
                self.FLAGS]
        problems = fuzz.resync(self.model, [body(2, VLAN, 0, None),
                                            body(2, VLAN, 1, opts)])
        self.assertEqual(problems, [])
        tp = self.model.tps[(0, 2)]
        self.assertEqual(bytes(tp.filters[1].mask['vlan_tpid']), b'\xff\xff')
        self.assertEqual(list(tp.filters), [1])
        self.assertEqual(list(tp.masks), [fuzz.canon(tp.filters[1].mask)])

    def test_tagged_filters_rebuilt_with_the_protocol_as_tpid(self):
        # num_of_vlans 1 in a prio of protocol ip: the TPID is ip; a QinQ
        # filter with PPPoE inside: the innermost ethertype is ip
        cases = [
            (IP, [(A['KEY_ETH_TYPE'], be16(IPV6)),
                  (A['KEY_VLAN_ETH_TYPE'], be16(IPV6)),
                  (A['KEY_NUM_OF_VLANS'], b'\1'), self.FLAGS]),
            (VLAN, [(A['KEY_ETH_TYPE'], be16(IP)),
                    (A['KEY_VLAN_ETH_TYPE'], be16(QINQ)),
                    (A['KEY_CVLAN_ETH_TYPE'], be16(PPP_SES)),
                    (A['KEY_PPP_PROTO'], be16(0x21)),
                    (A['KEY_PPPOE_SID'], be16(3)), self.FLAGS])]
        for proto, opts in cases:
            with self.subTest(proto=proto):
                model = fuzz.Model(DEVS)
                problems = fuzz.resync(model, [body(2, proto, 0, None),
                                               body(2, proto, 1, opts)])
                self.assertEqual(problems, [])
                tp = model.tps[(0, 2)]
                self.assertEqual(bytes(tp.filters[1].mask['vlan_tpid']),
                                 b'\xff\xff')
                self.assertEqual(bytes(tp.filters[1].key['vlan_tpid']),
                                 be16(proto))

    def test_a_filter_the_model_holds_is_kept_exact(self):
        # src_ip under a zero mask does not dump, but sets addr_type: the
        # model's own filter (and its mask) stays
        op = fuzz.Op('new', ifindex=DEVS['fz0'], prio=4, proto=IP,
                     flags=fuzz.NLM_F_CREATE,
                     attrs=[attr('KEY_ETH_TYPE', b'\x08\x00'),
                            attr('KEY_IPV4_SRC', b'\1\2\3\4'),
                            attr('KEY_IPV4_SRC_MASK', bytes(4)),
                            attr('KEY_ENC_KEY_ID', b'\0\0\0\5')])
        self.model.predict_new(op)()
        tp = self.model.tps[(0, 4)]
        f = tp.filters[1]
        dumped = self.model.expected_opts(tp, f)
        problems = fuzz.resync(self.model, [body(4, IP, 0, None),
                                            body(4, IP, 1, dumped)])
        self.assertEqual(problems, [])
        self.assertIs(self.model.tps[(0, 4)].filters[1], f)
        self.assertEqual(bytes(f.mask['addr_type']), b'\xff\xff')

    def test_changed_filter_is_rebuilt_from_the_dump(self):
        op = fuzz.Op('new', ifindex=DEVS['fz0'], prio=5, proto=IP,
                     flags=fuzz.NLM_F_CREATE,
                     attrs=[attr('KEY_ENC_OPTS', TestGeneve.OPT),
                            attr('KEY_ENC_OPTS_MASK', TestGeneve.ONES)])
        self.model.predict_new(op)()
        tp = self.model.tps[(0, 5)]
        dumped = self.model.expected_opts(tp, tp.filters[1])
        # the kernel holds other option data under the same mask
        other = fuzz.geneve_dump(bytearray(b'\x01\x02\x80\x01\x00\x88\x00'
                                           b'\x33') + bytes(247),
                                 bytearray(b'\x01\x02\x80\x01') + bytes(251),
                                 8)
        i = [t for t, _v in dumped].index(A['KEY_ENC_OPTS'])
        dumped[i] = (A['KEY_ENC_OPTS'], other)
        problems = fuzz.resync(self.model, [body(5, IP, 0, None),
                                            body(5, IP, 1, dumped)])
        self.assertEqual(problems, [])
        f = self.model.tps[(0, 5)].filters[1]
        self.assertEqual(bytes(f.key['enc_opts'][:8]),
                         bytes.fromhex('0102800100880033'))


class TestStock(Base):
    """--stock: dumps compared as sets, filters ours refuses kept opaque."""

    def setUp(self):
        super().setUp()
        fuzz.Stock.on = True
        self.addCleanup(setattr, fuzz.Stock, 'on', False)

    def test_a_filter_ours_refuses_is_kept_opaque(self):
        opts = [(A['KEY_IPV4_SRC'], b'\1\2\3\4'),
                (A['KEY_IPV4_SRC_MASK'], b'\xff' * 4),
                (A['FLAGS'], struct.pack('<I', 8))]
        bodies = [body(4, IPV6, 0, None), body(4, IPV6, 1, opts)]
        self.assertEqual(fuzz.resync(self.model, bodies), [])
        tp = self.model.tps[(0, 4)]
        self.assertIsInstance(tp.filters[1], fuzz.OpaqueFilter)
        self.assertEqual(self.model.opaque, 1)
        self.assertEqual(fuzz.compare_dump(self.model, bodies), [])
        # in its own mask, whose key no other filter has
        self.assertEqual(len(tp.masks), 1)
        f = self.parse(attr('KEY_ETH_SRC', bytes(6)), proto=IPV6)
        self.assertNotEqual(f.ident(), tp.filters[1].ident())

    def test_attribute_order_does_not_count(self):
        f = self.parse(attr('KEY_ETH_TYPE', be16(IP)),
                       attr('KEY_IPV4_SRC', b'\1\2\3\4'))
        f.handle = 1
        tp = fuzz.Tp(0, 1, IP, None)
        tp.put(f)
        opts = list(reversed(self.model.expected_opts(tp, f)))
        self.assertIsNone(fuzz.compare_filter(self.model, tp, f, opts, {}))
        fuzz.Stock.on = False
        self.assertIsNotNone(fuzz.compare_filter(self.model, tp, f, opts,
                                                 {}))


class TestGenerator(unittest.TestCase):
    def test_sends_tunnel_and_ct_keys_and_dumps_round_trip(self):
        rng = random.Random(5)
        model = fuzz.Model(DEVS)
        gen = fuzz.Gen(rng, model, DEVS['fz0'])
        sent = dict.fromkeys((k for k, _p in fuzz.KINDS), 0)
        accepted = dict(sent)
        masks = collections.Counter()
        for _ in range(1500):
            x = rng.random()
            op = gen.valid_add() if x < 0.45 else gen.replace() \
                if x < 0.6 else gen.invalid() if x < 0.9 else gen.delete()
            op.sanitize()
            op.encode()
            kinds = fuzz.meta_kinds(op)
            for k in kinds:
                sent[k] += 1
            try:
                commit = model.predict_del(op) if op.what == 'del' else \
                    model.predict_new(op)
            except Err:
                continue
            tp = getattr(commit, 'tp', None)
            before = list(tp.masks) if tp is not None else []
            commit()
            after = list(tp.masks) if tp is not None else []
            if before and set(after) - set(before):
                masks['added beside others'] += 1
            if after and set(before) - set(after):
                masks['dropped, others left'] += 1
            masks['most'] = max(masks['most'], len(after))
            if op.recipe is not None and op.recipe.fam == 'nvlans' and \
                    not any(t == fuzz.T_ETH_TYPE for t, _d, _m in op.attrs):
                masks['tags without a TPID'] += 1
            for k in kinds:
                accepted[k] += 1
        for k in ('tunnel', 'ct'):
            self.assertGreater(sent[k], 100, k)
            self.assertGreater(accepted[k], 30, k)
        for k in ('ip_flags', 'cvlan', 'num_of_vlans', 'mpls', 'pppoe',
                  'l2tpv3'):
            self.assertGreater(sent[k], 40, k)
            self.assertGreater(accepted[k], 10, k)
        # second masks go into prios, and masks go with their last filter
        self.assertGreater(masks['added beside others'], 50, masks)
        self.assertGreater(masks['dropped, others left'], 10, masks)
        self.assertGreaterEqual(masks['most'], 4, masks)
        self.assertGreater(masks['tags without a TPID'], 5, masks)
        # every filter the model holds parses back from its dump (but a
        # tagged one with a TPID in a prio of protocol all: its TPID is
        # not in the dump, resync() reports it)
        for tp in model.tps.values():
            self.assertEqual(list(tp.masks), list(collections.OrderedDict(
                (c, 1) for c in tp.masks)))
            self.assertEqual(set(tp.masks), {fuzz.canon(f.mask) for f in
                                             tp.filters.values()})
            for f in tp.filters.values():
                opts = model.expected_opts(tp, f)
                if tp.proto == fuzz.ETH_P_ALL and any(f.mask['vlan_tpid']):
                    continue
                g = model.fl_parse(fuzz.dumped_request(tp.proto, opts),
                                   False, tp.proto)
                self.assertEqual(g.mkey(f.mask), f.mkey())


if __name__ == '__main__':
    unittest.main()
