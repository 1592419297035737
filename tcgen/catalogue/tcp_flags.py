# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.tcp_flags - TCP flags.
"""

from tcgen.matches import ip_proto, tcp_flags
from tcgen.packets import ip4, ip6, layer
from tcgen.variant import V


def variants():
    """The TCP flags variants."""
    def tcp(flags, pkt=ip4):
        return pkt(l4=layer('TCP', sport=1000, dport=2000, flags=flags))
    tf = [
        V('tcp_flags', 'ip tcp_flags SYN (default mask 0xfff)', 'ip',
          [ip_proto('tcp'), tcp_flags(0x2)], [ip_proto('tcp'),
                                               tcp_flags(0x12)],
          [tcp('S')], [tcp('SA'), tcp('A')]),
        V('tcp_flags', 'ip tcp_flags ACK without SYN (mask 0x12)', 'ip',
          [ip_proto('tcp'), tcp_flags(0x10, 0x12)],
          [ip_proto('tcp'), tcp_flags(0x02, 0x12)],
          [tcp('A'), tcp('PA')], [tcp('SA'), tcp('S')]),
        V('tcp_flags', 'ipv6 tcp_flags FIN (mask 0x1)', 'ipv6',
          [ip_proto('tcp'), tcp_flags(0x1, 0x1)],
          [ip_proto('tcp'), tcp_flags(0x0, 0x1)],
          [tcp('FA', ip6)], [tcp('A', ip6)]),
    ]
    return tf
