# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.pppoe - PPPoE.
"""

from tcgen.common import PPPOE_DUMP
from tcgen.matches import ppp_proto, pppoe_sid, vlan_ethtype
from tcgen.packets import ether, layer, pppoe, tags, udp
from tcgen.variant import V


def variants():
    """The PPPoE variants."""
    q = 0x8100
    v6in = layer('IPv6', src='2001:db8:2::1', dst='2001:db8:1::1') / udp()
    pp = [
        V('pppoe', 'ppp_ses pppoe_sid and ppp_proto ip', 'ppp_ses',
          [pppoe_sid(10), ppp_proto('ip')], [pppoe_sid(11), ppp_proto('ip')],
          [ether() / pppoe(10)],
          [ether() / pppoe(11), ether() / pppoe(10, 0x57, v6in)],
          dump_tags=[PPPOE_DUMP]),
        # regression (found by the stock-flower oracle): PPPoE behind a
        # tag is keyed on the PPPoE header, as untagged
        V('pppoe', '802.1q vlan_ethtype ppp_ses pppoe_sid', '802.1q',
          [vlan_ethtype('ppp_ses'), pppoe_sid(7)],
          [vlan_ethtype('ppp_ses'), pppoe_sid(8)],
          [tags((q, 10, 0), inner=pppoe(7))],
          [tags((q, 10, 0), inner=pppoe(8)), tags((q, 10, 0))],
          dump_tags=[PPPOE_DUMP]),
    ]
    return pp
