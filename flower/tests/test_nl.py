# SPDX-License-Identifier: GPL-2.0
"""flower.nl: parents named as tc sends them, packing, NLMSG_ERROR parsing,
the flower attribute codec, gact and whole filter requests."""

import os
import re
import socket
import struct
import unittest

from flower import nl, uapi

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


class TestCodec(unittest.TestCase):
    """encode()/decode() by uapi.TABLE's types: width and byte order."""

    def test_every_integer_attribute_in_its_width_and_order(self):
        for row in uapi.TABLE:
            fmt = nl.INT_FORMAT.get(row.nla_type)
            if fmt is None:
                continue
            width = struct.calcsize(fmt)
            self.assertEqual(width, row.length, row.name)
            data = nl.encode(row.name, 0x01020304 & ((1 << 8 * width) - 1))
            self.assertEqual(data, struct.pack(fmt, 0x01020304 & (
                (1 << 8 * width) - 1)), row.name)
            self.assertEqual(nl.decode(row.number, data),
                             struct.unpack(fmt, data)[0])

    def test_byte_orders_as_the_kernel_takes_them(self):
        self.assertEqual(nl.encode('KEY_ETH_TYPE', 0x0800), b'\x08\x00')
        self.assertEqual(nl.encode('TCA_FLOWER_KEY_UDP_DST', 4789),
                         b'\x12\xb5')
        self.assertEqual(nl.encode('KEY_FLAGS', 1), b'\0\0\0\1')
        self.assertEqual(nl.encode('KEY_VLAN_ID', 5), struct.pack('=H', 5))
        self.assertEqual(nl.encode('KEY_CT_STATE', 8), struct.pack('=H', 8))
        self.assertEqual(nl.encode('KEY_MPLS_LABEL', 16),
                         struct.pack('=I', 16))
        self.assertEqual(nl.encode('KEY_L2TPV3_SID', 1), b'\0\0\0\1')
        self.assertEqual(nl.encode('KEY_IP_PROTO', 17), b'\x11')

    def test_addresses_and_strings(self):
        for name, text, data in (
                ('KEY_ETH_DST', '00:11:22:aa:bb:cc',
                 bytes.fromhex('001122aabbcc')),
                ('KEY_IPV4_SRC', '10.0.0.1', b'\x0a\0\0\1'),
                ('KEY_IPV6_DST', '2001:db8::1',
                 bytes.fromhex('20010db8000000000000000000000001')),
                ('INDEV', 'lo', b'lo\0')):
            self.assertEqual(nl.encode(name, text), data)
            self.assertEqual(nl.decode(name, data), text)

    def test_bytes_go_as_given(self):
        # the way to send what the type forbids: a short ETH_TYPE
        self.assertEqual(nl.encode('KEY_ETH_TYPE', b'\x08'), b'\x08')
        self.assertEqual(nl.decode('KEY_ETH_TYPE', b'\x08'), b'\x08')
        self.assertEqual(nl.encode('KEY_ENC_OPTS', b'\1\2'), b'\1\2')
        with self.assertRaises(TypeError):
            nl.encode('KEY_ENC_OPTS', 5)

    def test_flower_attr_takes_names_numbers_and_flags(self):
        self.assertEqual(nl.flower_attr('KEY_IP_PROTO', 6),
                         nl.nla(9, b'\6'))
        self.assertEqual(nl.flower_attr(9, 6), nl.nla(9, b'\6'))
        self.assertEqual(nl.flower_attr('KEY_ENC_OPTS', b'', nl.NLA_F_NESTED),
                         nl.nla(84 | nl.NLA_F_NESTED, b''))


class TestGact(unittest.TestCase):
    def test_gact_as_tc_builds_it(self):
        data = nl.gact('drop', index=7, order=2)
        (order, body), = nl.walk_attrs(data)[0]
        self.assertEqual(order, 2 | nl.NLA_F_NESTED)
        at = nl.attrs_by_type(body)
        self.assertEqual(at[nl.TCA_ACT_KIND], [b'gact\0'])
        parms = nl.attrs_by_type(at[nl.TCA_ACT_OPTIONS][0])
        self.assertEqual(parms[nl.TCA_GACT_PARMS],
                         [struct.pack('=IIiii', 7, 0, 2, 0, 0)])
        self.assertEqual(nl.walk_attrs(nl.gact(0, nested=False))[0][0][0], 1)

    def test_action_list_decodes_back(self):
        data = nl.gact_list([(2, 0), ('pass', 1000), (-1, 5)])
        self.assertEqual([(a['order'], a['kind'], a['options']['parms'])
                          for a in nl.decode_acts(data)],
                         [(1, 'gact', dict(index=0, capab=0, action=2,
                                           refcnt=0, bindcnt=0)),
                          (2, 'gact', dict(index=1000, capab=0, action=0,
                                           refcnt=0, bindcnt=0)),
                          (3, 'gact', dict(index=5, capab=0, action=-1,
                                           refcnt=0, bindcnt=0))])


class TestFilterRequest(unittest.TestCase):
    def test_request_decodes_back(self):
        data = nl.tfilter(
            nl.RTM_NEWTFILTER, nl.NLM_F_REQUEST | nl.NLM_F_CREATE, 4, 9,
            nl.TC_H_INGRESS, 3, 0x0800, chain=2,
            options=[('KEY_ETH_TYPE', 0x0800), ('KEY_IPV4_DST', '10.0.0.1'),
                     nl.flower_attr('ACT', nl.gact_list([('drop', 0)]))])
        ln, typ, flags = struct.unpack_from('=IHH', data)
        self.assertEqual((ln, typ, flags), (len(data), nl.RTM_NEWTFILTER,
                                            nl.NLM_F_REQUEST |
                                            nl.NLM_F_CREATE))
        fields, tca, opts, entry = nl.decode_filter(data[16:])
        self.assertEqual(fields, (4, 9, nl.TC_H_INGRESS, 3, 0x0800))
        self.assertEqual(tca[nl.TCA_KIND], b'flower\0')
        self.assertEqual([t for t, _v in opts], [8, 12, 3])
        self.assertEqual(entry['chain'], 2)
        self.assertEqual(entry['kind'], 'flower')
        self.assertEqual(entry['options']['TCA_FLOWER_KEY_IPV4_DST'],
                         '10.0.0.1')
        self.assertEqual(entry['options']['TCA_FLOWER_KEY_ETH_TYPE'], 0x0800)
        self.assertEqual(
            entry['options']['TCA_FLOWER_ACT'][0]['options']['parms']
            ['action'], 2)

    def test_tail_grows_the_last_attribute_unpadded(self):
        data = nl.tfilter(nl.RTM_NEWTFILTER, 0, 1, 0, 0, options=[
            ('KEY_IP_PROTO', 6)], tail=b'\1\2\3')
        self.assertEqual(struct.unpack_from('=I', data)[0], len(data))
        top, rest = nl.walk_attrs(data, 36)
        self.assertEqual(top[-1], (nl.TCA_OPTIONS,
                                   nl.nla(9, b'\6') + b'\1\2\3'))
        with self.assertRaises(ValueError):
            nl.tfilter(nl.RTM_NEWTFILTER, 0, 1, 0, 0, tail=b'\1')

    def test_dump_request(self):
        class Capture(nl.NLSock):
            def __init__(self):
                self.sent = []

            def request(self, data, timeout=None):
                self.sent.append(data)
                return nl.Reply(msgs=[(nl.RTM_NEWTFILTER, 0, b'a'),
                                      (3, 0, b'b')])

        cap = Capture()
        self.assertEqual(cap.dump_filters(5, chain=1), [b'a'])
        fields, tca, _o, _e = nl.decode_filter(cap.sent[0][16:])
        self.assertEqual(struct.unpack_from('=H', cap.sent[0], 6)[0],
                         nl.NLM_F_REQUEST | nl.NLM_F_DUMP)
        self.assertEqual(fields, (5, 0, nl.TC_H_INGRESS, 0, 0))
        self.assertEqual(tca, {nl.TCA_CHAIN: struct.pack('=I', 1)})


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
