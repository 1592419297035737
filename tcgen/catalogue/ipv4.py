# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.ipv4 - IPv4 addresses.
"""

from tcgen.matches import ip
from tcgen.packets import ether, ip4, layer
from tcgen.variant import V


def variants():
    """The IPv4 addresses variants."""
    v4 = []
    v4 += [
        V('ipv4', 'dst_ip exact', 'ip', [ip('dst_ip', '10.1.0.1')],
          [ip('dst_ip', '10.1.0.2')],
          [ip4(dst='10.1.0.1')], [ip4(dst='10.1.0.3')]),
        V('ipv4', 'dst_ip /24', 'ip', [ip('dst_ip', '10.1.0.0', 24)],
          [ip('dst_ip', '10.1.7.0', 24)],
          [ip4(dst='10.1.0.1'), ip4(dst='10.1.0.254')],
          [ip4(dst='10.1.1.1')]),
        V('ipv4', 'dst_ip /8', 'ip', [ip('dst_ip', '10.0.0.0', 8)],
          [ip('dst_ip', '11.0.0.0', 8)],
          [ip4(dst='10.200.3.4')], [ip4(dst='12.0.0.1')]),
        V('ipv4', 'dst_ip /27 with host bits in the key', 'ip',
          [ip('dst_ip', '10.1.0.33', 27)], [ip('dst_ip', '10.1.0.65', 27)],
          [ip4(dst='10.1.0.63'), ip4(dst='10.1.0.32')],
          [ip4(dst='10.1.0.64')]),
        V('ipv4', 'src_ip exact', 'ip', [ip('src_ip', '192.168.7.1')],
          [ip('src_ip', '192.168.7.2')],
          [ip4(src='192.168.7.1')], [ip4(src='192.168.7.3')]),
        V('ipv4', 'src_ip /16', 'ip', [ip('src_ip', '192.168.0.0', 16)],
          [ip('src_ip', '192.169.0.0', 16)],
          [ip4(src='192.168.44.1')], [ip4(src='192.170.0.1')]),
        V('ipv4', 'src_ip and dst_ip exact', 'ip',
          [ip('dst_ip', '10.1.0.2'), ip('src_ip', '10.2.0.2')],
          [ip('dst_ip', '10.1.0.3'), ip('src_ip', '10.2.0.3')],
          [ip4(src='10.2.0.2', dst='10.1.0.2')],
          [ip4(src='10.2.0.3', dst='10.1.0.2'),
           ip4(src='10.2.0.2', dst='10.1.0.3')]),
        V('ipv4', 'src_ip /12 and dst_ip /28', 'ip',
          [ip('dst_ip', '10.9.9.0', 28), ip('src_ip', '172.16.0.0', 12)],
          [ip('dst_ip', '10.9.9.16', 28), ip('src_ip', '172.32.0.0', 12)],
          [ip4(src='172.31.1.1', dst='10.9.9.15')],
          [ip4(src='172.31.1.1', dst='10.9.9.16'),
           ip4(src='172.15.1.1', dst='10.9.9.1')]),
    ]
    # regression: an address key needs an address of its family: a
    # truncated IPv4 header (no address dissected) is not 0.0.0.0
    v4.append(V('ipv4', 'src_ip 0.0.0.0 does not match a truncated IPv4 '
                'header', 'ip', [ip('src_ip', '0.0.0.0')],
                [ip('src_ip', '0.0.0.1')], [ip4(src='0.0.0.0')],
                [ether(type=0x0800) / layer('Raw', load=b'E\x00\x00\x14')]))
    return v4
