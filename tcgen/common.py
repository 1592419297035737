# SPDX-License-Identifier: GPL-2.0
"""tcgen.common - names every part of the corpus uses: the devices' MACs,
the qdisc commands, what tc prints for protocols and in which order.
"""

import json
import os
import re
import shlex

from flower import uapi
from tdc import case_families, compare


# tc-tests/, beside this package
HERE = os.path.join(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))), 'tc-tests')
OUT_DIR = os.path.join(HERE, 'filters', 'flower')

# Frames are sent on $DEV0 and arrive at $DEV1's ingress in the case's
# namespace.  The MACs are not $DEV1's (veth delivers them anyway) and no
# device in the guest uses them, so that nothing else ever matches.
DST_MAC = '02:00:00:00:00:01'
SRC_MAC = '02:00:00:00:00:02'
ETH_HLEN = 14           # ingress counts bytes from the network header on
VLAN_HLEN = 4           # the outer tag is taken out of the frame on receive

TCA_FLOWER_MAX = uapi.MAX    # 105 in 6.1's pkt_cls.h

INGRESS = '$TC qdisc add dev $DEV1 ingress'

# The category of a case whose request the stock flower accepts (and
# ignores, masks or keeps a part of) and the series refused before its
# leniency step (docs/leniency.md): tdc/series_cases.py runs it from that
# step on.  The cases that check ours' warnings for such requests are in
# theme (file, category) WARNINGS_THEME: the stock flower gives none, and
# tdc/compare.py declares that difference.
LENIENCY = case_families.LENIENCY
# The category of a case on a tunnel key of a packet without tunnel
# metadata, which the series' steps before its tunnel-metadata step leave
# zero, as the stock flower does (tdc/case_families.py)
TUNNEL_METADATA = case_families.TUNNEL_METADATA
# The category of a case that checks a PPPoE filter's dump, which the
# series' steps before its PPPoE dump step give as the stock flower does,
# with the protocol PPP carries as the ethertype (tdc/case_families.py)
PPPOE_DUMP = case_families.PPPOE_DUMP
WARNINGS_THEME = compare.WARNINGS_CATEGORY
# Upstream's nsPlugin since 6.6 and ours make $DUMMY in each case's
# namespace, 6.1's makes none: a case that uses it makes it (after
# deleting it: corpus.cleanups)
DUMMY_SETUP = ['$IP link add $DUMMY type dummy', '$IP link set $DUMMY up']
INGRESS_DEL = '$TC qdisc del dev $DEV1 ingress'
SHOW = '$TC -j filter show dev $DEV1 ingress'
SHOW_STATS = '$TC -s -j filter show dev $DEV1 ingress'


# One line of tc's plain filter dump per filter (the line of the instance
# has no handle).
FILTER_LINE = r'^filter [^\n]* handle 0x[0-9a-f]+\b'


def filters(n, dev='$DEV1'):
    """verifyCmd and match: exactly n filters on dev's ingress."""
    return dict(verify='$TC filter show dev %s ingress' % dev,
                pattern=FILTER_LINE, count=n)


def quote(word):
    """One shell word, in double quotes if it holds a single quote."""
    if "'" in word and not re.search(r'["$`\\]', word):
        return '"%s"' % word
    return shlex.quote(word)


FLNL_TIMEOUT = 300      # $FLNL imports pyroute2: ~10 s in a TCG guest, more
                        # on a busy host


# tc's name for the filter's protocol (the "protocol" of the dump) and what
# it prints as the flower key eth_type.
PROTO_NAME = {'ip': 'ip', 'ipv6': 'ipv6', 'arp': 'arp', 'rarp': 'rarp',
              '802.1q': '802.1Q', '802.1ad': '802.1ad', 'all': 'all',
              'mpls_uc': 'mpls_uc', 'ppp_ses': 'ppp_ses',
              '0x88b5': '[34997]'}
ETH_TYPE_KEY = {'ip': 'ipv4', 'ipv6': 'ipv6', 'arp': 'arp', 'rarp': 'rarp',
                '802.1q': '8100', '802.1ad': '88a8', '0x88b5': '88b5',
                'mpls_uc': '8847', 'ppp_ses': '8864'}
ETH_TYPE_NUM = {p: uapi.ethertype(p) for p in ETH_TYPE_KEY}
ETH_TYPE_SHOWN = {ETH_TYPE_NUM[p]: ETH_TYPE_KEY[p] for p in ETH_TYPE_NUM}
# PPP protocol -> the ethertype the kernel keys (and dumps) for it
PPP_CARRIED = uapi.PPP_CARRIED
# The order in which tc 6.1 (flower_print_opt) prints the keys.
KEY_ORDER = ('num_of_vlans', 'vlan_id', 'vlan_prio', 'vlan_ethtype',
             'cvlan_id', 'cvlan_prio', 'cvlan_ethtype', 'dst_mac', 'src_mac',
             'eth_type', 'pppoe_sid', 'ppp_proto', 'mpls', 'mpls_label',
             'mpls_tc', 'mpls_bos', 'mpls_ttl', 'ip_flags', 'ip_proto', 'ip_tos', 'ip_tos_mask', 'ip_ttl',
             'ip_ttl_mask', 'dst_ip', 'src_ip', 'dst_port', 'dst_port_mask',
             'src_port', 'src_port_mask', 'tcp_flags', 'icmp_type',
             'icmp_code', 'arp_sip', 'arp_tip', 'arp_op', 'arp_sha',
             'arp_tha')


def compact(data):
    """JSON as tc -j writes it."""
    return json.dumps(data, separators=(',', ':'))


def rx(text):
    """`text` as a regular expression that matches it literally (unlike
    re.escape, leaves spaces alone: easier to read in the JSON)."""
    return re.sub(r'([\\.^$*+?{}\[\]|()])', r'\\\1', text)
