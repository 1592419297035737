# SPDX-License-Identifier: GPL-2.0
"""model.py - what ours answers to a generated filter: the refusal its
fl_change() gives, or none.  gen.py records the prediction with each
filter and compare.py accepts "ours refuses, stock accepts" as by design
only where ours' errno and message are exactly the predicted ones."""

from difftest import keys as K
from flower import needs, uapi

# the VLAN TPIDs by name (a filter's protocol or vlan_ethtype)
VLANS = ('802.1q', '802.1ad')


def full_mask(k, m):
    """The mask a key gives the kernel: its mask attribute, all ones
    without one (an exact key: its valid bits)."""
    if not k['mask']:
        return k['bits']
    return (1 << 8 * k['width']) - 1 if m is None else m


# ours' fl_change() (kernel/net/sched/cls_flower.c), for the keys this
# generator makes, in ours' order: the protocol and the tags' ranges
# (fl_set_key_eth_type), ip_flags, MPLS, the tunnel family, then the rows
# of fl_keys[]
# (ip_proto first), then fl_check_tags and the TCP flags mask.  Each
# refusal is [errno, extack, class]: class names the declared difference
# (compare.DESIGN) when stock accepts such a filter, None when it is no
# declared difference (stock refuses it too, or the generator erred).
EINVAL, EOPNOTSUPP = 22, 95
NEED_MSG = {K.NEED[n]: m for n, m in needs.MESSAGES.items() if n in K.NEED}
# the port range keys' prerequisite (ours; stock ignores the keys without it)
NEED_MSG['l4port'] = 'Key requires ip_proto tcp, udp or sctp'
# fl_set_key_port_range() (stock's messages, upstream's "Ensure both
# minimum and maximum ports are specified"): both kernels refuse these
RANGE_BOTH_MSG = {'dst': 'Both min and max destination ports must be '
                         'specified',
                  'src': 'Both min and max source ports must be specified'}
RANGE_ORDER_MSG = {'dst': 'Invalid destination port range (min must be '
                          'strictly smaller than max)',
                   'src': 'Invalid source port range (min must be '
                          'strictly smaller than max)'}
# fl_keys[] after IP_PROTO (the VLAN, MPLS and PPP keys are parsed elsewhere)
ROWS = ('eth_dst', 'eth_src', 'num_of_vlans', 'pppoe_sid', 'ipv4_src',
        'ipv4_dst', 'ipv6_src', 'ipv6_dst', 'ip_tos', 'ip_ttl', 'tcp_src',
        'tcp_dst', 'udp_src', 'udp_dst', 'sctp_src', 'sctp_dst',
        'tcp_flags', 'icmpv4_type', 'icmpv4_code', 'icmpv6_type',
        'icmpv6_code', 'arp_op', 'arp_sip', 'arp_tip', 'arp_sha', 'arp_tha',
        'l2tpv3_sid')
# fl_set_key_pppoe(): ppp_proto ip/ipv6/mpls is also the filter's n_proto
PPP_CARRIED = {v: k for k, v in uapi.PPP_PROTO.items()}
# (key, largest value, extack, class): stock masks VLAN values silently,
# and refuses the MPLS ones as ours does (no declared difference)
TAG_RANGES = (('_id', 0xfff, 'VLAN id must be below 4096'),
              ('_prio', 7, 'VLAN priority must be below 8'))
MPLS_RANGES = (('mpls_bos', 1, 'Bottom Of Stack (BOS) must be 0 or 1'),
               ('mpls_tc', 7, 'Traffic Class (TC) must be between 0 and 7'),
               ('mpls_label', 0xfffff, 'Label must be between 0 and 1048575'))
FLAGS_MSG = 'Unsupported flower key flags: only frag and firstfrag'
ENC_FAMILIES_MSG = 'IPv4 and IPv6 tunnel addresses cannot be combined'
TCP_FLAGS_MSG = 'TCP flags mask has bits above 0xfff, which no packet sets'


def ct_state_error(state):
    """ours' fl_ct_state_error(): why no packet has these ct_state flags
    together (the value under its mask), or None.  Stock refuses the same
    combinations (fl_validate_ct_state(), in other words; bits above the
    flags by its policy), so none is a declared difference."""
    trk = K.CT_TRK
    if state and not state & trk:
        return 'ct_state flags other than trk need +trk'
    if state & K.CT_NEW and state & (K.CT_EST | K.CT_RPL):
        return 'ct_state +new excludes +est and +rpl'
    if state & K.CT_INV and state & ~(trk | K.CT_INV):
        return 'ct_state +inv goes with +trk alone'
    return None


def predict_refusal(f):
    """[errno, extack, class] of ours' refusal of filter f, or None: ours
    accepts it."""
    kv = {name: (v, m) for name, v, m in f['keys']}
    nv = kv['num_of_vlans'][0] if 'num_of_vlans' in kv else 0
    st = dict(n_proto=None, ip_proto=None, tag0=False, tag1=False,
              pppoe=False)

    def is_tag(et, before):         # fl_is_tag()
        return et in VLANS or nv > before

    def inner(et):                  # fl_set_key_inner()
        if et == 'ppp_ses':
            st['pppoe'] = True
            if 'ppp_proto' in kv:
                st['n_proto'] = PPP_CARRIED.get(kv['ppp_proto'][0])
        else:
            st['n_proto'] = et

    def tag(pre):                   # fl_set_key_tag(): the range checks
        for suffix, top, msg in TAG_RANGES:
            if pre + suffix in kv and kv[pre + suffix][0] > top:
                return [EINVAL, msg, 'refused-range']
        return None

    def met(need):                  # fl_need_met()
        np, ipp = st['n_proto'], st['ip_proto']
        return {'any': True, 'ip': np in ('ip', 'ipv6'), 'ipv4': np == 'ip',
                'ipv6': np == 'ipv6', 'tcp': ipp == 6, 'udp': ipp == 17,
                'sctp': ipp == 132, 'l2tp': ipp == 115,
                'l4port': ipp in (6, 17, 132),
                'icmp4': np == 'ip' and ipp == 1,
                'icmp6': np == 'ipv6' and ipp == 58,
                'arp': np in ('arp', 'rarp'), 'mpls': np in ('mpls_uc', 'mpls_mc'),
                'vlan': st['tag0'], 'cvlan': st['tag1'],
                'ppp': st['pppoe']}[need]

    def prereq(need):
        return [EINVAL, NEED_MSG[need], 'refused-prerequisite']

    # fl_set_key_eth_type(), fl_set_key_vlans()
    if is_tag(f['proto'], 0):
        r = tag('vlan')
        if r:
            return r
        st['tag0'] = True
        if not is_tag(f['vlan_eth'], 1):
            if f['vlan_eth']:
                inner(f['vlan_eth'])
        else:
            r = tag('cvlan')
            if r:
                return r
            st['tag1'] = True
            if f['cvlan_eth']:
                inner(f['cvlan_eth'])
    elif f['proto'] != 'all':
        inner(f['proto'])
    # fl_set_key_ip_flags(): any protocol
    if 'ip_flags' in kv:
        v, m = kv['ip_flags']
        if m is None:
            return [EINVAL, 'Missing flags mask', None]
        if (v | m) & ~0x3:
            return [EOPNOTSUPP, FLAGS_MSG, 'refused-flag-bits']
    # fl_set_key_mpls()
    if any(n in kv for n in ('mpls_ttl', 'mpls_bos', 'mpls_tc', 'mpls_label')):
        if not met('mpls'):
            return prereq('mpls')
        for name, top, msg in MPLS_RANGES:
            if name in kv and kv[name][0] & ~top:
                return [EINVAL, msg, None]
    # fl_set_key_enc_control(): one tunnel family (then the rows' enc4 /
    # enc6 needs are met)
    if any(n.startswith('enc_ipv4') for n in kv) and \
            any(n.startswith('enc_ipv6') for n in kv):
        return [EINVAL, ENC_FAMILIES_MSG, None]
    # fl_keys[]
    if f['ip_proto'] is not None:
        if not met('ip'):
            return prereq('ip')
        st['ip_proto'] = f['ip_proto']
    for name in ROWS:
        if name in kv and not met(K.KEY[name]['need']):
            return prereq(K.KEY[name]['need'])
    # the port ranges (fl_set_key_port_range(), under tcp / udp / sctp):
    # both bounds of a direction, dst first, then min < max
    rk = [n for n in kv if K.KEY[n].get('range')]
    if rk:
        if not met('l4port'):
            return prereq('l4port')
        for d in ('dst', 'src'):
            if (K.RANGE_PAIR[d][0] in kv) != (K.RANGE_PAIR[d][1] in kv):
                return [EINVAL, RANGE_BOTH_MSG[d], None]
        for d in ('dst', 'src'):
            lo, hi = (kv.get(n, (None,))[0] for n in K.RANGE_PAIR[d])
            if lo is not None and hi <= lo:
                return [EINVAL, RANGE_ORDER_MSG[d], None]
    # fl_check_tags(), fl_check_tcp_flags()
    for need, attrs in (('vlan', ('vlan_id', 'vlan_prio', 'vlan_eth')),
                        ('cvlan', ('cvlan_id', 'cvlan_prio', 'cvlan_eth')),
                        ('ppp', ('ppp_proto',))):
        if any(a in kv or f.get(a) for a in attrs) and not met(need):
            return prereq(need)
    if 'tcp_flags' in kv and \
            full_mask(K.KEY['tcp_flags'], kv['tcp_flags'][1]) & ~0xfff:
        return [EINVAL, TCP_FLAGS_MSG, 'refused-range']
    # fl_check_ct(): the conntrack options are built in the guest kernel
    if 'ct_state' in kv:
        v, m = kv['ct_state']
        # a bit the uAPI does not define, in the value or the mask
        if (v | (m or 0)) & ~K.CT_FLAGS:
            return [EINVAL, 'Unknown ct_state flags', None]
        msg = ct_state_error(v & full_mask(K.KEY['ct_state'], m))
        if msg:
            return [EINVAL, msg, None]
    return None
