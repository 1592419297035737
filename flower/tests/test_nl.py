# SPDX-License-Identifier: GPL-2.0
"""flower.nl: parents named as tc sends them, packing, NLMSG_ERROR parsing."""

import os
import re
import socket
import struct
import unittest

from flower import nl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))


def pkt_sched_h():
    for path in (os.path.join(REPO, 'build/src/pristine/include/uapi/linux/'
                              'pkt_sched.h'),
                 '/usr/include/linux/pkt_sched.h'):
        if os.path.exists(path):
            with open(path) as f:
                return f.read()
    raise unittest.SkipTest('no pkt_sched.h')


def rtm_numbers():
    """{RTM_name: number} of rtnetlink.h's message type enum (members
    without "= N" count on from the one before)."""
    for path in (os.path.join(REPO, 'build/src/pristine/include/uapi/linux/'
                              'rtnetlink.h'),
                 '/usr/include/linux/rtnetlink.h'):
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
            break
    else:
        raise unittest.SkipTest('no rtnetlink.h')
    numbers, n = {}, None
    for name, value in re.findall(r'^\t(RTM_\w+)\s*(?:=\s*(\d+))?,', text, re.M):
        n = int(value) if value else n + 1
        numbers[name] = n
    return numbers


def tc_parent(name):
    """The tcm_parent iproute2's tc_filter.c sends for `tc filter add dev
    D ingress|egress|root`: TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS or
    TC_H_MIN_EGRESS), TC_H_ROOT; the numbers from the uapi header."""
    text = pkt_sched_h()
    define = dict(re.findall(r'#define\s+(TC_H_\w+)\s+\(?(0x[0-9A-Fa-f]+)U?\)?',
                             text))
    clsact = re.search(r'#define\s+TC_H_CLSACT\s+(\w+)', text).group(1)
    major = int(define[clsact], 16) & 0xFFFF0000
    if name == 'root':
        return int(define['TC_H_ROOT'], 16)
    return major | int(define['TC_H_MIN_' + name.upper()], 16)


def clsact_find(parent):
    """sch_ingress.c clsact_find(): only its two minor classes exist."""
    return (parent & 0xFFFF) in (0xFFF2, 0xFFF3)


class TestMessageTypes(unittest.TestCase):
    def test_as_rtnetlink_h_numbers_them(self):
        got = rtm_numbers()
        for name in ('RTM_NEWTFILTER', 'RTM_DELTFILTER', 'RTM_GETTFILTER',
                     'RTM_GETACTION', 'RTM_NEWCHAIN'):
            self.assertEqual(getattr(nl, name), got[name], name)


class TestParents(unittest.TestCase):
    def test_named_parents_are_tcs(self):
        for name in ('ingress', 'egress', 'root'):
            self.assertEqual(nl.parse_parent(name), tc_parent(name), name)
        self.assertEqual(nl.parse_parent('ingress'), 0xFFFFFFF2)
        self.assertTrue(clsact_find(nl.parse_parent('ingress')))
        self.assertTrue(clsact_find(nl.parse_parent('egress')))
        # the old value, the qdisc's own handle, is no clsact class
        self.assertFalse(clsact_find(nl.TC_H_INGRESS))

    def test_tc_notation(self):
        self.assertEqual(nl.parse_parent('ffff:'), 0xFFFF0000)
        self.assertEqual(nl.parse_parent('ffff:fff3'), 0xFFFFFFF3)
        self.assertEqual(nl.parse_parent('1:2'), 0x10002)
        self.assertEqual(nl.parse_parent('0x10'), 0x10)


class TestPacking(unittest.TestCase):
    def test_attributes_are_padded_and_walked_back(self):
        data = nl.nla(1, b'abc') + nl.nest(2, nl.nla(3, b'\1\2\3\4'))
        self.assertEqual(len(data), 8 + 12)
        attrs, rest = nl.walk_attrs(data)
        self.assertEqual(rest, 0)
        self.assertEqual(attrs[0], (1, b'abc'))
        self.assertEqual(attrs[1][0], 2 | nl.NLA_F_NESTED)
        self.assertEqual(nl.attrs_by_type(attrs[1][1]), {3: [b'\1\2\3\4']})

    def test_tcmsg_info(self):
        msg = nl.tcmsg(7, 1, nl.TC_H_CLSACT_INGRESS, prio=3, protocol=0x0800)
        fam, ifindex, handle, parent, info = struct.unpack('=BxxxiIII', msg)
        self.assertEqual((ifindex, handle, parent), (7, 1, 0xFFFFFFF2))
        self.assertEqual(info, 3 << 16 | socket.htons(0x0800))


class TestErrors(unittest.TestCase):
    def error(self, code, text, capped=True):
        request = nl.nlmsg(44, 5, b'x' * 20)
        echoed = request[:16] if capped else request
        body = struct.pack('=i', -code) + echoed
        flags = nl.NLM_F_CAPPED if capped else 0
        if text is not None:
            body += nl.nla(nl.NLMSGERR_ATTR_MSG, text.encode() + b'\0')
            flags |= nl.NLM_F_ACK_TLVS
        return body, flags

    def test_extack_message(self):
        for capped in (True, False):
            body, flags = self.error(22, 'Key requires protocol ip', capped)
            self.assertEqual(nl.parse_error(body, flags),
                             (22, 'Key requires protocol ip'))

    def test_plain_ack(self):
        self.assertEqual(nl.parse_error(*self.error(0, None)), (0, None))


if __name__ == '__main__':
    unittest.main()
