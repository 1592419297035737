# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.icmp - ICMP.
"""

from tcgen.matches import icmp, ip_proto
from tcgen.packets import ip4, ip6, layer
from tcgen.variant import V


def variants():
    """The ICMP variants."""
    def icmp4(**f):
        return ip4(l4=layer('ICMP', **f))
    def icmp6(name, **f):
        return ip6(l4=layer(name, **f))
    ic = [
        V('icmp', 'icmp type 8', 'ip',
          [ip_proto('icmp'), icmp('type', False, 8)],
          [ip_proto('icmp'), icmp('type', False, 0)],
          [icmp4(type=8)], [icmp4(type=0), icmp4(type=13)]),
        V('icmp', 'icmp type 3 code 3', 'ip',
          [ip_proto('icmp'), icmp('type', False, 3),
           icmp('code', False, 3)],
          [ip_proto('icmp'), icmp('type', False, 3),
           icmp('code', False, 1)],
          [icmp4(type=3, code=3)],
          [icmp4(type=3, code=1), icmp4(type=11, code=3)]),
        V('icmp', 'icmp code 1 alone', 'ip',
          [ip_proto('icmp'), icmp('code', False, 1)],
          [ip_proto('icmp'), icmp('code', False, 2)],
          [icmp4(type=3, code=1), icmp4(type=11, code=1)],
          [icmp4(type=3, code=2)]),
        V('icmp', 'icmp type masked 8/252', 'ip',
          [ip_proto('icmp'), icmp('type', False, 8, 252)],
          [ip_proto('icmp'), icmp('type', False, 12, 252)],
          [icmp4(type=8), icmp4(type=11)], [icmp4(type=12)]),
        V('icmp', 'icmpv6 type 128 (echo request)', 'ipv6',
          [ip_proto('icmpv6'), icmp('type', True, 128)],
          [ip_proto('icmpv6'), icmp('type', True, 129)],
          [icmp6('ICMPv6EchoRequest')], [icmp6('ICMPv6EchoReply')]),
        V('icmp', 'icmpv6 type 1 code 4', 'ipv6',
          [ip_proto('icmpv6'), icmp('type', True, 1),
           icmp('code', True, 4)],
          [ip_proto('icmpv6'), icmp('type', True, 1),
           icmp('code', True, 3)],
          [icmp6('ICMPv6DestUnreach', code=4)],
          [icmp6('ICMPv6DestUnreach', code=3)]),
        V('icmp', 'icmpv6 code masked 1/1', 'ipv6',
          [ip_proto('icmpv6'), icmp('code', True, 1, 1)],
          [ip_proto('icmpv6'), icmp('code', True, 0, 1)],
          [icmp6('ICMPv6DestUnreach', code=1),
           icmp6('ICMPv6DestUnreach', code=3)],
          [icmp6('ICMPv6DestUnreach', code=4)]),
    ]
    return ic
