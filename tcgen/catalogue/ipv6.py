# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.ipv6 - IPv6 addresses.
"""

from tcgen.matches import ip
from tcgen.packets import ip6
from tcgen.variant import V


def variants():
    """The IPv6 addresses variants."""
    v6 = []
    v6 += [
        V('ipv6', 'dst_ip exact', 'ipv6', [ip('dst_ip', '2001:db8:1::1')],
          [ip('dst_ip', '2001:db8:1::2')],
          [ip6(dst='2001:db8:1::1')], [ip6(dst='2001:db8:1::3')]),
        V('ipv6', 'dst_ip /64', 'ipv6',
          [ip('dst_ip', '2001:db8:1:1::', 64)],
          [ip('dst_ip', '2001:db8:1:2::', 64)],
          [ip6(dst='2001:db8:1:1::1'), ip6(dst='2001:db8:1:1:ffff::9')],
          [ip6(dst='2001:db8:1:3::1')]),
        V('ipv6', 'dst_ip /48', 'ipv6', [ip('dst_ip', '2001:db8:5::', 48)],
          [ip('dst_ip', '2001:db8:6::', 48)],
          [ip6(dst='2001:db8:5:77::1')], [ip6(dst='2001:db8:7::1')]),
        V('ipv6', 'dst_ip /120 with host bits in the key', 'ipv6',
          [ip('dst_ip', '2001:db8::1:1', 120)],
          [ip('dst_ip', '2001:db8::2:1', 120)],
          [ip6(dst='2001:db8::1:ff')], [ip6(dst='2001:db8::2:1')]),
        V('ipv6', 'src_ip exact', 'ipv6', [ip('src_ip', '2001:db8:2::7')],
          [ip('src_ip', '2001:db8:2::8')],
          [ip6(src='2001:db8:2::7')], [ip6(src='2001:db8:2::9')]),
        V('ipv6', 'src_ip /8', 'ipv6', [ip('src_ip', 'fd00::', 8)],
          [ip('src_ip', 'fc00::', 8)],
          [ip6(src='fd12:3456::1')], [ip6(src='fe80::1')]),
        V('ipv6', 'src_ip /56 and dst_ip exact', 'ipv6',
          [ip('dst_ip', '2001:db8:1::5'), ip('src_ip', '2001:db8:2::', 56)],
          [ip('dst_ip', '2001:db8:1::6'), ip('src_ip', '2001:db8:3::', 56)],
          [ip6(src='2001:db8:2:ff::1', dst='2001:db8:1::5')],
          [ip6(src='2001:db8:2:100::1', dst='2001:db8:1::5'),
           ip6(src='2001:db8:2::1', dst='2001:db8:1::6')]),
    ]
    return v6
