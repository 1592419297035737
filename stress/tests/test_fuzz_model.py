# SPDX-License-Identifier: GPL-2.0
"""stress/fuzz.py's model of cls_flower (stress.flowerfuzz): the tunnel (enc_*) and conntrack
(ct_*) keys, their dumps, several masks in one prio, and resync().  The
golden dumps below marked "guest" are what the ours kernel (1046a8a)
answered in the guest to the same requests in a prio of protocol ip,
plus the ETH_TYPE 0800 that the tests' requests get when they have none
(Base: as tc sends it)."""

import struct

from flower.needs import MESSAGES, WARNINGS
from flower import model_keys
from stress.flowerfuzz.attrs import nla
from stress.tests.fuzz_helpers import (F, GENEVE_ONES, GENEVE_OPT, IP, IPV6,
                                       LSE, MPLS_UC, PPP_SES, QINQ, VLAN, attr,
                                       Base, be16, be32, geneve, lse, u16)


class TestTunnelKeys(Base):
    def test_both_families_ipv6_wins(self):
        # fl_set_key_enc_control(): the family is IPv6, whose rows then
        # ignore the IPv4 ones, with their warning
        f = self.warned(MESSAGES['NO_ENC_IPV6_ADDRS'],
                        attr('KEY_ENC_IPV4_SRC', b'\1\2\3\4'),
                        attr('KEY_ENC_IPV6_DST', b'\x20' * 16))
        self.assertEqual(bytes(f.key['enc_addr_type']), b'\x03\x00')
        self.assertEqual(bytes(f.mask['enc_l3']), bytes(16) + b'\xff' * 16)
        self.assertEqual(self.dump(attr('KEY_ENC_IPV4_SRC', b'\1\2\3\4'),
                                   attr('KEY_ENC_IPV6_DST', b'\x20' * 16)),
                         [(8, '0800'), (33, '20' * 16), (34, 'ff' * 16),
                          (22, '08000000'), (86, '00000000')])
        # a lone mask fixes no family
        self.warned(WARNINGS['mask_without_key'],
                    attr('KEY_ENC_IPV4_SRC_MASK', b'\xff' * 4),
                    attr('KEY_ENC_IPV6_DST', bytes(16)))
        # an IPv4 tunnel dumps no IPv6 row (the members are a union)
        self.assertEqual(self.dump(attr('KEY_ENC_IPV4_SRC', b'\1\2\3\4'),
                                   attr('KEY_ENC_IPV4_DST', b'\5\6\7\x08')),
                         [(8, '0800'), (27, '01020304'), (28, 'ff' * 4),
                          (29, '05060708'), (30, 'ff' * 4), (22, '08000000'),
                          (86, '00000000')])

    def test_family_and_tunnel_any(self):
        f = self.parse(attr('KEY_ENC_KEY_ID', b'\0\0\0\1'))
        self.assertEqual(bytes(f.key['enc_addr_type']), b'\x02\x00')
        self.assertEqual(bytes(f.mask['enc_addr_type']), b'\x02\x00')
        f = self.parse(attr('KEY_ENC_IPV6_SRC', bytes(16)))
        self.assertEqual(bytes(f.key['enc_addr_type']), b'\x03\x00')
        self.assertEqual(bytes(f.mask['enc_addr_type']), b'\xff\xff')
        # a lone mask is ignored: no tunnel
        f = self.warned(WARNINGS['mask_without_key'],
                        attr('KEY_ENC_IPV4_DST_MASK', b'\xff' * 4),
                        attr('KEY_ENC_UDP_DST_PORT_MASK', b'\xff' * 2))
        self.assertFalse(any(f.mask['enc_addr_type']))

    def test_lengths(self):
        # liberal, as stock: shorter refused, longer taken (first bytes)
        self.refused(34, 'Attribute failed policy validation',
                     attr('KEY_ENC_KEY_ID', b'\0\0\1'))
        self.refused(34, 'binary attribute size out of range',
                     attr('KEY_ENC_IPV6_SRC', bytes(4)))
        f = self.warned(WARNINGS['attr_long'],
                        attr('KEY_ENC_IPV6_SRC', b'\1' * 16 + b'\2' * 4))
        self.assertEqual(bytes(f.key['enc_l3'][:16]), b'\1' * 16)
        f = self.warned(WARNINGS['attr_long'],
                        attr('KEY_ENC_KEY_ID', b'\0\0\0\1\2'))
        self.assertEqual(bytes(f.key['enc_keyid']), b'\0\0\0\1')
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
    OPT = GENEVE_OPT
    ONES = GENEVE_ONES

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
        self.assertEqual(model_keys.canon(a.mask), model_keys.canon(b.mask))

    def test_refusals(self):
        cases = [
            # guest: prio 11, 12, 13, 14
            (22, 'Malformed or empty tunnel options', b''),
            (22, 'Malformed or empty tunnel options',
             geneve(1, 1, b'\1' * 4) + b'\1\2\3\4\5'),
            # an option of another kind after a Geneve one, or of a
            # kind there is none of (first or later)
            (22, 'Duplicate type for vxlan options',
             geneve(1, 1, b'\1' * 4) + nla(2, nla(1, bytes(4)))),
            (22, 'Duplicate type for gtp options',
             geneve(1, 1, b'\1' * 4) + nla(4 | F, b'')),
            (22, 'Unknown tunnel option type', nla(5, nla(1, bytes(4)))),
            (22, 'Unknown tunnel option type',
             geneve(1, 1, b'\1' * 4) + nla(0, b'')),
            (22, 'Geneve option needs class, type and data',
             nla(1, nla(1, b'\1\2') + nla(3, bytes(4)))),
            (34, 'Attribute failed policy validation',
             nla(1, nla(1, b'\1') + nla(2, b'\1') + nla(3, bytes(4)))),
            (22, 'Geneve option data must be 4 to 124 bytes, a multiple '
                 'of 4', geneve(1, 1, bytes(6))),
            (22, 'Geneve option data must be 4 to 124 bytes, a multiple '
                 'of 4', geneve(1, 1, bytes(128))),
            (34, 'Attribute failed policy validation',
             geneve(1, 1, bytes(132))),
            (22, 'Geneve options longer than 255 bytes',
             geneve(1, 1, bytes(124)) + geneve(1, 1, bytes(124)) +
             geneve(1, 1, bytes(4))),
        ]
        for code, msg, payload in cases:
            with self.subTest(msg=msg, payload=payload.hex()):
                self.refused(code, msg, attr('KEY_ENC_OPTS', payload),
                             attr('KEY_ENC_OPTS_MASK', self.ONES))

    def test_option_parsed_liberally(self):
        # as stock: an unknown type skipped, a long class or type cut,
        # silently; bytes after an option's attributes: the parse's
        # message, over the warnings before it, kept over those after
        f = self.warned(None, attr('KEY_ENC_OPTS', nla(1, nla(4, bytes(
            4)) + nla(1, b'\1\2\3') + nla(2, b'\1\2') + nla(3, bytes(4)))))
        self.assertEqual(bytes(f.key['enc_opts'][:4]), b'\1\2\1\1')
        leftover = 'bytes leftover after parsing attributes'
        trailing = nla(1, nla(1, b'\1\2') + nla(2, b'\1') +
                       nla(3, bytes(4)) + b'\1\2')
        self.warned(leftover, attr('KEY_ETH_TYPE', be16(IPV6)),
                    attr('KEY_ENC_OPTS', trailing),
                    attr('KEY_ENC_OPTS_MASK', self.ONES),
                    attr('KEY_TCP_DST', be16(1)))

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
        f = self.warned(WARNINGS['mask_without_key'],
                        attr('KEY_ENC_OPTS_MASK', self.ONES))
        self.assertFalse(any(f.mask['enc_opts']))
        self.assertFalse(any(f.mask['enc_addr_type']))


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
        self.parse(*self.state(0x00, 0x08))          # -trk
        self.assertEqual(self.dump(*self.state(0x0B, 0x09)),
                         [(8, '0800'), (91, '0b00'), (92, '0900'),
                          (22, '08000000'), (86, '00000000')])

    def test_unknown_bits_refused_even_masked_out(self):
        # stock's policy masks both attributes to the six flags; ours
        # refuses an undefined bit in either, not only under the mask
        for key, mask in ((0x48, 0x3F), (0x48, 0x08), (0x08, 0x48)):
            with self.subTest(key=key, mask=mask):
                self.refused(22, 'Unknown ct_state flags',
                             *self.state(key, mask))

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


class TestIpFlags(Base):
    def test_key_and_mask_both_known_bits(self):
        # fl_set_key_ip_flags(): a lone mask is ignored, a lone key
        # refused; unknown bits (and key bits outside the mask) dropped
        f = self.warned(WARNINGS['mask_without_key'],
                        attr('KEY_FLAGS_MASK', be32(1)))
        self.assertFalse(any(f.mask['ip_flags']))
        self.refused(22, 'Missing flags mask', attr('KEY_FLAGS', be32(1)))
        f = self.warned(WARNINGS['ip_flags'], attr('KEY_FLAGS', be32(3)),
                        attr('KEY_FLAGS_MASK', be32(0x80000005)))
        self.assertEqual((bytes(f.key['ip_flags']), bytes(f.mask['ip_flags'])),
                         (be32(1), be32(1)))
        f = self.warned(WARNINGS['ip_flags'],
                        attr('KEY_FLAGS', be32(0x80000000)),
                        attr('KEY_FLAGS_MASK', be32(3)))
        self.assertEqual((bytes(f.key['ip_flags']), bytes(f.mask['ip_flags'])),
                         (be32(0), be32(3)))
        self.refused(34, 'Attribute failed policy validation',
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
        self.assertEqual(model_keys.canon(a.mask), ())


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
        # ignored, with a warning
        msg = MESSAGES['CVLAN']
        f = self.warned(msg, attr('KEY_ETH_TYPE', be16(VLAN)),
                        attr('KEY_VLAN_ETH_TYPE', be16(IP)),
                        attr('KEY_CVLAN_ID', u16(7)), proto=VLAN)
        self.assertFalse(any(f.mask['cvlan_id']))
        # without vlan_ethtype the inner id is not even looked at
        self.warned(msg, attr('KEY_ETH_TYPE', be16(VLAN)),
                    attr('KEY_CVLAN_ID', u16(5000)), proto=VLAN)
        f = self.warned(msg, attr('KEY_CVLAN_ETH_TYPE', be16(IPV6)))
        self.assertEqual(bytes(f.key['n_proto']), be16(IP))
        # the outer tag's warning comes first
        self.warned(MESSAGES['VLAN'], attr('KEY_CVLAN_ID', u16(5)),
                    attr('KEY_VLAN_ID', u16(5)))

    def test_tag_needs_come_after_the_rows(self):
        # fl_warn_tags() runs after the fl_keys[] rows: a row's warning
        # comes first, whatever the attribute order
        self.warned(MESSAGES['IP'], attr('KEY_VLAN_ID', u16(5)),
                    attr('KEY_IP_TOS', b'\1'), proto=0x0806)
        self.warned(MESSAGES['VLAN'], attr('KEY_VLAN_ID', u16(5)),
                    attr('KEY_IPV4_SRC', bytes(4)))

    def test_tag_ranges_masked(self):
        f = self.warned(WARNINGS['vlan_id'], *self.QINQ,
                        attr('KEY_CVLAN_ID', u16(0x1007)), proto=VLAN)
        self.assertEqual(bytes(f.key['cvlan_id']), u16(7))
        f = self.warned(WARNINGS['vlan_prio'], *self.QINQ,
                        attr('KEY_CVLAN_PRIO', b'\x0b'), proto=VLAN)
        self.assertEqual(f.key['cvlan_prio'][0], 3)
        # the outer tag's before the inner tag's
        f = self.warned(WARNINGS['vlan_prio'], attr('KEY_ETH_TYPE', be16(VLAN)),
                        attr('KEY_VLAN_ID', u16(5)),
                        attr('KEY_VLAN_PRIO', b'\xff'),
                        attr('KEY_VLAN_ETH_TYPE', be16(QINQ)),
                        attr('KEY_CVLAN_ID', u16(0xffff)), proto=VLAN)
        self.assertEqual((bytes(f.key['vlan_id']), f.key['vlan_prio'][0],
                          bytes(f.key['cvlan_id'])), (u16(5), 7, u16(0xfff)))

    def test_num_of_vlans_makes_a_tag_of_any_ethertype(self):
        # fl_is_tag(): protocol ip num_of_vlans 1: ETH_TYPE is the TPID
        f = self.parse(attr('KEY_ETH_TYPE', be16(IP)),
                       attr('KEY_NUM_OF_VLANS', b'\1'),
                       attr('KEY_VLAN_ID', u16(5)))
        self.assertEqual(bytes(f.key['vlan_tpid']), be16(IP))
        self.assertFalse(any(f.mask['n_proto']))
        # so an IP key needs vlan_ethtype ip
        self.warned(MESSAGES['IP'], attr('KEY_ETH_TYPE', be16(IP)),
                    attr('KEY_NUM_OF_VLANS', b'\1'),
                    attr('KEY_IP_TTL', b'\1'))
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
        self.warned(MESSAGES['VLAN'], attr('KEY_ETH_TYPE', be16(IP)),
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
        # an IPv4 address under ppp_proto ipv6: kept, no packet matches
        self.warned(WARNINGS['addr_family'],
                    attr('KEY_ETH_TYPE', be16(PPP_SES)),
                    attr('KEY_PPP_PROTO', be16(0x57)),
                    attr('KEY_IPV4_DST', b'\1\2\3\4'), proto=PPP_SES)
        self.warned(MESSAGES['IP'], attr('KEY_ETH_TYPE', be16(PPP_SES)),
                    attr('KEY_PPP_PROTO', be16(0x281)),
                    attr('KEY_IP_PROTO', b'\6'), proto=PPP_SES)
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
        # series step 06: another PPP protocol behind a tag dumps the
        # session ethertype, as the dissector reports it (case 5b1e)
        self.assertEqual(self.dump(
            attr('KEY_ETH_TYPE', be16(VLAN)),
            attr('KEY_VLAN_ID', u16(5)),
            attr('KEY_VLAN_ETH_TYPE', be16(PPP_SES)),
            attr('KEY_PPP_PROTO', be16(0xC021)), proto=VLAN),
            [(8, '8864'), (23, '0500'), (25, '8864'), (104, 'c021'),
             (22, '08000000'), (86, '00000000')])

    def test_needs_ppp_ses(self):
        for a in (attr('KEY_PPP_PROTO', be16(0x21)),
                  attr('KEY_PPPOE_SID', be16(1))):
            with self.subTest(a=a):
                f = self.warned(MESSAGES['PPPOE'], a)
                self.assertEqual(bytes(f.key['n_proto']), be16(IP))
                self.assertFalse(any(f.mask['pppoe.sid']) or
                                 any(f.mask['pppoe.ppp_proto']))
        # num_of_vlans 1: the session ethertype is a tag's TPID
        self.warned(MESSAGES['PPPOE'], attr('KEY_ETH_TYPE', be16(PPP_SES)),
                    attr('KEY_NUM_OF_VLANS', b'\1'),
                    attr('KEY_PPP_PROTO', be16(0x21)), proto=PPP_SES)


class TestMpls(Base):
    MPLS = attr('KEY_ETH_TYPE', be16(MPLS_UC))

    def test_needs_the_protocol(self):
        for name, v in (('KEY_MPLS_LABEL', bytes(4)), ('KEY_MPLS_TTL', b'\1'),
                        ('KEY_MPLS_OPTS', b'')):
            with self.subTest(name=name):
                f = self.warned(MESSAGES['MPLS'], attr(name, v))
                self.assertFalse(any(f.mask['mpls']))
        # not read at all: no range, no options' checks
        self.warned(MESSAGES['MPLS'], attr('KEY_MPLS_BOS', b'\2'),
                    attr('KEY_MPLS_OPTS', b'\0\0\0\0'))

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
        self.assertNotEqual(model_keys.canon(a.mask), model_keys.canon(b.mask))


class TestL2tp(Base):
    def test_needs_ip_proto_l2tp(self):
        self.warned(MESSAGES['L2TP'], attr('KEY_ETH_TYPE', be16(IP)),
                    attr('KEY_IP_PROTO', b'\x06'),
                    attr('KEY_L2TPV3_SID', be32(1)))
        # dumped after the ARP rows, before the tunnel's (fl_keys[])
        self.assertEqual(self.dump(
            attr('KEY_ENC_KEY_ID', be32(2)), attr('KEY_L2TPV3_SID', be32(7)),
            attr('KEY_IP_PROTO', b'\x73'), attr('KEY_ETH_TYPE', be16(IPV6)),
            proto=IPV6),
            [(8, '86dd'), (9, '73'), (105, '00000007'), (26, '00000002'),
             (22, '08000000'), (86, '00000000')])


