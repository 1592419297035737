# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.eth - Ethernet addresses and type.
"""

from tcgen.matches import indev, mac
from tcgen.packets import ether, ip4, raw_frame
from tcgen.variant import V


def variants():
    """The Ethernet addresses and type variants."""
    eth = []
    for word, other in (('dst_mac', 'dst'), ('src_mac', 'src')):
        def frame(addr, other=other):
            return raw_frame(0x88b5) if addr is None else \
                raw_frame(0x88b5, **{other: addr})
        eth += [
            V('eth', word + ' exact', 'all',
              [mac(word, '02:00:00:00:aa:01')],
              [mac(word, '02:00:00:00:aa:02')],
              [frame('02:00:00:00:aa:01')], [frame('02:00:00:00:aa:03')]),
            V('eth', word + ' /40 prefix', 'all',
              [mac(word, '02:00:00:00:ab:00', 40)],
              [mac(word, '02:00:00:00:ac:00', 40)],
              [frame('02:00:00:00:ab:00'), frame('02:00:00:00:ab:7f')],
              [frame('02:00:00:00:ad:00')]),
            V('eth', word + ' non-contiguous mask', 'all',
              [mac(word, '02:00:00:00:00:0c', 'ff:ff:00:00:00:ff')],
              [mac(word, '02:00:00:00:00:0d', 'ff:ff:00:00:00:ff')],
              [frame('02:00:12:34:56:0c'), frame('02:00:00:00:00:0c')],
              [frame('02:00:00:00:00:0e'), frame('02:01:00:00:00:0c')]),
        ]
    eth += [
        V('eth', 'dst_mac and src_mac over IPv4', 'ip',
          [mac('dst_mac', '02:00:00:00:bb:01'),
           mac('src_mac', '02:00:00:00:bb:02')],
          [mac('dst_mac', '02:00:00:00:bb:03'),
           mac('src_mac', '02:00:00:00:bb:04')],
          [ip4(eth=ether('02:00:00:00:bb:01', '02:00:00:00:bb:02'))],
          [ip4(eth=ether('02:00:00:00:bb:01', '02:00:00:00:bb:04')),
           ip4(eth=ether('02:00:00:00:bb:03', '02:00:00:00:bb:02'))]),
        V('eth', 'eth_type 0x88b5 alone', '0x88b5', [], [],
          [raw_frame(0x88b5)], [raw_frame(0x88b6)]),
        V('eth', 'indev with src_mac', 'all',
          [indev('flin0'), mac('src_mac', '02:00:00:00:cc:01')],
          [indev('flin0'), mac('src_mac', '02:00:00:00:cc:02')],
          [], [], setup=['$IP link add flin0 type dummy']),
    ]
    return eth
