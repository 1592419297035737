# SPDX-License-Identifier: GPL-2.0
"""tcgen.packets - the corpus' frames as specs, and their sizes.

A frame is a flower.packets Layers: (scapy layer name, {field: value})
pairs, outermost first, plain data, stacked with / as in scapy
(ip4(l4=layer('TCP', dport=80)), ether() / layer('Raw', load=b'x')).
A case gets its text, render(frame), which tdc's scapyPlugin evaluates;
its sizes come from the scapy packet built from the spec itself
(flower.packets.scapy_frame(): the classes called with the fields, no
eval).  tcgen/tests/test_packets.py checks, for every frame the corpus
writes, that scapy builds the same bytes from the text as from the spec.

The layer helpers are flower.packets' (VLAN layer names, MPLS entries,
the PPPoE header); an ARP frame is a flower.packets spec, given as its
scapy_layers().  The IP frames are not flower.packets specs: the
corpus' UDP/TCP headers have scapy's checksums and no payload, a spec's
have zero checksums and a payload (other bytes, other expressions).
"""

import ipaddress

from flower.packets import (Layers, lse, one, pppoe_layers, render,
                            scapy_frame, scapy_layers, vlan_layer)
from tcgen.common import DST_MAC, ETH_HLEN, SRC_MAC, VLAN_HLEN

__all__ = ['Layers', 'render', 'layer', 'ether', 'udp', 'ip4', 'ip6',
           'arp_pkt', 'dot1q', 'tags', 'mpls_frame', 'l2tp', 'pppoe',
           'raw_frame', 'ingress_bytes', 'frame_bytes']


def layer(name, **fields):
    """A frame of one scapy layer (the start of one, or what goes on
    top of one with /)."""
    return one(name, **fields)


def ether(dst=DST_MAC, src=SRC_MAC, **fields):
    return layer('Ether', dst=dst, src=src, **fields)


def udp(sport=1000, dport=2000):
    return layer('UDP', sport=sport, dport=dport)


def ip4(l4=None, eth=None, **fields):
    fields = dict(dict(src='10.2.0.1', dst='10.1.0.1'), **fields)
    return (eth or ether()) / layer('IP', **fields) / (l4 or udp())


def ip6(l4=None, eth=None, **fields):
    fields = dict(dict(src='2001:db8:2::1', dst='2001:db8:1::1'), **fields)
    return (eth or ether()) / layer('IPv6', **fields) / (l4 or udp())


def _mac(text):
    return int(text.replace(':', ''), 16)


def _ip(text):
    return int(ipaddress.IPv4Address(text))


def arp_pkt(eth_type=None, op=1, hwsrc=SRC_MAC, psrc='10.0.0.1',
            hwdst='00:00:00:00:00:00', pdst='10.0.0.2'):
    """A broadcast ARP frame (eth_type 0x8035: RARP)."""
    return scapy_layers(dict(
        dst=_mac('ff:ff:ff:ff:ff:ff'), src=_mac(SRC_MAC), l3='arp',
        etype=eth_type, arp=dict(op=op, sha=_mac(hwsrc), sip=_ip(psrc),
                                 tha=_mac(hwdst), tip=_ip(pdst))))


def _ip_udp():
    return layer('IP', src='10.2.0.1', dst='10.1.0.1') / udp()


def dot1q(inner=None, tpid=None, **tag):
    """A frame with one VLAN tag (802.1Q, or 802.1ad with tpid), then
    `inner`, the layers after the tag before UDP (default IPv4)."""
    tag = dict(dict(vlan=10), **tag)
    return ether() / layer(vlan_layer(tpid), **tag) / \
        (inner or layer('IP', src='10.2.0.1', dst='10.1.0.1')) / udp()


def tags(*tagspec, inner=None):
    """A frame with VLAN tags given as (tpid, vid, prio), outermost
    first, then `inner` (default IPv4/UDP)."""
    frame = ether()
    for tpid, vid, prio in tagspec:
        frame /= layer(vlan_layer(tpid), vlan=vid, prio=prio)
    return frame / (inner or _ip_udp())


def mpls_frame(*lses):
    """An MPLS unicast frame with label stack entries (label, tc, ttl);
    the last one has the bottom-of-stack bit."""
    data = b''.join(lse(label, tc, int(i == len(lses) - 1), ttl)
                    for i, (label, tc, ttl) in enumerate(lses))
    return ether(type=0x8847) / layer('Raw', load=data + b'\x45' + bytes(19))


def l2tp(sid):
    """L2TPv3 over IP: the session id is the first word after IP."""
    return ip4(proto=115, l4=layer('Raw', load=sid.to_bytes(4, 'big') +
                                   bytes(8)))


def pppoe(sid, proto=0x21, inner=None):
    """PPPoE session, PPP protocol proto, then `inner` (default
    IPv4/UDP)."""
    return pppoe_layers(sid, proto) / (inner or _ip_udp())


def raw_frame(eth_type, size=32, **eth):
    return ether(type=eth_type, **eth) / layer('Raw', load=b'x' * size)


def frame_bytes(frame):
    """The length of the frame $DEV0 sends."""
    return len(scapy_frame(frame))


def ingress_bytes(frame):
    """What an action at $DEV1's ingress counts for `frame`: the frame
    without its Ethernet header (and without the outer VLAN tag, which
    the receive path moves out of the frame)."""
    packet = scapy_frame(frame)
    size = len(packet) - ETH_HLEN
    if packet.type in (0x8100, 0x88a8):
        size -= VLAN_HLEN
    return size
