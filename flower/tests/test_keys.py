# SPDX-License-Identifier: GPL-2.0
"""flower.keys and flower.needs against kernel/net/sched/cls_flower.c:
fl_keys[] row by row, enum fl_need, fl_warn_need() and ours' warnings."""

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


def string_literals(text):
    """Every C string literal of `text`, adjacent ones joined as the
    compiler joins them ("a" "b" is "ab"); escaped quotes unescaped."""
    literal = r'"(?:[^"\\\n]|\\.)*"'
    return [''.join(part[1:-1] for part in re.findall(literal, group))
            .replace('\\"', '"')
            for group in re.findall(r'%s(?:\s*%s)*' % (literal, literal),
                                    text)]


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

    def test_messages_are_fl_warn_need(self):
        """fl_warn_need()'s switch: one case per need, its warning a
        literal (NL_SET_ERR_MSG() takes nothing else)."""
        text = c_source()
        start = text.index('static void fl_warn_need(')
        body = text[start:text.index('\n}\n', start)]
        entries = re.split(r'case FL_NEED_(\w+):', body)[1:]
        found = {need: ''.join(string_literals(value))
                 for need, value in zip(entries[::2], entries[1::2])}
        self.assertEqual(found.pop('NONE'), '')
        self.assertEqual(found, needs.MESSAGES)

    def test_every_need_but_none_has_a_message(self):
        # a key whose need is not met is ignored with its need's warning
        self.assertEqual(set(needs.MESSAGES), set(needs.NEEDS) - {'NONE'})
        self.assertEqual(needs.NEEDS[0], 'NONE')
        for text in needs.MESSAGES.values():
            self.assertTrue(text.startswith('Key ignored: '), text)

    def test_fl_warn_need_is_the_key_rows_warning(self):
        self.assertEqual(keys.need_message(keys.KEY['tcp_dst']),
                         'Key ignored: it requires ip_proto tcp')
        self.assertEqual(keys.need_message(keys.KEY['ipv6_src']),
                         needs.MESSAGES['NO_IPV4_ADDRS'])
        self.assertIsNone(keys.need_message(keys.KEY['eth_dst']))
        for k in keys.KEYS:
            self.assertEqual(keys.need_message(k) is None,
                             k.need == 'NONE', k.name)

    def test_warnings_are_string_literals_of_cls_flower(self):
        """Each of ours' other warnings (flower.needs.WARNINGS) is a
        string of kernel/net/sched/cls_flower.c, whole (adjacent literals
        joined), so the texts the corpus and the reports check are the
        kernel's."""
        literals = set(string_literals(c_source()))
        missing = {name: text for name, text in needs.WARNINGS.items()
                   if text not in literals}
        self.assertEqual(missing, {}, 'flower.needs.WARNINGS not in '
                         'cls_flower.c')
        self.assertEqual(set(needs.WARNING_MSGS),
                         set(needs.MESSAGES.values()) |
                         set(needs.WARNINGS.values()))

    def test_string_literals_join_adjacent_ones(self):
        self.assertEqual(string_literals('f(x, "a b" \n\t\t "c\\"d");'
                                         ' g("e");'),
                         ['a bc"d', 'e'])

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
        # every need is either a protocol rule or one of the shape needs:
        # the tags, PPPoE, the address families (flower.needs' docstring)
        self.assertLessEqual(set(needs.PROTO_RULES), set(needs.NEEDS))
        shape = set(needs.NEEDS) - set(needs.PROTO_RULES)
        self.assertLessEqual({'VLAN', 'CVLAN', 'PPPOE', 'NO_IPV4_ADDRS'},
                             shape)
        self.assertEqual({n for n in shape if not n.endswith('_ADDRS')},
                         {'VLAN', 'CVLAN', 'PPPOE'})


if __name__ == '__main__':
    unittest.main()
