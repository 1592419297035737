# SPDX-License-Identifier: GPL-2.0
"""difftest/compare.py's by-design class for first fragments: ours reads
a first fragment's L4 header (cls_flower passes
FLOW_DISSECTOR_F_PARSE_1ST_FRAG), stock does not.  The class must cover
exactly that: a first fragment and a filter of the prio with a key read
from the L4 header; never a later fragment, a whole datagram, or a
filter without such a key."""

import unittest

from difftest import compare

ICMP_TYPE = ('icmpv4_type', 8, 0xff)
DST_IP = ('ipv4_dst', 0x0a010001, 0xffffffff)


def frame(frag='first', v=4, ext=()):
    return dict(spec=dict(ip=dict(v=v, frag=frag, ext=list(ext))))


def batch(packet, prio=(1, 1)):
    return dict(packets=[packet], prio=list(prio))


class TestFirstFragment(unittest.TestCase):
    def cls(self, keys, packet, ov, sv, prio=(1, 1)):
        filters = [dict(keys=k) for k in keys]
        return compare.pair_class(0, 0, 0, filters, ov, sv,
                                  batch(packet, prio))

    def test_first_fragment_with_an_l4_key(self):
        for ov, sv in (({0: 1}, {0: 0}), ({0: 0}, {0: 1})):
            self.assertEqual(self.cls([[ICMP_TYPE]], frame(), ov, sv),
                             'first-fragment-l4')

    def test_ipv6_first_and_atomic_fragments(self):
        key = ('icmpv6_type', 128, 0xff)
        for packet in (frame(v=6), frame('none', 6, ['frag'])):
            self.assertEqual(self.cls([[key]], packet, {0: 1}, {0: 0}),
                             'first-fragment-l4')

    def test_not_a_first_fragment(self):
        for packet in (frame('later'), frame('none'),
                       frame('none', 6, ['hbh']), dict(spec=None)):
            self.assertIsNone(self.cls([[ICMP_TYPE]], packet,
                                       {0: 1}, {0: 0}))

    def test_no_l4_key(self):
        self.assertIsNone(self.cls([[DST_IP]], frame(), {0: 1}, {0: 0}))

    def test_ip_proto_after_a_fragment_and_another_header(self):
        """Stock's ip_proto is the fragment header's next header, ours'
        the protocol after the extension header that follows (smoke seed
        20261205: ip_proto 132 over rt, frag, frag)."""
        filters = [dict(keys=[], ip_proto=132)]
        for ext, cls in ((['rt', 'frag', 'frag'], 'first-fragment-l4'),
                         (['frag', 'dst'], 'first-fragment-l4'),
                         (['dst', 'frag'], None), (['hbh'], None)):
            got = compare.pair_class(0, 0, 0, filters, {0: 1}, {0: 0},
                                     batch(frame('none', 6, ext)))
            self.assertEqual(got, cls, ext)
        # no ip_proto: nothing read differently
        self.assertIsNone(self.cls([[DST_IP]], frame('none', 6, ['frag', 'dst']),
                                   {0: 1}, {0: 0}))

    def test_a_filter_of_the_same_prio_explains_it(self):
        # filter 1 (ICMP type) matched the fragment on ours only, so the
        # older-or-younger filter 0 of its prio counted it on stock only
        ov, sv = {0: 0, 1: 1}, {0: 1, 1: 0}
        self.assertEqual(self.cls([[DST_IP], [ICMP_TYPE]], frame(), ov, sv),
                         'first-fragment-l4')
        # ... but not from another prio
        self.assertIsNone(self.cls([[DST_IP], [ICMP_TYPE]], frame(), ov, sv,
                                   prio=(1, 2)))


if __name__ == '__main__':
    unittest.main()
