# SPDX-License-Identifier: GPL-2.0
"""The stock zero-mask bug (issue 21, audit finding 2): ours matches,
stock does not, and the twin without the zero-mask address key matches on
both.  That is stock's bug only when the frame has a complete header of
the key's family: ours matching a truncated IPv4 header under "dst_ip
0.0.0.0/0" would be our bug (it must require an address of that family).
Before, compare.pair_class() never looked at the frame:
test_*_is_not_the_stock_bug failed on that code."""

import unittest

from scapy.all import ARP, IP, UDP, Dot1Q, Ether, IPv6, raw

from difftest import compare as C

V4 = ('ipv4_dst', 0, 0)
V6 = ('ipv6_src', 0, 0)


def frame(pkt, cut=None):
    b = raw(pkt)
    return dict(spec=None, hex=(b[:cut] if cut else b).hex())


class TestZeroMask(unittest.TestCase):
    def cls(self, key, pkt):
        filters = [dict(keys=[key]), dict(keys=[], twin_of=0)]
        batch = dict(packets=[pkt], prio=[1, 2])
        # ours matches both, stock only the twin
        return C.pair_class(0, 0, 0, filters, {0: 1, 1: 1}, {0: 0, 1: 1},
                            batch)

    def test_complete_headers(self):
        for pkt in (Ether() / IP() / UDP(), Ether() / Dot1Q() / IP(),
                    Ether() / Dot1Q(type=0x88a8) / Dot1Q() / IP(ihl=6,
                                                                options=b'\x01' * 4),
                    Ether() / IP(), Ether() / IP() / UDP()):
            self.assertEqual(self.cls(V4, frame(pkt)),
                             'stock-zero-mask-addr', pkt.summary())
        self.assertEqual(self.cls(V6, frame(Ether() / IPv6())),
                         'stock-zero-mask-addr')

    def test_truncated_ipv4_header_is_not_the_stock_bug(self):
        for cut in (14, 20, 33):            # 19 bytes of IP header at most
            self.assertIsNone(self.cls(V4, frame(Ether() / IP() / UDP(), cut)))
        # a tag and a 19-byte header
        self.assertIsNone(self.cls(V4, frame(Ether() / Dot1Q() / IP(), 37)))

    def test_header_shorter_than_its_ihl_is_not_the_stock_bug(self):
        pkt = Ether() / IP(ihl=6, options=b'\x01' * 4) / UDP()
        self.assertIsNone(self.cls(V4, frame(pkt, 14 + 22)))
        self.assertIsNone(self.cls(V4, frame(Ether() / IP(ihl=4))))

    def test_another_family_is_not_the_stock_bug(self):
        self.assertIsNone(self.cls(V4, frame(Ether() / IPv6() / UDP())))
        self.assertIsNone(self.cls(V6, frame(Ether() / IP() / UDP())))
        self.assertIsNone(self.cls(V4, frame(Ether() / ARP())))
        self.assertIsNone(self.cls(V6, frame(Ether() / IPv6(), 14 + 39)))

    def test_addr_header(self):
        self.assertEqual(C.addr_header(raw(Ether() / IP()).hex()), 4)
        self.assertEqual(C.addr_header(raw(Ether() / IPv6()).hex()), 6)
        self.assertIsNone(C.addr_header('ff' * 13))


if __name__ == '__main__':
    unittest.main()
