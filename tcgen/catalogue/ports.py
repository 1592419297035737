# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.ports - ports.
"""

from tcgen.matches import ip_proto, port
from tcgen.packets import ip4, ip6, layer
from tcgen.variant import V


def variants():
    """The ports variants."""
    l4 = []
    for l4name in ('tcp', 'udp', 'sctp'):
        def seg(sport=1000, dport=2000, l4name=l4name):
            return layer(l4name.upper(), sport=sport, dport=dport)
        for word in ('dst_port', 'src_port'):
            def pk(v, word=word, seg=seg, pkt=ip4):
                return pkt(l4=seg(**{word[:1] + 'port': v}))
            l4 += [
                V('ports', '%s %s exact' % (l4name, word), 'ip',
                  [ip_proto(l4name), port(word, l4name, 80)],
                  [ip_proto(l4name), port(word, l4name, 443)],
                  [pk(80)], [pk(81), pk(443)]),
                V('ports', '%s %s masked 0x1000/0xff00' % (l4name, word),
                  'ip', [ip_proto(l4name), port(word, l4name, 0x1000,
                                                0xff00)],
                  [ip_proto(l4name), port(word, l4name, 0x2000, 0xff00)],
                  [pk(0x1000), pk(0x10ff)], [pk(0x1100), pk(0x2000)]),
            ]
    l4 += [
        V('ports', 'ipv6 tcp dst_port exact', 'ipv6',
          [ip_proto('tcp'), port('dst_port', 'tcp', 22)],
          [ip_proto('tcp'), port('dst_port', 'tcp', 23)],
          [ip6(l4=layer('TCP', dport=22))],
          [ip6(l4=layer('TCP', dport=23)), ip6(l4=layer('UDP', dport=22))]),
        V('ports', 'ipv6 udp src_port masked', 'ipv6',
          [ip_proto('udp'), port('src_port', 'udp', 0x4000, 0xf000)],
          [ip_proto('udp'), port('src_port', 'udp', 0x5000, 0xf000)],
          [ip6(l4=layer('UDP', sport=0x4abc))],
          [ip6(l4=layer('UDP', sport=0x5abc))]),
        V('ports', 'ipv6 sctp src_port and dst_port', 'ipv6',
          [ip_proto('sctp'), port('dst_port', 'sctp', 3868),
           port('src_port', 'sctp', 5000)],
          [ip_proto('sctp'), port('dst_port', 'sctp', 3869),
           port('src_port', 'sctp', 5001)],
          [ip6(l4=layer('SCTP', sport=5000, dport=3868))],
          [ip6(l4=layer('SCTP', sport=5001, dport=3868))]),
        V('ports', 'tcp src_port and dst_port', 'ip',
          [ip_proto('tcp'), port('dst_port', 'tcp', 8080),
           port('src_port', 'tcp', 40000)],
          [ip_proto('tcp'), port('dst_port', 'tcp', 8081),
           port('src_port', 'tcp', 40001)],
          [ip4(l4=layer('TCP', sport=40000, dport=8080))],
          [ip4(l4=layer('TCP', sport=40000, dport=8081)),
           ip4(l4=layer('TCP', sport=40001, dport=8080))]),
    ]
    return l4
