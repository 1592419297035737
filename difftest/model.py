# SPDX-License-Identifier: GPL-2.0
"""model.py - what ours answers to a generated filter: the refusal its
fl_change() gives, or none, and the warnings it may give when it accepts.

Since series step 22 ours refuses only what stock 6.1 refuses (malformed
requests, MPLS fields wider than their bits, port ranges without both
bounds or in the wrong order, ip_flags without a mask, ct_state sets no
packet has); every other request stock takes, ours takes too, with
stock's key and mask, and an extack warning for each thing stock does
silently (docs/leniency.md, flower/needs.py's MESSAGES and WARNINGS).
gen.py records the prediction with each filter (predict()): compare.py
checks ours' answer against it (errno and extack of a refusal; the
warning of an acceptance, ours only), and files any refusal by ours that
stock does not make as our bug."""

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


EINVAL, ERANGE, EOPNOTSUPP = 22, 34, 95
# netlink's own refusal of an attribute its policy rejects (lib/nlattr.c)
POLICY_MSG = 'Attribute failed policy validation'
FLAGS = uapi.BY_NAME['FLAGS'].number
# tc_flags_valid() (include/net/pkt_cls.h): skip_hw 1, skip_sw 2, verbose 16
TC_FLAGS_KNOWN, TC_FLAGS_SKIP_BOTH = 0x13, 0x3
# the oracle's need names -> ours' warning for a key whose need is unmet
NEED_MSG = {K.NEED[n]: m for n, m in needs.MESSAGES.items() if n in K.NEED}
W = needs.WARNINGS
# fl_set_key_port_range() (stock's messages, upstream's "Ensure both
# minimum and maximum ports are specified"): both kernels refuse these
RANGE_BOTH_MSG = {'dst': 'Both min and max destination ports must be '
                         'specified',
                  'src': 'Both min and max source ports must be specified'}
RANGE_ORDER_MSG = {'dst': 'Invalid destination port range (min must be '
                          'strictly smaller than max)',
                   'src': 'Invalid source port range (min must be '
                          'strictly smaller than max)'}
# ours' fl_keys[], in order, as far as the oracle has the keys (the VLAN,
# MPLS, PPP proto and ip_flags keys are parsed elsewhere)
ROWS = ('ip_proto', 'eth_dst', 'eth_src', 'num_of_vlans', 'pppoe_sid',
        'ipv4_src', 'ipv4_dst', 'ipv6_src', 'ipv6_dst', 'ip_tos', 'ip_ttl',
        'tcp_src', 'tcp_dst', 'udp_src', 'udp_dst', 'sctp_src', 'sctp_dst',
        'port_dst_min', 'port_dst_max', 'port_src_min', 'port_src_max',
        'tcp_flags', 'icmpv4_type', 'icmpv4_code', 'icmpv6_type',
        'icmpv6_code', 'arp_op', 'arp_sip', 'arp_tip', 'arp_sha', 'arp_tha',
        'l2tpv3_sid', 'hash', 'enc_key_id', 'enc_ipv4_src', 'enc_ipv4_dst',
        'enc_ipv6_src', 'enc_ipv6_dst', 'enc_udp_src', 'enc_udp_dst',
        'enc_ip_tos', 'enc_ip_ttl', 'ct_state', 'ct_zone', 'ct_mark',
        'ct_labels')
# fl_set_key_pppoe(): ppp_proto ip/ipv6/mpls is also the filter's n_proto
PPP_CARRIED = {v: k for k, v in uapi.PPP_PROTO.items()}
# (key suffix, largest value, warning): both kernels mask wider values
TAG_RANGES = (('_id', 0xfff, W['vlan_id']), ('_prio', 7, W['vlan_prio']))
MPLS_KEYS = ('mpls_ttl', 'mpls_bos', 'mpls_tc', 'mpls_label')
MPLS_RANGES = (('mpls_bos', 1, 'Bottom Of Stack (BOS) must be 0 or 1'),
               ('mpls_tc', 7, 'Traffic Class (TC) must be between 0 and 7'),
               ('mpls_label', 0xfffff, 'Label must be between 0 and 1048575'))
# the ip_flags bits a packet has (frag, firstfrag)
IP_FLAGS_KNOWN = sum(uapi.KEY_FLAGS_BITS.values())
# attributes a request may carry that no key of the oracle is: their
# numbers (filters.py's lenient requests put them in a filter's 'extra')
IN_HW_COUNT = uapi.BY_NAME['IN_HW_COUNT'].number
MPLS_OPTS = uapi.BY_NAME['KEY_MPLS_OPTS'].number
MASKS = {a.number for a in uapi.TABLE
         if a.mask and a.name.endswith('_MASK')}


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


def eth_type(f):
    """The filter's TCA_FLOWER_KEY_ETH_TYPE (a protocol name), or None:
    protocol all sends none, nor does a lenient request without it."""
    if f.get('no_eth_type') or f['proto'] == 'all':
        return None
    return f['proto']


def tc_proto(f):
    """The filter's protocol (the tcmsg's): its eth_type's, unless a
    lenient request gives another."""
    return f.get('tc_proto') or f['proto']


def unknown_type(t):
    """An attribute type flower's policy does not have (0, or above
    TCA_FLOWER_MAX): both kernels ignore it, ours with a warning."""
    return t <= 0 or t > uapi.MAX


class Prediction:
    """Ours' fl_change() on filter f, step by step: the state its parse
    keeps (st: the protocol, ip_proto, tags, address families), the
    warnings given and the keys kept so far (out).  Each step (in
    fl_change()'s order, PREDICT_STEPS) returns (errno, extack) when ours
    refuses f there, else None."""

    def __init__(self, f):
        self.f = f
        self.kv = kv = {name: (v, m) for name, v, m in f['keys']}
        self.nv = kv['num_of_vlans'][0] if 'num_of_vlans' in kv else 0
        self.st = dict(n_proto=None, ip_proto=None, tag0=False, tag1=False,
                       pppoe=False, v4addrs=False, enc6addrs=False)
        self.warns, self.applied = [], set()
        self.out = dict(refusal=None, warnings=self.warns,
                        applied=self.applied)
        # the attribute types of a lenient request's 'extra' (set by
        # set_ip_flags(), where ours first looks at them)
        self.extra = None

    def warn(self, msg):
        if msg not in self.warns:
            self.warns.append(msg)

    def is_tag(self, et, before):       # fl_is_tag()
        return et in VLANS or self.nv > before

    def inner(self, et):                # fl_set_key_inner()
        if et == 'ppp_ses':
            self.st['pppoe'] = True
            if 'ppp_proto' in self.kv:
                self.st['n_proto'] = PPP_CARRIED.get(self.kv['ppp_proto'][0])
        else:
            self.st['n_proto'] = et

    def tag(self, pre):                 # fl_set_key_tag(): values masked
        kv = self.kv
        for suffix, top, msg in TAG_RANGES:
            if pre + suffix in kv and kv[pre + suffix][0] > top:
                self.warn(msg)
        self.applied.update(pre + s for s, _t, _m in TAG_RANGES
                            if pre + s in kv)

    def met(self, need):                # fl_need_met()
        st = self.st
        np, ipp = st['n_proto'], st['ip_proto']
        return {'any': True, 'ip': np in ('ip', 'ipv6'),
                'v4addrs': st['v4addrs'], 'noipv4': not st['v4addrs'],
                'enc6addrs': st['enc6addrs'],
                'noenc6': not st['enc6addrs'], 'tcp': ipp == 6,
                'udp': ipp == 17, 'sctp': ipp == 132, 'l2tp': ipp == 115,
                'l4port': ipp in (6, 17, 132),
                'icmp4': np == 'ip' and ipp == 1,
                'icmp6': np == 'ipv6' and ipp == 58,
                'arp': np in ('arp', 'rarp'),
                'mpls': np in ('mpls_uc', 'mpls_mc'),
                'vlan': st['tag0'], 'cvlan': st['tag1'],
                'ppp': st['pppoe']}[need]

    def check_policy(self):
        """nla_parse of TCA_OPTIONS against fl_policy, then
        tc_flags_valid(): an attribute shorter than its policy's length
        (a minimum: for an exact-size integer, an address, an
        NLA_UNSPEC .len; not NLA_BINARY ct_labels, whose .len is a
        maximum) is refused by netlink on both kernels, and so are
        flags with an unknown bit or skip_hw and skip_sw together."""
        for t, h in encoded_attrs(self.f):
            if unknown_type(t) or t == IN_HW_COUNT:
                continue
            ln = uapi.BY_NUMBER[t].length
            if ln and len(h) // 2 < ln and not fixed_max(t):
                return ERANGE, POLICY_MSG
            if t == FLAGS:
                flags = int.from_bytes(bytes.fromhex(h)[:4], 'little')
                if flags & ~TC_FLAGS_KNOWN or \
                        flags & TC_FLAGS_SKIP_BOTH == TC_FLAGS_SKIP_BOTH:
                    return EINVAL, 'Invalid flower flags'
        return None

    def warn_lax_attrs(self):
        """fl_warn_lax_attrs(): the liberal parse's attributes, in
        order."""
        for t, h in encoded_attrs(self.f):
            if unknown_type(t):
                self.warn(W['unknown_attr'])
                continue
            if t == IN_HW_COUNT:
                # only dumped: no policy, any length
                self.warn(W['in_hw_count'])
                continue
            ln = uapi.BY_NUMBER[t].length
            if ln and len(h) // 2 > ln and not fixed_max(t):
                self.warn(W['attr_long'])

    def set_eth_type_and_vlans(self):
        """fl_set_key_eth_type(), fl_set_key_vlans()."""
        f = self.f
        et = eth_type(f)
        if et is not None and tc_proto(f) != 'all' and \
                K.PROTOS[et] != K.PROTOS[tc_proto(f)]:
            self.warn(W['eth_type'])
        if self.is_tag(et, 0):
            self.tag('vlan')
            self.st['tag0'] = True
            if not self.is_tag(f['vlan_eth'], 1):
                if f['vlan_eth']:
                    self.inner(f['vlan_eth'])
            else:
                self.tag('cvlan')
                self.st['tag1'] = True
                if f['cvlan_eth']:
                    self.inner(f['cvlan_eth'])
        elif et is not None:
            self.inner(et)
        if self.st['pppoe'] and 'ppp_proto' in self.kv:
            self.applied.add('ppp_proto')

    def set_ip_flags(self):
        """fl_set_key_ip_flags(): any protocol."""
        self.extra = {t for t, _h in self.f.get('extra', ())}
        if 'ip_flags' in self.kv:
            v, m = self.kv['ip_flags']
            if m is None:
                return EINVAL, 'Missing flags mask'
            if (v | m) & ~IP_FLAGS_KNOWN:
                self.warn(W['ip_flags'])
            self.applied.add('ip_flags')
        elif K.A['KEY_FLAGS_MASK'] in self.extra:
            self.warn(W['mask_without_key'])
        return None

    def set_mpls(self):
        """fl_set_key_mpls(): values wider than their field refused."""
        kv = self.kv
        if any(n in kv for n in MPLS_KEYS) or MPLS_OPTS in self.extra:
            if not self.met('mpls'):
                self.warn(NEED_MSG['mpls'])
            else:
                for name, top, msg in MPLS_RANGES:
                    if name in kv and kv[name][0] & ~top:
                        return EINVAL, msg
                self.applied.update(n for n in MPLS_KEYS if n in kv)
        return None

    def set_enc(self):
        """fl_set_key_enc_opts(): a mask without its options;
        fl_set_key_enc_control(): with both families the tunnel's is
        IPv6, and the IPv4 rows are ignored (their need)."""
        if K.A['KEY_ENC_OPTS_MASK'] in self.extra:
            self.warn(W['mask_without_key'])
        self.st['enc6addrs'] = any(n.startswith('enc_ipv6') for n in self.kv)

    def set_addr_type(self):
        """fl_set_key_addr_type(): IPv4 addresses win; an exact ethertype
        of another family keeps them, and no packet matches."""
        kv = self.kv
        fam = 'ip' if any(n.startswith('ipv4_') for n in kv) else \
            'ipv6' if any(n.startswith('ipv6_') for n in kv) else None
        if fam and self.st['n_proto'] is not None and \
                self.st['n_proto'] != fam:
            self.warn(W['addr_family'])
        self.st['v4addrs'] = fam == 'ip'

    def set_key_rows(self):
        """fl_keys[]: a mask without its key, then a key whose need is
        unmet."""
        present = set(self.kv)
        if self.f['ip_proto'] is not None:
            present.add('ip_proto')
        for name in ROWS:
            k = K.KEY.get(name)
            if name not in present:
                if k and k['mask'] and K.A[k['mask']] in self.extra:
                    self.warn(W['mask_without_key'])
                continue
            need = 'ip' if name == 'ip_proto' else k['need']
            if not self.met(need):
                self.warn(NEED_MSG[need])
                continue
            if name == 'ip_proto':
                self.st['ip_proto'] = self.f['ip_proto']
            else:
                self.applied.add(name)

    def warn_tags(self):
        """fl_warn_tags(): tag and PPP keys the protocol left no room
        for."""
        for need, attrs in (('vlan', ('vlan_id', 'vlan_prio', 'vlan_eth')),
                            ('cvlan', ('cvlan_id', 'cvlan_prio',
                                       'cvlan_eth')),
                            ('ppp', ('ppp_proto',))):
            if any(a in self.kv or self.f.get(a) for a in attrs) and \
                    not self.met(need):
                self.warn(NEED_MSG[need])

    def warn_tcp_flags(self):
        """fl_warn_tcp_flags(): kept as given."""
        if 'tcp_flags' in self.applied and \
                full_mask(K.KEY['tcp_flags'], self.kv['tcp_flags'][1]) & \
                ~0xfff:
            self.warn(W['tcp_flags'])

    def check_port_ranges(self):
        """fl_check_port_range() (both bounds of a direction, dst first,
        then min < max), on the bounds kept."""
        rk = {n for n in self.applied if K.KEY[n].get('range')}
        for d in ('dst', 'src'):
            if (K.RANGE_PAIR[d][0] in rk) != (K.RANGE_PAIR[d][1] in rk):
                return EINVAL, RANGE_BOTH_MSG[d]
        for d in ('dst', 'src'):
            lo, hi = (self.kv[n][0] if n in rk else None
                      for n in K.RANGE_PAIR[d])
            if lo is not None and hi <= lo:
                return EINVAL, RANGE_ORDER_MSG[d]
        return None

    def check_ct(self):
        """fl_check_ct(): the conntrack options are built in the guest
        kernel."""
        if 'ct_state' in self.kv:
            v, m = self.kv['ct_state']
            # a bit the uAPI does not define, in the value or the mask
            if (v | (m or 0)) & ~K.CT_FLAGS:
                return EINVAL, 'Unknown ct_state flags'
            msg = ct_state_error(v & full_mask(K.KEY['ct_state'], m))
            if msg:
                return EINVAL, msg
        return None


# Prediction's steps in the order ours' fl_change() takes them: the
# first refusal ends it
PREDICT_STEPS = (Prediction.check_policy, Prediction.warn_lax_attrs,
                 Prediction.set_eth_type_and_vlans, Prediction.set_ip_flags,
                 Prediction.set_mpls, Prediction.set_enc, Prediction.set_addr_type,
                 Prediction.set_key_rows, Prediction.warn_tags,
                 Prediction.warn_tcp_flags, Prediction.check_port_ranges,
                 Prediction.check_ct)


def predict(f):
    """Ours' answer to filter f: dict(refusal=[errno, extack, None] or
    None, warnings=[the warnings it gives, in its order, when it accepts],
    applied=[the keys it keeps: their need met]).  Netlink carries one
    message, the first warning."""
    p = Prediction(f)
    for step in PREDICT_STEPS:
        refusal = step(p)
        if refusal:
            p.out['refusal'] = [refusal[0], refusal[1], None]
            break
    return p.out


def fixed_max(t):
    """An attribute whose policy length is a maximum (NLA_BINARY
    ct_labels): a longer one is refused by both kernels, not taken."""
    return uapi.BY_NUMBER[t].name.startswith('KEY_CT_LABELS')


def encoded_attrs(f):
    """f's TCA_OPTIONS as encode_filter() gives them: [[type, hex], ...]
    (f['attrs'] once gen.py has set it)."""
    if 'attrs' in f:
        return f['attrs']
    from difftest.filters import encode_filter
    return encode_filter(f)


def predict_refusal(f):
    """[errno, extack, class] of ours' refusal of filter f, or None: ours
    accepts it.  The class is None: every refusal ours makes, stock makes
    too (a refusal stock does not make is our bug)."""
    return predict(f)['refusal']


def warnings(f):
    """The warnings ours gives when it accepts f, in its order (the first
    is the one netlink carries); [] for none."""
    return predict(f)['warnings']


def applied(f):
    """The keys of f ours keeps (their prerequisite met): the keys a
    verdict on f tests."""
    return predict(f)['applied']
