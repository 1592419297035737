# SPDX-License-Identifier: GPL-2.0
"""flower.packets: build(), the hand packer, against scapy, a packer
nobody here wrote.  For every consistent spec difftest's generator draws
(fixed seeds), scapy builds from scapy_expr(spec) the bytes build(spec)
packs; every L3 and L4 kind the generator draws is among them, and a
few specs it does not draw (GRE with Ethernet, an odd TPID, ...) too.
A spec only an inconsistent frame has gets a ValueError naming it.
A spec with 'tun' (a frame that arrives over VXLAN or Geneve) is checked
field by field too: scapy (with scapy.contrib's Geneve) reads the outer
addresses, TOS, TTL, ports, VNI and checksum from build()'s bytes."""

import collections
import random
import re
import unittest
from unittest import mock

import scapy.all
from scapy.contrib.geneve import GENEVE
from scapy.contrib.mpls import MPLS

from difftest import gen as G
from flower import packets as P

SCAPY = vars(scapy.all)     # the names tdc's scapyPlugin evaluates with


def specs(seeds=(1, 2, 3), nfilters=100):
    """The frame specs of one generated batch per seed."""
    for seed in seeds:
        for p in G.gen_batch(random.Random(seed), nfilters)['packets']:
            yield p['spec']


def extra_specs():
    """Specs of what the generator does not draw."""
    udp = dict(l3='ipv4', ip=dict(v=4, src=0x0a000001, dst=0x0a000002),
               l4=dict(kind='udp', sport=7, dport=9))
    eth = dict(dst=0x020000000001, src=0x020000000002)
    yield dict(eth, l3='ipv4', ip=dict(v=4, src=1, dst=2, proto=47),
               l4=dict(kind='gre'), inner=dict(eth, ether=True, **udp))
    yield dict(eth, tags=[[0x9100, 1, 0, 5], [0x8100, 0, 1, 6]], **udp)
    yield dict(eth, l3='ipv6', ip=dict(v=6, src=1, dst=2, flow=0xabcde,
                                       proto=1), l4=dict(kind='icmp'))
    yield dict(eth, l3='ipv4', ip=dict(v=4, src=1, dst=2, df=1, proto=58),
               l4=dict(kind='icmp6', type=128))
    yield dict(eth, l3='mpls', mpls_mc=True, mpls=[[5, 1, 1, 9]], ip=dict(
        v=6, src=1, dst=2, proto=4), l4=dict(kind='ipip'))
    yield dict(eth, l3='ipv6', ip=dict(v=6, src=1, dst=2, proto=17),
               l4=dict(kind='vxlan', sport=5, vni=77))
    yield from tunnel_specs()


def tunnel_specs():
    """Frames over each tunnel and family, one to a port not the
    tunnel's, one carrying a tagged, padded frame."""
    inner = dict(dst=0x020000000101, src=0x020000000102, tags=[],
                 l3='ipv4', ip=dict(v=4, src=0xc0a80901, dst=0xc0a80902,
                                    proto=1, tos=0x10), l4=dict(kind='icmp'))
    for kind, v, dport in (('vxlan', 4, 4789), ('vxlan', 6, 4789),
                           ('geneve', 4, 6081), ('geneve', 6, 6081),
                           ('vxlan', 4, 8472), ('geneve', 6, 1)):
        tun = dict(kind=kind, v=v, dmac=0x020000000001, smac=0x020000000002,
                   src=0x0a090002 if v == 4 else (0x20010db8 << 96) | 2,
                   dst=0x0a090001 if v == 4 else (0x20010db8 << 96) | 1,
                   tos=0x28 | v, ttl=33, sport=1234 + v, dport=dport,
                   vni=0xabcdef if v == 4 else 42)
        yield dict(inner, tun=tun)
    yield dict(inner, tun=tun, tags=[[0x8100, 3, 0, 7]], pad=18)

def kinds(s):
    """The spec's L3 and L4 kinds, and those of the specs it carries."""
    out = {('l3', s['l3'])} | ({('tun', s['tun']['kind'])} if s.get('tun')
                                else set())
    if s.get('ip') and s['l3'] != 'arp':
        out.add(('l4', (s.get('l4') or {'kind': 'raw'})['kind']))
    return out | (kinds(s['inner']) if s.get('inner') else set())


def cross_check(spec_list):
    """(kinds compared, kinds drawn, [mismatches], {scapy_expr()'s
    refusal: how many})."""
    compared, drawn = collections.Counter(), set()
    bad, refused = [], collections.Counter()
    for s in spec_list:
        drawn |= kinds(s)
        try:
            expr = P.scapy_expr(s)
        except ValueError as e:
            refused[re.sub(r'\d+', 'N', str(e))] += 1
            continue
        ours, theirs = P.build(s), bytes(eval(expr, SCAPY))
        if ours != theirs:
            bad.append((s, expr, ours.hex(), theirs.hex()))
        compared.update(kinds(s))
    return compared, drawn, bad, refused


class TestAgainstScapy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.specs = list(specs())

    def test_generated_specs(self):
        compared, drawn, bad, refused = cross_check(self.specs)
        if bad:
            self.fail('%d of %d specs: build() and scapy differ; the first:'
                      '\nspec  %s\nexpr  %s\nbuild %s\nscapy %s'
                      % ((len(bad), len(self.specs)) + bad[0]))
        self.assertEqual(sorted(drawn - set(compared)), [],
                         'kinds drawn but never compared')
        # the generator draws all of these with these seeds; fewer means
        # the cross-check lost its breadth
        for kind in ('ipv4', 'ipv6', 'arp', 'mpls', 'pppoe', 'raw', 'len8023'):
            self.assertGreater(compared['l3', kind], 0, kind)
        for kind in ('tcp', 'udp', 'sctp', 'icmp', 'icmp6', 'gre', 'ipip',
                     'ip6ip', 'vxlan', 'l2tp', 'raw'):
            self.assertGreater(compared['l4', kind], 0, kind)
        # truncations are about a tenth of the frames; most are compared
        self.assertLess(sum(refused.values()), len(self.specs) // 4, refused)

    def test_extra_specs(self):
        specs = list(extra_specs())
        _, _, bad, refused = cross_check(specs)
        self.assertEqual((bad, refused), ([], {}))

    def test_tunnel_fields_as_scapy_reads_them(self):
        """The outer headers carry tun's fields, the UDP payload is the
        tunnel header and then build() of the inner frame, and the UDP
        checksum is scapy's."""
        layer = {'vxlan': scapy.all.VXLAN, 'geneve': GENEVE}
        for s in tunnel_specs():
            t = s['tun']
            pkt = scapy.all.Ether(P.build(s))
            ip, udp = pkt.payload, pkt.payload.payload
            self.assertEqual(pkt.dst, P.mac(t['dmac']))
            self.assertEqual(pkt.src, P.mac(t['smac']))
            self.assertEqual((ip.src, ip.dst), (P.addr(t['src'], t['v']),
                                                P.addr(t['dst'], t['v'])))
            self.assertEqual((ip.tos, ip.ttl) if t['v'] == 4 else
                             (ip.tc, ip.hlim), (t['tos'], t['ttl']))
            self.assertEqual((udp.sport, udp.dport), (t['sport'], t['dport']))
            hdr = layer[t['kind']](bytes(udp.payload))
            self.assertEqual(hdr.vni, t['vni'])
            if t['kind'] == 'vxlan':
                self.assertEqual(hdr.flags, 0x08)
            else:
                self.assertEqual((hdr.version, hdr.optionlen, hdr.proto),
                                 (0, 0, 0x6558))
            self.assertEqual(bytes(hdr.payload), P.build(P.untunneled(s)))
            chk = udp.chksum
            del udp.chksum
            self.assertEqual(scapy.all.Ether(bytes(pkt)).payload.payload
                             .chksum, chk)

    def test_generated_tunnel_specs(self):
        compared = cross_check(self.specs)[0]
        for kind in ('vxlan', 'geneve'):
            self.assertGreater(compared['tun', kind], 0, kind)

    def test_catches_a_wrong_checksum(self):
        """The cross-check fails when build()'s IPv4 checksum is off."""
        v4 = [s for s in self.specs if s['l3'] == 'ipv4' and
              s['ip']['v'] == 4 and s.get('trunc') is None][:20]
        with mock.patch.object(P, 'csum', lambda data: 0x1234):
            bad = cross_check(v4)[2]
        self.assertEqual(len(bad), len(v4))

    def test_icmp_checksum(self):
        """An ICMPv4 spec with l4 csum (difftest's conntrack flows) is
        built as scapy builds it, with the checksum scapy computes; without
        csum it is 0."""
        icmp = [s for s in self.specs if (s.get('l4') or {}).get('csum')
                and s['l4']['kind'] == 'icmp']
        self.assertGreater(len(icmp), 0)
        self.assertEqual(cross_check(icmp)[2], [])
        for s in icmp:
            pkt = scapy.all.Ether(P.build(s))
            chk = pkt[scapy.all.ICMP].chksum
            del pkt[scapy.all.ICMP].chksum
            self.assertNotEqual(chk, 0)
            self.assertEqual(scapy.all.Ether(bytes(pkt))[scapy.all.ICMP]
                             .chksum, chk)
            t = dict(s, l4=dict(s['l4'], csum=False))
            self.assertEqual(scapy.all.Ether(P.build(t))[scapy.all.ICMP]
                             .chksum, 0)

    def test_layers_built_without_eval(self):
        """scapy_frame() of scapy_layers() (the classes called with the
        fields) packs what build() packs, for every spec whose layers
        are plain values; one with an expression (Code) is refused."""
        plain = coded = 0
        for s in self.specs:
            try:
                layers = P.scapy_layers(s)
            except ValueError:
                continue
            if any(isinstance(v, P.Code) for _n, f in layers
                   for v in f.values()):
                coded += 1
                with self.assertRaises(TypeError):
                    P.scapy_frame(layers)
                continue
            plain += 1
            self.assertEqual(bytes(P.scapy_frame(layers)), P.build(s), s)
        self.assertGreater(plain, 100)
        self.assertGreater(coded, 0)

    def test_lse_is_scapys_mpls(self):
        """MPLS is rendered as bytes (scapy.all has no MPLS layer): the
        entries are scapy.contrib's."""
        for entry in ([16, 0, 1, 64], [0xfffff, 7, 0, 255], [0, 5, 1, 0]):
            label, tc, bos, ttl = entry
            self.assertEqual(P.lse(*entry), bytes(MPLS(label=label, cos=tc,
                                                       s=bos, ttl=ttl)))


class TestRefused(unittest.TestCase):
    """A spec no consistent frame has: ValueError naming what."""
    BASE = dict(dst=2, src=3, l3='ipv4',
                ip=dict(v=4, src=1, dst=2, proto=1), l4=dict(kind='icmp'))

    def refusal(self, **changes):
        s = P.clone(self.BASE)
        s.update(changes)
        with self.assertRaises(ValueError) as cm:
            P.scapy_expr(s)
        return str(cm.exception)

    def test_base_renders(self):
        self.assertEqual(bytes(eval(P.scapy_expr(self.BASE), SCAPY)),
                         P.build(self.BASE))

    def test_truncated(self):
        self.assertIn('trunc=20', self.refusal(trunc=20))

    def test_arp_sizes(self):
        self.assertIn('hln=8 pln=4', self.refusal(
            l3='arp', arp=dict(op=1, sip=1, tip=2, sha=3, tha=4, hln=8)))

    def test_icmp_timestamp(self):
        self.assertIn('icmp type 13', self.refusal(
            l4=dict(kind='icmp', type=13)))

    def test_inner(self):
        inner = dict(P.clone(self.BASE), trunc=30)
        self.assertIn('trunc=30', self.refusal(l4=dict(kind='gre'),
                                               inner=inner))


if __name__ == '__main__':
    unittest.main()
