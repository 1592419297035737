# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.ip_proto - ip_proto.
"""

from tcgen.matches import ip_proto
from tcgen.packets import ip4, ip6, layer, udp
from tcgen.variant import V


def variants():
    """The ip_proto variants."""
    # neighbour discovery and MLD frames: it has no packets)
    tcp4 = layer('TCP', sport=1000, dport=2000)
    ipp = []
    for proto, pkt in (('ip', ip4), ('ipv6', ip6)):
        ipp += [
            V('ip_proto', proto + ' ip_proto tcp', proto,
              [ip_proto('tcp')], [ip_proto('udp')],
              [pkt(l4=tcp4)], [pkt(), pkt(l4=layer('SCTP', sport=1,
                                                   dport=2))]),
            V('ip_proto', proto + ' ip_proto udp', proto,
              [ip_proto('udp')], [ip_proto('sctp')],
              [pkt()], [pkt(l4=tcp4)]),
            V('ip_proto', proto + ' ip_proto sctp', proto,
              [ip_proto('sctp')], [ip_proto('tcp')],
              [pkt(l4=layer('SCTP', sport=1, dport=2))], [pkt()]),
        ]
    ipp += [
        V('ip_proto', 'ip ip_proto icmp', 'ip', [ip_proto('icmp')],
          [ip_proto('tcp')], [ip4(l4=layer('ICMP'))], [ip4(l4=tcp4)]),
        V('ip_proto', 'ip ip_proto 0x59 (OSPF) by number', 'ip',
          [ip_proto('59')], [ip_proto('58')],
          [ip4(l4=layer('Raw', load=b'ospf'), proto=89)],
          [ip4(), ip4(l4=layer('Raw', load=b'eigrp'), proto=88)]),
        # the outer header decides, as in stock flower (which dissects
        # with FLOW_DISSECTOR_F_STOP_BEFORE_ENCAP): the GRE-encapsulated
        # UDP inside must not make the frame look like UDP
        V('ip_proto', 'ip ip_proto 0x2f (GRE) on an IPv4-in-GRE frame', 'ip',
          [ip_proto('2f')], [ip_proto('2e')],
          [ip4(l4=layer('GRE', proto=0x0800) / layer(
              'IP', src='192.0.2.1', dst='192.0.2.2') / udp())],
          [ip4()]),
        V('ip_proto', 'ipv6 ip_proto icmpv6', 'ipv6', [ip_proto('icmpv6')],
          [ip_proto('udp')], [], []),
    ]
    return ipp
