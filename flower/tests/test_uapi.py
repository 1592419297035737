# SPDX-License-Identifier: GPL-2.0
"""flower.uapi: the one TCA_FLOWER_* table, against 6.1's pkt_cls.h
enum and stock cls_flower.c's fl_policy; the protocol names."""

import os
import re
import unittest

from flower import uapi
from tdc import flowernl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

PRISTINE = os.path.join(REPO, 'build/src/pristine')


def first(*paths):
    return next((p for p in paths if os.path.exists(p)), None)


class TestTable(unittest.TestCase):
    def pkt_cls_h(self):
        """The text of 6.1's uapi pkt_cls.h (the tree's, else the host's)."""
        path = first(os.path.join(PRISTINE, 'include/uapi/linux/pkt_cls.h'),
                     '/usr/include/linux/pkt_cls.h')
        if path is None:
            self.skipTest('no pkt_cls.h')
        with open(path) as f:
            return f.read()

    def test_enum_of_the_6_1_header(self):
        text = self.pkt_cls_h()
        body = text[text.index('TCA_FLOWER_UNSPEC'):
                    text.index('__TCA_FLOWER_MAX')]
        body = re.sub(r'/\*.*?\*/', '', body, flags=re.DOTALL)
        names = re.findall(r'\bTCA_FLOWER_(\w+)\s*,', body)
        self.assertEqual(names, [a.name for a in uapi.TABLE])
        self.assertEqual([a.number for a in uapi.TABLE],
                         list(range(len(names))))
        for name in ('KEY_FLAGS', 'KEY_CVLAN_ETH_TYPE', 'KEY_NUM_OF_VLANS',
                     'KEY_MPLS_OPTS', 'KEY_PPPOE_SID', 'KEY_PPP_PROTO',
                     'KEY_L2TPV3_SID'):
            self.assertIn(name, uapi.BY_NAME)

    def test_nested_enums_and_flag_bits_of_the_6_1_header(self):
        text = re.sub(r'/\*.*?\*/', '', self.pkt_cls_h(), flags=re.DOTALL)
        for prefix, names in uapi.NESTED.items():
            start = text.index('TCA_FLOWER_%s_UNSPEC,' % prefix)
            body = text[start:text.index('__TCA_FLOWER_%s_MAX' % prefix)]
            found = re.findall(r'\bTCA_FLOWER_%s_(\w+)\s*,' % prefix, body)
            self.assertEqual(found[0], 'UNSPEC', prefix)
            self.assertEqual(names, {n: i for i, n in enumerate(found)
                                     if i}, prefix)
        bits = re.findall(r'\bTCA_FLOWER_KEY_FLAGS_(\w+)\s*=\s*\(1 << (\d+)\)',
                          text)
        self.assertEqual(uapi.KEY_FLAGS_BITS,
                         {n: 1 << int(b) for n, b in bits})
        self.assertEqual(len(bits), 2)

    def test_lengths_of_the_6_1_policy(self):
        path = os.path.join(PRISTINE, 'net/sched/cls_flower.c')
        if not os.path.exists(path):
            self.skipTest('no 6.1 tree at hand')
        with open(path) as f:
            text = f.read()
        policy = text[text.index('fl_policy[TCA_FLOWER_MAX + 1] = {'):]
        policy = policy[:policy.index('\n};')]
        sizes = {'NLA_U8': 1, 'NLA_U16': 2, 'NLA_U32': 4,
                 'ETH_ALEN': 6, 'sizeof(struct in6_addr)': 16,
                 '128 / BITS_PER_BYTE': 16}
        checked = 0
        entries = re.findall(r'\[TCA_FLOWER_(\w+)\]\s*=\s*(.*?)(?=\n\s*\[|\Z)',
                             policy, re.DOTALL)
        for name, spec in entries:
            attr = uapi.BY_NAME[name]
            if 'NLA_NESTED' in spec or 'NLA_STRING' in spec:
                self.assertIsNone(attr.length, name)
                checked += 1
                continue
            found = [n for word, n in sizes.items()
                     if re.search(r'\.len = ' + re.escape(word), spec) or
                     re.search(r'\b%s\b' % re.escape(word), spec)]
            if found:
                self.assertEqual(attr.length, found[0], name)
                checked += 1
        # every entry but UNSPEC has a size we know
        self.assertEqual(checked, len(entries) - 1)
        self.assertGreater(checked, 90)

    def test_mask_partners_pair_up(self):
        for attr in uapi.TABLE:
            if attr.mask:
                partner = uapi.BY_NAME[attr.mask]
                self.assertEqual(partner.mask, attr.name)
                self.assertEqual(partner.length, attr.length)
                self.assertEqual(attr.name.endswith('_MASK'),
                                 not partner.name.endswith('_MASK'))

    def test_flowernl_uses_the_table(self):
        self.assertEqual(flowernl.ATTR_BY_NAME['TCA_FLOWER_KEY_L2TPV3_SID'],
                         (105, 'be32'))
        self.assertEqual(len(flowernl.ATTR_BY_NAME), len(uapi.TABLE))


class TestProtocols(unittest.TestCase):
    def test_ethertypes_of_the_6_1_header(self):
        """ETH_P against include/uapi/linux/if_ether.h (the tree's, else the
        host's), by the kernel's macro name for each tc name."""
        path = first(os.path.join(PRISTINE, 'include/uapi/linux/if_ether.h'),
                     '/usr/include/linux/if_ether.h')
        if path is None:
            self.skipTest('no if_ether.h')
        with open(path) as f:
            defined = dict(re.findall(r'#define\s+(ETH_P_\w+)\s+(0x[0-9A-Fa-f]+)',
                                      f.read()))
        macro = {'all': 'ETH_P_ALL', 'ip': 'ETH_P_IP', 'arp': 'ETH_P_ARP',
                 'rarp': 'ETH_P_RARP', '802.1q': 'ETH_P_8021Q',
                 'ipv6': 'ETH_P_IPV6', 'mpls_uc': 'ETH_P_MPLS_UC',
                 'mpls_mc': 'ETH_P_MPLS_MC', 'ppp_ses': 'ETH_P_PPP_SES',
                 '802.1ad': 'ETH_P_8021AD', 'lldp': 'ETH_P_LLDP'}
        self.assertEqual(set(macro), set(uapi.ETH_P))
        for name, number in uapi.ETH_P.items():
            self.assertEqual(int(defined[macro[name]], 16), number, name)

    def test_ethertype_names(self):
        self.assertEqual(uapi.ethertype('802.1Q'), 0x8100)
        self.assertEqual(uapi.ethertype('ipv4'), 0x0800)
        self.assertEqual(uapi.ethertype('0x9000'), 0x9000)
        self.assertEqual(uapi.PPP_CARRIED[0x57], 0x86dd)


if __name__ == '__main__':
    unittest.main()
