# SPDX-License-Identifier: GPL-2.0
"""tcgen.catalogue.mpls - MPLS.
"""

from tcgen.matches import mpls_depth, mpls_lse
from tcgen.packets import mpls_frame
from tcgen.variant import V


def variants():
    """The MPLS variants."""
    mp = [
        V('mpls', 'mpls_uc label, tc, bos and ttl', 'mpls_uc',
          [mpls_lse(100, 3, 1, 64)], [mpls_lse(101, 3, 1, 64)],
          [mpls_frame((100, 3, 64))],
          [mpls_frame((101, 3, 64)), mpls_frame((100, 3, 63)),
           mpls_frame((100, 2, 64)), mpls_frame((100, 3, 64), (5, 0, 1))]),
        V('mpls', 'mpls_uc lse depth 2 (label on the wrong depth misses)',
          'mpls_uc', [mpls_depth(2, 200, 10)], [mpls_depth(2, 201, 10)],
          [mpls_frame((1, 0, 5), (200, 0, 10))],
          [mpls_frame((200, 0, 10)), mpls_frame((1, 0, 5), (201, 0, 10)),
           mpls_frame((200, 0, 10), (1, 0, 5))]),
    ]
    return mp
