# SPDX-License-Identifier: GPL-2.0
"""tcgen.packets - packets as scapy expressions, and their sizes.
"""

from tcgen.common import DST_MAC, ETH_HLEN, SRC_MAC, VLAN_HLEN


def _fields(fields):
    return ','.join('%s=%r' % item for item in fields.items())


def ether(dst=DST_MAC, src=SRC_MAC, **fields):
    return 'Ether(%s)' % _fields(dict(dst=dst, src=src, **fields))


def layer(name, **fields):
    return '%s(%s)' % (name, _fields(fields))


def udp(sport=1000, dport=2000):
    return layer('UDP', sport=sport, dport=dport)


def ip4(l4=None, eth=None, **fields):
    fields = dict(dict(src='10.2.0.1', dst='10.1.0.1'), **fields)
    return '/'.join([eth or ether(), layer('IP', **fields), l4 or udp()])


def ip6(l4=None, eth=None, **fields):
    fields = dict(dict(src='2001:db8:2::1', dst='2001:db8:1::1'), **fields)
    return '/'.join([eth or ether(), layer('IPv6', **fields), l4 or udp()])


def arp_pkt(eth_type=None, **fields):
    fields = dict(dict(op=1, hwsrc=SRC_MAC, psrc='10.0.0.1',
                       hwdst='00:00:00:00:00:00', pdst='10.0.0.2'), **fields)
    eth = ether(dst='ff:ff:ff:ff:ff:ff') if eth_type is None else \
        ether(dst='ff:ff:ff:ff:ff:ff', type=eth_type)
    return eth + '/' + layer('ARP', **fields)


def dot1q(inner=None, tpid=None, **tag):
    """A frame with one VLAN tag (802.1Q, or 802.1ad with tpid)."""
    tag = dict(dict(vlan=10), **tag)
    name = 'Dot1AD' if tpid == 0x88a8 else 'Dot1Q'
    return '/'.join([ether(), layer(name, **tag),
                     inner or layer('IP', src='10.2.0.1', dst='10.1.0.1'),
                     udp()])


def tags(*tagspec, inner=None):
    """A frame with VLAN tags given as (tpid, vid, prio), outermost
    first, then `inner` (default IPv4/UDP)."""
    layers = [ether()]
    for tpid, vid, prio in tagspec:
        layers.append(layer('Dot1AD' if tpid == 0x88a8 else 'Dot1Q',
                            vlan=vid, prio=prio))
    layers.append(inner or '/'.join([
        layer('IP', src='10.2.0.1', dst='10.1.0.1'), udp()]))
    return '/'.join(layers)


def mpls_frame(*lses):
    """An MPLS unicast frame with label stack entries (label, tc, ttl);
    the last one has the bottom-of-stack bit."""
    data = b''
    for i, (label, tc, ttl) in enumerate(lses):
        bos = 1 if i == len(lses) - 1 else 0
        data += ((label << 12) | (tc << 9) | (bos << 8) | ttl).to_bytes(
            4, 'big')
    return '%s/Raw(load=%r)' % (ether(type=0x8847), data + b'\x45' + bytes(19))


def l2tp(sid):
    """L2TPv3 over IP: the session id is the first word after IP."""
    return ip4(proto=115, l4='Raw(load=%r)' % (sid.to_bytes(4, 'big') +
                                              bytes(8)))


def pppoe(sid, proto=0x21, inner=None):
    """PPPoE session; the PPP protocol uncompressed (2 bytes: scapy's
    PPP layer compresses it to one, which neither flower matches)."""
    return '/'.join([layer('PPPoE', sessionid=sid),
                     'Raw(load=%r)' % proto.to_bytes(2, 'big'),
                     inner or '/'.join([layer('IP', src='10.2.0.1',
                                              dst='10.1.0.1'), udp()])])


def raw_frame(eth_type, size=32):
    return '%s/Raw(load=b%r)' % (ether(type=eth_type), 'x' * size)


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
