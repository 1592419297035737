# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue - the key catalogue, one module per family, in
the order the corpus lists them.
"""

from tcgen.catalogue import (arp, eth, icmp, ip_flags, ip_proto, ipv4, ipv6,
                             mpls, port_range, ports, pppoe, qinq, tcp_flags,
                             tos_ttl, vlan)


# the families in the order of the corpus files
FAMILY_MODULES = (eth, ipv4, ipv6, ip_proto, ports, port_range,
                  tos_ttl, tcp_flags, icmp, arp, vlan,
                  ip_flags, qinq, mpls, pppoe)
KEYS = [v for family in FAMILY_MODULES for v in family.variants()]
FAMILIES = sorted({v.family for v in KEYS})


def representatives():
    """One variant per family, protocol, set of key words and
    masked-or-not: the replace and delete themes need no more."""
    seen, found = set(), []
    for v in KEYS:
        if not v.tc_prints or v.words(alt=True) == v.words():
            continue
        sig = (v.family, v.proto, tuple(sorted(m.tc.split()[0]
                                                for m in v.matches)),
               v.masked())
        if sig not in seen:
            seen.add(sig)
            found.append(v)
    return found
