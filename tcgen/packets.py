# SPDX-License-Identifier: GPL-2.0
"""tcgen.packets - packets as scapy expressions, and their sizes.

The layers are flower.packets' (its layer(), VLAN layer names, MPLS
entries, PPPoE header); an ARP frame is a flower.packets spec, rendered
by its scapy_expr().  The IP frames are not specs: the corpus' UDP/TCP
headers have scapy's checksums and no payload, a spec's have zero
checksums and a payload (other bytes, other expressions).
"""

import ipaddress

from flower.packets import layer, lse, pppoe_layers, scapy_expr, vlan_layer
from tcgen.common import DST_MAC, ETH_HLEN, SRC_MAC, VLAN_HLEN


def ether(dst=DST_MAC, src=SRC_MAC, **fields):
    return layer('Ether', dst=dst, src=src, **fields)


def udp(sport=1000, dport=2000):
    return layer('UDP', sport=sport, dport=dport)


def ip4(l4=None, eth=None, **fields):
    fields = dict(dict(src='10.2.0.1', dst='10.1.0.1'), **fields)
    return '/'.join([eth or ether(), layer('IP', **fields), l4 or udp()])


def ip6(l4=None, eth=None, **fields):
    fields = dict(dict(src='2001:db8:2::1', dst='2001:db8:1::1'), **fields)
    return '/'.join([eth or ether(), layer('IPv6', **fields), l4 or udp()])


def _mac(text):
    return int(text.replace(':', ''), 16)


def _ip(text):
    return int(ipaddress.IPv4Address(text))


def arp_pkt(eth_type=None, op=1, hwsrc=SRC_MAC, psrc='10.0.0.1',
            hwdst='00:00:00:00:00:00', pdst='10.0.0.2'):
    """A broadcast ARP frame (eth_type 0x8035: RARP)."""
    return scapy_expr(dict(
        dst=_mac('ff:ff:ff:ff:ff:ff'), src=_mac(SRC_MAC), l3='arp',
        etype=eth_type, arp=dict(op=op, sha=_mac(hwsrc), sip=_ip(psrc),
                                 tha=_mac(hwdst), tip=_ip(pdst))))


def dot1q(inner=None, tpid=None, **tag):
    """A frame with one VLAN tag (802.1Q, or 802.1ad with tpid)."""
    tag = dict(dict(vlan=10), **tag)
    return '/'.join([ether(), layer(vlan_layer(tpid), **tag),
                     inner or layer('IP', src='10.2.0.1', dst='10.1.0.1'),
                     udp()])


def tags(*tagspec, inner=None):
    """A frame with VLAN tags given as (tpid, vid, prio), outermost
    first, then `inner` (default IPv4/UDP)."""
    layers = [ether()]
    for tpid, vid, prio in tagspec:
        layers.append(layer(vlan_layer(tpid), vlan=vid, prio=prio))
    layers.append(inner or '/'.join([
        layer('IP', src='10.2.0.1', dst='10.1.0.1'), udp()]))
    return '/'.join(layers)


def mpls_frame(*lses):
    """An MPLS unicast frame with label stack entries (label, tc, ttl);
    the last one has the bottom-of-stack bit."""
    data = b''.join(lse(label, tc, int(i == len(lses) - 1), ttl)
                    for i, (label, tc, ttl) in enumerate(lses))
    return '%s/Raw(load=%r)' % (ether(type=0x8847), data + b'\x45' + bytes(19))


def l2tp(sid):
    """L2TPv3 over IP: the session id is the first word after IP."""
    return ip4(proto=115, l4='Raw(load=%r)' % (sid.to_bytes(4, 'big') +
                                              bytes(8)))


def pppoe(sid, proto=0x21, inner=None):
    """PPPoE session, PPP protocol proto, then `inner` (default
    IPv4/UDP)."""
    return '/'.join([pppoe_layers(sid, proto),
                     inner or '/'.join([layer('IP', src='10.2.0.1',
                                              dst='10.1.0.1'), udp()])])


def raw_frame(eth_type, size=32):
    return '%s/%s' % (ether(type=eth_type), layer('Raw', load=b'x' * size))


_SCAPY = None


def ingress_bytes(packet):
    """What an action at $DEV1's ingress counts for `packet`: the frame
    without its Ethernet header (and without the outer VLAN tag, which
    the receive path moves out of the frame)."""
    global _SCAPY
    if _SCAPY is None:
        import scapy.all
        _SCAPY = vars(scapy.all)
    frame = eval(packet, _SCAPY)
    size = len(frame) - ETH_HLEN
    if frame.type in (0x8100, 0x88a8):
        size -= VLAN_HLEN
    return size


def frame_bytes(packet):
    global _SCAPY
    ingress_bytes(packet)           # imports scapy
    return len(eval(packet, _SCAPY))
