# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.port_range - port ranges (dst_port/src_port MIN-MAX).

A range holds MIN and MAX (both included) and applies to tcp, udp and
sctp alike; every range of a direction has the same mask, so the alt of
a variant is another range.  The packets probe both bounds and the ports
just outside them.  tc 6.1 takes no range from 0 (it reads MIN 0 as no
range and refuses the word): those go through $FLNL (tcgen/port_range.py).
"""

from tcgen.matches import ip, ip_proto, port, port_range
from tcgen.packets import ip4, ip6, layer
from tcgen.variant import V

# one range: (l4, protocol, word, range, alt range)
ONE_RANGE = (
    ('tcp', 'ip', 'dst_port', (1000, 2000), (3000, 4000)),
    ('udp', 'ip', 'src_port', (10, 20), (30, 40)),
    ('sctp', 'ip', 'dst_port', (5000, 5001), (6000, 6001)),
    ('tcp', 'ipv6', 'src_port', (40000, 65535), (1, 39999)),
    ('udp', 'ipv6', 'dst_port', (1, 53), (54, 100)),
    ('sctp', 'ipv6', 'src_port', (3868, 3900), (3901, 3999)),
)


def _seg(l4, sport=1000, dport=2000):
    return layer(l4.upper(), sport=sport, dport=dport)


def _v(label, proto, l4, matches, alt, hit, miss):
    """A variant of ip_proto l4 and `matches` (alt: the other value)."""
    return V('port_range', label, proto, [ip_proto(l4)] + matches,
             [ip_proto(l4)] + alt, hit, miss)


def _one_range(l4, proto, word, lo, hi, alt):
    """Frames at both bounds (and between) hit; one port outside each
    bound, and the other L4 protocol at MIN, miss.  The other
    direction's port is _seg()'s, outside every range here."""
    pkt = ip4 if proto == 'ip' else ip6
    key = word[:1] + 'port'

    def pk(value, l4=l4):
        return pkt(l4=_seg(l4, **{key: value}))
    hit = [pk(lo), pk(hi)] + ([pk((lo + hi) // 2)] if hi - lo > 1 else [])
    miss = [pk(v) for v in (lo - 1, hi + 1) if 0 <= v <= 65535]
    miss.append(pk(lo, 'udp' if l4 != 'udp' else 'tcp'))
    return _v('%s %s %s %d-%d' % ('ipv6' if proto == 'ipv6' else 'ipv4', l4,
                                  word, lo, hi), proto, l4,
              [port_range(word, lo, hi)], [port_range(word, *alt)],
              hit, miss)


def variants():
    """The port range variants: each of tcp, udp and sctp, over IPv4 and
    IPv6, destination and source, both at once, and ranges with exact
    keys beside them."""
    out = [_one_range(l4, proto, word, lo, hi, alt)
           for l4, proto, word, (lo, hi), alt in ONE_RANGE]
    dst, src = 'dst_port', 'src_port'
    out += [
        _v('ipv4 udp src_port 1000-1999 and dst_port 2000-2999', 'ip', 'udp',
           [port_range(dst, 2000, 2999), port_range(src, 1000, 1999)],
           [port_range(dst, 3000, 3999), port_range(src, 1000, 1999)],
           [ip4(l4=_seg('udp', 1000, 2999)), ip4(l4=_seg('udp', 1999, 2000))],
           [ip4(l4=_seg('udp', 999, 2500)), ip4(l4=_seg('udp', 1500, 3000)),
            ip4(l4=_seg('udp', 2000, 2500))]),
        _v('ipv6 tcp src_port 1024-65535 and dst_port 80-89', 'ipv6', 'tcp',
           [port_range(dst, 80, 89), port_range(src, 1024, 65535)],
           [port_range(dst, 90, 99), port_range(src, 1024, 65535)],
           [ip6(l4=_seg('tcp', 1024, 80)), ip6(l4=_seg('tcp', 65535, 89))],
           [ip6(l4=_seg('tcp', 1023, 85)), ip6(l4=_seg('tcp', 5000, 90)),
            ip6(l4=_seg('udp', 5000, 85))]),
        # exact keys beside a range: the range is tried with the packet's
        # other keys
        _v('ipv4 udp dst_ip 10.1.0.1 and dst_port 5000-6000', 'ip', 'udp',
           [ip('dst_ip', '10.1.0.1'), port_range(dst, 5000, 6000)],
           [ip('dst_ip', '10.1.0.2'), port_range(dst, 5000, 6000)],
           [ip4(l4=_seg('udp', dport=5500)), ip4(l4=_seg('udp', dport=6000))],
           [ip4(dst='10.1.0.2', l4=_seg('udp', dport=5500)),
            ip4(l4=_seg('udp', dport=6001)),
            ip4(l4=_seg('udp', dport=4999))]),
        _v('ipv4 tcp exact src_port 1234 and dst_port 100-200', 'ip', 'tcp',
           [port(src, 'tcp', 1234), port_range(dst, 100, 200)],
           [port(src, 'tcp', 1235), port_range(dst, 100, 200)],
           [ip4(l4=_seg('tcp', 1234, 100)), ip4(l4=_seg('tcp', 1234, 200))],
           [ip4(l4=_seg('tcp', 1235, 150)), ip4(l4=_seg('tcp', 1234, 201)),
            ip4(l4=_seg('udp', 1234, 150))]),
        _v('ipv6 sctp src_ip 2001:db8:2::/64 and dst_port 1-1024', 'ipv6',
           'sctp',
           [ip('src_ip', '2001:db8:2::', 64), port_range(dst, 1, 1024)],
           [ip('src_ip', '2001:db8:3::', 64), port_range(dst, 1, 1024)],
           [ip6(l4=_seg('sctp', dport=1)), ip6(l4=_seg('sctp', dport=1024))],
           [ip6(src='2001:db8:3::1', l4=_seg('sctp', dport=80)),
            ip6(l4=_seg('sctp', dport=0)),
            ip6(l4=_seg('sctp', dport=1025))]),
    ]
    return out
