# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.vlan - VLAN.
"""

from tcgen.matches import ip, vlan_ethtype, vlan_id, vlan_prio
from tcgen.packets import dot1q, ip4, layer
from tcgen.variant import V


def variants():
    """The VLAN variants."""
    vl = [
        V('vlan', '802.1q vlan_id', '802.1q', [vlan_id(10)], [vlan_id(11)],
          [dot1q(vlan=10)], [dot1q(vlan=11), ip4()]),
        V('vlan', '802.1q vlan_prio', '802.1q', [vlan_prio(5)],
          [vlan_prio(4)], [dot1q(vlan=1, prio=5)], [dot1q(vlan=1, prio=4)]),
        V('vlan', '802.1q vlan_id and vlan_prio', '802.1q',
          [vlan_id(100), vlan_prio(3)], [vlan_id(101), vlan_prio(2)],
          [dot1q(vlan=100, prio=3)],
          [dot1q(vlan=100, prio=2), dot1q(vlan=101, prio=3)]),
        V('vlan', '802.1q vlan_id 4095', '802.1q', [vlan_id(4095)],
          [vlan_id(4094)], [dot1q(vlan=4095)], [dot1q(vlan=4094)]),
        V('vlan', '802.1q vlan_ethtype ipv6', '802.1q',
          [vlan_ethtype('ipv6')], [vlan_ethtype('arp')],
          [dot1q(inner=layer('IPv6', src='2001:db8:2::1',
                             dst='2001:db8:1::1'))],
          [dot1q()]),
        V('vlan', '802.1q vlan_id with vlan_ethtype ip and dst_ip', '802.1q',
          [vlan_id(20), vlan_ethtype('ip'), ip('dst_ip', '10.1.0.5')],
          [vlan_id(21), vlan_ethtype('ip'), ip('dst_ip', '10.1.0.5')],
          [dot1q(vlan=20, inner=layer('IP', src='10.2.0.1',
                                      dst='10.1.0.5'))],
          [dot1q(vlan=20, inner=layer('IP', src='10.2.0.1',
                                      dst='10.1.0.6')),
           dot1q(vlan=21, inner=layer('IP', src='10.2.0.1',
                                      dst='10.1.0.5'))]),
        V('vlan', '802.1ad vlan_id', '802.1ad', [vlan_id(30)],
          [vlan_id(31)], [dot1q(vlan=30, tpid=0x88a8)],
          [dot1q(vlan=31, tpid=0x88a8), dot1q(vlan=30)]),
        V('vlan', '802.1ad vlan_prio and vlan_ethtype ip', '802.1ad',
          [vlan_prio(7), vlan_ethtype('ip')],
          [vlan_prio(6), vlan_ethtype('ip')],
          [dot1q(vlan=3, prio=7, tpid=0x88a8)],
          [dot1q(vlan=3, prio=6, tpid=0x88a8)]),
    ]
    return vl
