# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.qinq - QinQ and the number of tags.
"""

from tcgen.matches import (cvlan_ethtype, cvlan_id, cvlan_prio, num_of_vlans,
                           vlan_ethtype, vlan_id)
from tcgen.packets import tags
from tcgen.variant import V


def variants():
    """The QinQ and the number of tags variants."""
    ad, q = 0x88a8, 0x8100
    qq = [
        V('qinq', '802.1ad cvlan_id, cvlan_prio and cvlan_ethtype', '802.1ad',
          [vlan_id(100), vlan_ethtype('802.1q'), cvlan_id(200),
           cvlan_prio(3), cvlan_ethtype('ip')],
          [vlan_id(100), vlan_ethtype('802.1q'), cvlan_id(201),
           cvlan_prio(3), cvlan_ethtype('ip')],
          [tags((ad, 100, 0), (q, 200, 3))],
          [tags((ad, 100, 0), (q, 201, 3)), tags((ad, 100, 0), (q, 200, 2)),
           tags((ad, 101, 0), (q, 200, 3)), tags((ad, 100, 0))]),
        # regression: vlan_ethtype is the ethertype right after the outer
        # tag, not the innermost one (ours once counted this QinQ frame)
        V('qinq', '802.1ad vlan_ethtype ip does not match a QinQ frame '
          'carrying IPv4', '802.1ad', [vlan_id(100), vlan_ethtype('ip')],
          [vlan_id(101), vlan_ethtype('ip')], [tags((ad, 100, 0))],
          [tags((ad, 100, 0), (q, 200, 0))]),
        V('qinq', '802.1q num_of_vlans 2 and vlan_id', '802.1q',
          [num_of_vlans(2), vlan_id(10)], [num_of_vlans(2), vlan_id(11)],
          [tags((q, 10, 0), (q, 20, 0))],
          [tags((q, 10, 0)), tags((q, 11, 0), (q, 20, 0))]),
    ]
    return qq
