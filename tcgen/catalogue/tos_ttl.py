# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.tos_ttl - TOS / TTL.
"""

from tcgen.matches import u8
from tcgen.packets import ip4, ip6
from tcgen.variant import V


def variants():
    """The TOS / TTL variants."""
    tos = [
        V('tos_ttl', 'ip ip_tos exact', 'ip', [u8('ip_tos', 16)],
          [u8('ip_tos', 32)], [ip4(tos=16)], [ip4(tos=20), ip4(tos=32)]),
        V('tos_ttl', 'ip ip_tos masked', 'ip', [u8('ip_tos', 32, 0xe0)],
          [u8('ip_tos', 64, 0xe0)], [ip4(tos=0x20), ip4(tos=0x3f)],
          [ip4(tos=0x40)]),
        V('tos_ttl', 'ip ip_ttl exact', 'ip', [u8('ip_ttl', 64)],
          [u8('ip_ttl', 65)], [ip4(ttl=64)], [ip4(ttl=63)]),
        V('tos_ttl', 'ip ip_ttl masked', 'ip', [u8('ip_ttl', 64, 0xf0)],
          [u8('ip_ttl', 128, 0xf0)], [ip4(ttl=64), ip4(ttl=79)],
          [ip4(ttl=80)]),
        V('tos_ttl', 'ipv6 ip_tos (traffic class) exact', 'ipv6',
          [u8('ip_tos', 40)], [u8('ip_tos', 48)], [ip6(tc=40)],
          [ip6(tc=41)]),
        V('tos_ttl', 'ipv6 ip_tos masked', 'ipv6',
          [u8('ip_tos', 128, 0xc0)], [u8('ip_tos', 64, 0xc0)],
          [ip6(tc=0x80), ip6(tc=0xbf)], [ip6(tc=0x40)]),
        V('tos_ttl', 'ipv6 ip_ttl (hop limit) exact', 'ipv6',
          [u8('ip_ttl', 77)], [u8('ip_ttl', 78)], [ip6(hlim=77)],
          [ip6(hlim=76)]),
        V('tos_ttl', 'ip ip_tos and ip_ttl', 'ip',
          [u8('ip_tos', 8), u8('ip_ttl', 32)],
          [u8('ip_tos', 4), u8('ip_ttl', 33)],
          [ip4(tos=8, ttl=32)], [ip4(tos=8, ttl=33), ip4(tos=4, ttl=32)]),
    ]
    return tos
