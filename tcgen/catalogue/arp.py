# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.arp - ARP / RARP.
"""

from tcgen.matches import arp_op, ip, mac
from tcgen.packets import arp_pkt
from tcgen.variant import V


def variants():
    """The ARP / RARP variants."""
    ar = [
        V('arp', 'arp_op request', 'arp', [arp_op('request')],
          [arp_op('reply')], [arp_pkt(op=1)], [arp_pkt(op=2)]),
        V('arp', 'arp_op reply', 'arp', [arp_op('reply')],
          [arp_op('request')], [arp_pkt(op=2)], [arp_pkt(op=1)]),
        V('arp', 'arp_op masked 1/1', 'arp', [arp_op('1', 1)],
          [arp_op('0', 1)], [arp_pkt(op=1)], [arp_pkt(op=2)]),
        V('arp', 'arp_sip exact', 'arp', [ip('arp_sip', '10.0.0.1')],
          [ip('arp_sip', '10.0.0.5')], [arp_pkt(psrc='10.0.0.1')],
          [arp_pkt(psrc='10.0.0.9')]),
        V('arp', 'arp_sip /24', 'arp', [ip('arp_sip', '10.3.3.0', 24)],
          [ip('arp_sip', '10.3.4.0', 24)], [arp_pkt(psrc='10.3.3.200')],
          [arp_pkt(psrc='10.3.5.1')]),
        V('arp', 'arp_tip exact', 'arp', [ip('arp_tip', '10.0.0.254')],
          [ip('arp_tip', '10.0.0.253')], [arp_pkt(pdst='10.0.0.254')],
          [arp_pkt(pdst='10.0.0.252')]),
        V('arp', 'arp_tip /16', 'arp', [ip('arp_tip', '10.4.0.0', 16)],
          [ip('arp_tip', '10.5.0.0', 16)], [arp_pkt(pdst='10.4.200.1')],
          [arp_pkt(pdst='10.6.0.1')]),
        V('arp', 'arp_sha exact', 'arp',
          [mac('arp_sha', '02:00:00:00:dd:01')],
          [mac('arp_sha', '02:00:00:00:dd:02')],
          [arp_pkt(hwsrc='02:00:00:00:dd:01')],
          [arp_pkt(hwsrc='02:00:00:00:dd:03')]),
        V('arp', 'arp_sha /24', 'arp',
          [mac('arp_sha', '02:00:01:00:00:00', 24)],
          [mac('arp_sha', '02:00:02:00:00:00', 24)],
          [arp_pkt(hwsrc='02:00:01:12:34:56')],
          [arp_pkt(hwsrc='02:00:03:00:00:01')]),
        V('arp', 'arp_tha exact', 'arp',
          [mac('arp_tha', '02:00:00:00:ee:01')],
          [mac('arp_tha', '02:00:00:00:ee:02')],
          [arp_pkt(op=2, hwdst='02:00:00:00:ee:01')],
          [arp_pkt(op=2, hwdst='02:00:00:00:ee:03')]),
        V('arp', 'arp_tha non-contiguous mask', 'arp',
          [mac('arp_tha', '02:00:00:00:00:0f', 'ff:00:00:00:00:ff')],
          [mac('arp_tha', '02:00:00:00:00:1f', 'ff:00:00:00:00:ff')],
          [arp_pkt(op=2, hwdst='02:ab:cd:ef:00:0f')],
          [arp_pkt(op=2, hwdst='02:00:00:00:00:1f')]),
        V('arp', 'arp request from 10.0.0.1/32 for 10.0.0.0/24', 'arp',
          [arp_op('request'), ip('arp_sip', '10.7.0.1', 32),
           ip('arp_tip', '10.7.1.0', 24)],
          [arp_op('request'), ip('arp_sip', '10.7.0.2', 32),
           ip('arp_tip', '10.7.1.0', 24)],
          [arp_pkt(psrc='10.7.0.1', pdst='10.7.1.9')],
          [arp_pkt(op=2, psrc='10.7.0.1', pdst='10.7.1.9'),
           arp_pkt(psrc='10.7.0.1', pdst='10.7.2.9')]),
        V('arp', 'rarp arp_tip', 'rarp', [ip('arp_tip', '10.0.7.0', 24)],
          [ip('arp_tip', '10.0.8.0', 24)],
          # the flow dissector takes only opcodes 1 and 2, also in RARP
          [arp_pkt(eth_type=0x8035, op=1, pdst='10.0.7.7')],
          [arp_pkt(eth_type=0x8035, op=1, pdst='10.0.9.7'),
           arp_pkt(op=1, pdst='10.0.7.7')]),
    ]
    return ar
