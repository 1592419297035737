# SPDX-License-Identifier: GPL-2.0
"""flower.keys and flower.needs against kernel/net/sched/cls_flower.c:
fl_keys[] row by row, enum fl_need and fl_need_msg[]."""

import os
import re
import unittest

from flower import keys, needs, uapi

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
CLS_FLOWER = os.path.join(REPO, 'kernel/net/sched/cls_flower.c')


def c_source():
    with open(CLS_FLOWER) as f:
        return re.sub(r'/\*.*?\*/', '', f.read(), flags=re.DOTALL)


def block(text, opening):
    """The body of the C initializer or enum that starts with `opening`."""
    start = text.index(opening) + len(opening)
    return text[start:text.index('\n};', start)]


def fl_keys_rows(text):
    """fl_keys[] as (attr, masked, member, need) in the array's order."""
    body = block(text, 'static const struct fl_key_desc fl_keys[] = {')
    rows = re.findall(r'FL_KEY_(EXACT|MASKED)\((\w+),\s*([\w.\[\]]+),\s*'
                      r'(\w+)\)', body)
    # every line of the array is a row we understood
    lines = [l for l in body.splitlines() if l.strip()]
    if len(rows) != len(lines):
        raise AssertionError('fl_keys[] has rows this test cannot read: %r'
                             % lines)
    return [('KEY_' + attr, kind == 'MASKED', member, need)
            for kind, attr, member, need in rows]


def python_rows(table):
    return [(k.attr, k.mask is not None, k.member, k.need) for k in table]


class TestKeyTable(unittest.TestCase):
    def test_table_rows_are_fl_keys(self):
        self.assertEqual(python_rows(keys.TABLE_ROWS),
                         fl_keys_rows(c_source()))
        self.assertEqual(len(keys.TABLE_ROWS), 46)

    def test_the_check_sees_a_changed_row(self):
        """The comparison above fails on a row that differs (here: a need
        and a dropped row), so it is not vacuous."""
        rows = fl_keys_rows(c_source())
        changed = list(keys.TABLE_ROWS)
        changed[5] = changed[5]._replace(need='IPV6')
        self.assertNotEqual(python_rows(changed), rows)
        self.assertNotEqual(python_rows(keys.TABLE_ROWS[:-1]), rows)

    def test_attributes_widths_and_masks_match_the_uapi(self):
        for k in keys.KEYS:
            attr = uapi.BY_NAME[k.attr]
            self.assertEqual(attr.length, k.width, k.name)
            self.assertEqual(attr.mask, k.mask, k.name)
            self.assertLessEqual(k.bits, (1 << 8 * k.width) - 1, k.name)
            self.assertIn(k.need, needs.NEEDS, k.name)
        self.assertEqual(len(keys.KEY), len(keys.KEYS))
        self.assertEqual(len(keys.BY_ATTR), len(keys.KEYS))

    def test_tc_json_words(self):
        self.assertEqual(keys.json_word(keys.KEY['icmpv6_code']), 'icmp_code')
        self.assertEqual(keys.json_word(keys.KEY['ipv4_dst']), 'dst_ip')
        self.assertEqual(keys.order(keys.KEY['vlan_id']), 'he')
        self.assertEqual(keys.order(keys.KEY['tcp_dst']), 'be')
        self.assertEqual(keys.order(keys.KEY['port_dst_min']), 'be')
        self.assertEqual(keys.order(keys.KEY['hash']), 'he')
        self.assertEqual(keys.json_word(keys.KEY['port_src_max']), 'src_port')
        self.assertIsNone(keys.json_word(keys.KEY['hash']))


class TestNeeds(unittest.TestCase):
    def test_enum_order(self):
        body = block(c_source(), 'enum fl_need {')
        self.assertEqual(tuple(re.findall(r'FL_NEED_(\w+)', body)),
                         needs.NEEDS)

    def test_messages_are_fl_need_msg(self):
        body = block(c_source(), 'static const char * const fl_need_msg[] = {')
        found = dict(re.findall(r'\[FL_NEED_(\w+)\]\s*=\s*"([^"]*)"', body))
        self.assertEqual(found, needs.MESSAGES)

    def test_proto_rules(self):
        ip, ip6 = uapi.ETH_P['ip'], uapi.ETH_P['ipv6']
        self.assertTrue(needs.proto_met('ICMPV4', ip, 1))
        self.assertFalse(needs.proto_met('ICMPV4', ip6, 1))
        self.assertFalse(needs.proto_met('ICMPV6', ip6, 1))
        self.assertTrue(needs.proto_met('TCP', None, 6))
        self.assertFalse(needs.proto_met('IP', uapi.ETH_P['arp'], None))
        self.assertTrue(needs.proto_met('ARP', uapi.ETH_P['rarp'], None))
        for ipp, met in ((6, True), (17, True), (132, True), (1, False),
                         (None, False)):
            self.assertEqual(needs.proto_met('L4', ip6, ipp), met, ipp)
        # every need is either a protocol rule or one of the shape needs
        self.assertEqual(set(needs.PROTO_RULES) |
                         {'VLAN', 'CVLAN', 'PPPOE', 'ENC_IPV4', 'ENC_IPV6'},
                         set(needs.NEEDS))


if __name__ == '__main__':
    unittest.main()
