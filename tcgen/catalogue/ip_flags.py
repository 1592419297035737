# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.ip_flags - IP flags (fragments).
"""

from tcgen.matches import ip_flags
from tcgen.packets import ip4
from tcgen.variant import V


def variants():
    """The IP flags (fragments) variants."""
    first, later = ip4(flags='MF'), ip4(frag=185)
    fl = [
        V('ip_flags', 'ip ip_flags frag', 'ip', [ip_flags('frag')],
          [ip_flags('nofrag')], [first, later], [ip4()]),
        V('ip_flags', 'ip ip_flags nofrag', 'ip', [ip_flags('nofrag')],
          [ip_flags('frag')], [ip4()], [first, later]),
        V('ip_flags', 'ip ip_flags firstfrag', 'ip',
          [ip_flags('firstfrag')], [ip_flags('nofirstfrag')], [first],
          [later, ip4()]),
        V('ip_flags', 'ip ip_flags frag/nofirstfrag (later fragments)', 'ip',
          [ip_flags('frag/nofirstfrag')], [ip_flags('frag/firstfrag')],
          [later], [first, ip4()]),
    ]
    return fl
