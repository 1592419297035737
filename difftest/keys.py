# SPDX-License-Identifier: GPL-2.0
"""The differential oracle's key table: one row per flower key.

A row says which TCA_FLOWER_* attribute carries the key (and its mask,
if the key takes one), how wide it is and in which byte order netlink
carries it, which filter shape the key needs to apply (`need`: the
kernels' rule, flower/needs.py; without it both kernels ignore the key,
ours with a warning), which shape the generator gives it in a filter
that is to apply every key (`draw`: narrower where the kernels' rule
lets a key go with shapes tc never sends, IPv4 addresses under protocol
all), and which field of the packet model (flower/packets.py) it matches.
Adding a key = one row.

`tunnel` marks the enc_* keys: they match the tunnel metadata a
collect_md tunnel device gives the frames it decapsulates, so only
filters on a tunnel device (gen.py: dev vxlan or geneve) take them, and
their packet fields are a spec's 'tun' (flower/packets.py).

`ct` marks the conntrack keys: only filters in chain 1, behind the
batch's ct action, take them (gen.py), and their packet fields are what
the ct action finds for a frame of a conntrack flow (a spec's 'ct').

`range` marks the port range keys (TCA_FLOWER_KEY_PORT_{DST,SRC}_{MIN,MAX},
be16, no mask attribute: stock's mask is all ones for each bound): a
filter has both bounds of a direction or, to be refused, one (filters.py
draws them as a pair, never one by one); their packet field is the port
they bound.  `hash` marks TCA_FLOWER_KEY_HASH (+ _MASK, host-order u32),
matched against skb_get_hash_raw(): the rig's frames have no skb hash
(runner.py: single-queue veths, so nothing computes one on the way), so
a hash filter matches when its value under its mask is 0; its packet
field is none.  Their rows are written here (flower/keys.py has them
too, without the oracle's range and hash rules).

`guarded` marks the keys added to ours after the others: drawn less
often.

Pure data + tiny helpers, no scapy, no pyroute2: the guest runner never
imports this (the generator pre-encodes each filter's attributes).
"""

from flower import keys as FK
from flower import model_attrs as MA
from flower import uapi

# TCA_FLOWER_* attribute numbers by name (KEY_ETH_DST -> 4) and back.
A = {a.name: a.number for a in uapi.TABLE}
NAME = {v: k for k, v in A.items()}

# The filter protocols the oracle tries (tc names) and their ethertypes:
# uapi's, and one no key applies to.
PROTOS = dict(uapi.ETH_P, **{'0x9000': 0x9000})
VLAN_TPIDS = uapi.VLAN_TPIDS

# need: the oracle's names for flower.needs' (which filter shape a key
# requires to apply): any, ip (ipv4 or ipv6), v4addrs (an IPv4 address
# key: IPv4 addresses, always met by their own), noipv4 (no IPv4 address
# key beside it: IPv6 addresses), enc6addrs (an IPv6 tunnel address key:
# IPv6 tunnel addresses), noenc6 (no IPv6 tunnel address key beside it:
# IPv4 tunnel addresses), arp, mpls, ppp, vlan, cvlan, and tcp / udp /
# sctp / icmp4 / icmp6 / l2tp (n_proto + ip_proto).
NEED = {'NONE': 'any', 'IP': 'ip', 'IPV4_ADDRS': 'v4addrs',
        'NO_IPV4_ADDRS': 'noipv4', 'ENC_IPV6_ADDRS': 'enc6addrs',
        'NO_ENC_IPV6_ADDRS': 'noenc6',
        'TCP': 'tcp', 'UDP': 'udp', 'SCTP': 'sctp', 'L4': 'l4port',
        'ICMPV4': 'icmp4', 'ICMPV6': 'icmp6', 'ARP': 'arp', 'VLAN': 'vlan',
        'CVLAN': 'cvlan', 'MPLS': 'mpls', 'PPPOE': 'ppp', 'L2TP': 'l2tp'}
# draw: the shape a generated filter gives a key that is to apply with no
# warning, where it is narrower than the need: IPv4 (IPv6) addresses
# under protocol ip (ipv6), as tc sends them (filters.need_met(): under
# protocol all they count too, and another exact ethertype keeps them
# with a warning: the lenient filters draw those); ip_flags over IP, where
# a packet can be a fragment; the tunnel addresses on a tunnel of their
# family (enc4, enc6: both families in one filter is a lenient filter).
DRAW = {'ipv4_src': 'ipv4', 'ipv4_dst': 'ipv4', 'ipv6_src': 'ipv6',
        'ipv6_dst': 'ipv6', 'ip_flags': 'ip',
        'enc_ipv4_src': 'enc4', 'enc_ipv4_dst': 'enc4',
        'enc_ipv6_src': 'enc6', 'enc_ipv6_dst': 'enc6'}

# The keys the oracle draws from (flower.keys' rows with a packet field),
# in this order (a seed's filters depend on it).  `guarded` keys were
# added to ours after the others: drawn less often.
DRAWN = ('eth_dst', 'eth_src', 'ipv4_src', 'ipv4_dst', 'ipv6_src',
         'ipv6_dst', 'ip_tos', 'ip_ttl', 'tcp_src', 'tcp_dst', 'udp_src',
         'udp_dst', 'sctp_src', 'sctp_dst', 'tcp_flags', 'icmpv4_type',
         'icmpv4_code', 'icmpv6_type', 'icmpv6_code', 'arp_op', 'arp_sip',
         'arp_tip', 'arp_sha', 'arp_tha', 'vlan_id', 'vlan_prio')
GUARDED = ('ip_flags', 'cvlan_id', 'cvlan_prio', 'num_of_vlans',
           'mpls_label', 'mpls_tc', 'mpls_bos', 'mpls_ttl', 'pppoe_sid',
           'ppp_proto', 'l2tpv3_sid')
# the tunnel keys: drawn only for filters on a tunnel device
TUNNEL = ('enc_key_id', 'enc_ipv4_src', 'enc_ipv4_dst', 'enc_ipv6_src',
          'enc_ipv6_dst', 'enc_udp_src', 'enc_udp_dst', 'enc_ip_tos',
          'enc_ip_ttl')

# the conntrack keys: drawn only for the filters behind the ct action
# (gen.py: chain 1); their packet fields are a conntrack flow frame's 'ct'
CT = ('ct_state', 'ct_zone', 'ct_mark', 'ct_labels')
# ct_state's flags (TCA_FLOWER_KEY_CT_FLAGS_*): the model's
CT_NEW, CT_EST, CT_REL, CT_TRK, CT_INV, CT_RPL = (MA.CT_NEW, MA.CT_EST,
                                                  MA.CT_REL, MA.CT_TRK,
                                                  MA.CT_INV, MA.CT_RPL)
CT_FLAGS = MA.CT_FLAGS


def _row(name, guarded, tunnel=False, ct=False):
    k = FK.KEY[name]
    need = NEED[k.need]
    return dict(name=name, attr=k.attr, mask=k.mask, width=k.width,
                order=FK.order(k), need=need, draw=DRAW.get(name, need),
                field=k.field,
                bits=CT_FLAGS if name == 'ct_state' else k.bits,
                guarded=guarded, tunnel=tunnel, ct=ct)


# the port range keys: (name, attribute, the direction, the bound, field)
RANGES = (('port_dst_min', 'KEY_PORT_DST_MIN', 'dst', 'min', 'l4.dport'),
          ('port_dst_max', 'KEY_PORT_DST_MAX', 'dst', 'max', 'l4.dport'),
          ('port_src_min', 'KEY_PORT_SRC_MIN', 'src', 'min', 'l4.sport'),
          ('port_src_max', 'KEY_PORT_SRC_MAX', 'src', 'max', 'l4.sport'))
# a range's bounds by direction: (min key, max key)
RANGE_PAIR = {'dst': ('port_dst_min', 'port_dst_max'),
              'src': ('port_src_min', 'port_src_max')}


def _range_row(name, attr, direction, bound, field):
    return dict(name=name, attr=attr, mask=None, width=2, order='be',
                need='l4port', draw='l4port', field=field, bits=0xffff, guarded=True,
                tunnel=False, ct=False, range=direction, bound=bound)


HASH = dict(name='hash', attr='KEY_HASH', mask='KEY_HASH_MASK', width=4,
            order='he', need='any', draw='any', field=None, bits=0xffffffff,
            guarded=True, tunnel=False, ct=False, hash=True)


KEYS = [_row(n, False) for n in DRAWN] + [_row(n, True) for n in GUARDED] + \
    [_row(n, False, True) for n in TUNNEL] + \
    [_row(n, False, ct=True) for n in CT] + \
    [_range_row(*r) for r in RANGES] + [HASH]
KEY = {k['name']: k for k in KEYS}


def special(k):
    """A key filters.py adds by rules of its own (a port range's bounds
    come as a pair, the hash with a value for a hash-0 frame), never
    drawn one by one with the others."""
    return bool(k.get('range') or k.get('hash'))

# Address keys whose all-zero mask stock 6.1 mishandles (control.addr_type
# is masked, but the dissector skips the zero-mask address key).
ZERO_MASK_ADDR_KEYS = ('ipv4_src', 'ipv4_dst', 'ipv6_src', 'ipv6_dst')
# ... and tunnel address keys: stock dissects the tunnel's addr_type
# (ENC_CONTROL) only when a tunnel address mask is non-zero
ZERO_MASK_ENC_KEYS = ('enc_ipv4_src', 'enc_ipv4_dst', 'enc_ipv6_src',
                      'enc_ipv6_dst')


def encode(key, value):
    """A key's value (or mask) as the attribute payload."""
    w = key['width']
    if key['order'] == 'he':
        return value.to_bytes(w, 'little')
    return value.to_bytes(w, 'big')


def decode(key, data):
    return int.from_bytes(data, 'little' if key['order'] == 'he' else 'big')
