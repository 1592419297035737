# SPDX-License-Identifier: GPL-2.0
"""flower.model_keys - the model's flow keys: masks, needs, the
policies of the nested attributes, and what a dump holds for them.
"""

import collections
import errno
import struct

from flower import needs
from flower.nl import nla, walk_attrs

from flower.model_attrs import (A, CT_EST, CT_INV, CT_NEW, CT_RPL, CT_TRK,
                                ENC_ADDR_V4, ENC_ADDR_V6, ENC_OPTS_MAX, Err,
                                GENEVE, G_CLASS, G_DATA, G_TYPE, LSE_ATTR,
                                LSE_FIELD, LSE_LEN, LSE_MAX, MEMBERS,
                                MPLS_FIELDS, MPLS_LSE, MPLS_LSES,
                                MPLS_RANGE_MSG, MPLS_USED, NLA_F_NESTED,
                                TYPE_MASK, T_CVLAN_ETH_TYPE, T_CVLAN_ID,
                                T_CVLAN_PRIO, T_ETH_TYPE, T_IP_FLAGS,
                                T_IP_FLAGS_MASK, T_MPLS, T_MPLS_OPTS,
                                T_NUM_OF_VLANS, T_PPP_PROTO, T_VLAN_ETH_TYPE,
                                T_VLAN_ID, T_VLAN_PRIO, TUN_OPT_KINDS,
                                VLAN_TPIDS, VXLAN_GBP_MASK, be16, u16le, u32le)


def new_key():
    return {m: bytearray(n) for m, n in MEMBERS.items()}


def canon(d):
    """A key/mask dict without all-zero members, as a hashable tuple."""
    return tuple((m, bytes(v)) for m, v in d.items() if any(v))


def masked(key, mask):
    return tuple((m, bytes(a & b for a, b in zip(key[m], v)))
                 for m, v in mask.items() if any(v))


def tagged(key, mask, depth):
    """Whether the filter has the outer (depth 0) or inner (1) tag: a
    TPID, or num_of_vlans > depth (stock's rule: num_of_vlans makes the
    tag's keys apply, even with no TPID to match, e.g. protocol all
    "num_of_vlans 1 vlan_prio 5")."""
    return any(mask['cvlan_tpid' if depth else 'vlan_tpid']) or \
        (key['num_of_vlans'][0] & mask['num_of_vlans'][0]) > depth


def proto_is(key, mask, p):
    return bytes(mask['n_proto']) == b'\xff\xff' and \
        be16(bytes(key['n_proto'])) == p


def ip_proto_is(key, mask, p):
    return mask['ip_proto'][0] == 0xFF and key['ip_proto'][0] == p


def need_met(key, mask, need):
    """fl_need_met(): the protocol needs by flower.needs' rules, the
    others by the model's tags, PPPoE type and tunnel family."""
    if need in needs.PROTO_RULES:
        protos, ipp = needs.PROTO_RULES[need]
        return (protos is None or
                any(proto_is(key, mask, p) for p in sorted(protos))) and \
            (ipp is None or any(ip_proto_is(key, mask, p)
                                for p in sorted(needs.ip_protos(ipp))))
    if need == 'VLAN':
        return tagged(key, mask, 0)
    if need == 'CVLAN':
        return tagged(key, mask, 1)
    if need == 'PPPOE':
        return any(mask['pppoe.type'])
    if need == 'IPV4_ADDRS':
        return u16le(bytes(key['addr_type'])) == ENC_ADDR_V4
    if need == 'ENC_IPV6_ADDRS':
        return u16le(bytes(key['enc_addr_type'])) == ENC_ADDR_V6
    if need == 'NO_IPV4_ADDRS':
        return u16le(bytes(key['addr_type'])) != ENC_ADDR_V4
    if need == 'NO_ENC_IPV6_ADDRS':
        return u16le(bytes(key['enc_addr_type'])) != ENC_ADDR_V6
    raise ValueError(need)


def row_dumped(key, mask, v, need):
    """fl_dump_key_val(): a row under a non-zero mask dumps when its need
    is met (a member shared with a key of another protocol: the ports)
    and an address row when it is of the filter's family (the address
    members are unions), as on stock."""
    if not need_met(key, mask, need):
        return False
    for pre, at in (('ENC_IPV4_', 'enc_addr_type'), ('IPV4_', 'addr_type')):
        if v.startswith(pre):
            return u16le(bytes(key[at])) == ENC_ADDR_V4
    for pre, at in (('ENC_IPV6_', 'enc_addr_type'), ('IPV6_', 'addr_type')):
        if v.startswith(pre):
            return u16le(bytes(key[at])) == ENC_ADDR_V6
    return True


def nla_parse_strict(payload, max_type, policy):
    """__nla_parse() with FL_NLA_VALIDATE (strict) -> {type: value}: attribute
    by attribute, an unknown type, then policy(type, value) raises; the
    last duplicate wins; trailing bytes are refused after them all."""
    sub, srem = walk_attrs(payload)
    tb = {}
    for st, sv in sub:
        typ = st & TYPE_MASK
        if typ == 0 or typ > max_type:
            raise Err(errno.EINVAL, 'Unknown attribute type')
        policy(typ, sv)
        tb[typ] = sv
    if srem > 0:
        raise Err(errno.EINVAL, 'bytes leftover after parsing attributes')
    return tb


LEFTOVER_MSG = 'bytes leftover after parsing attributes'


def nla_parse_liberal(payload, max_type, lengths):
    """__nla_parse(NL_VALIDATE_LIBERAL) -> ({type: value}, whether bytes
    were left over after the last attribute: then the extack says so,
    LEFTOVER_MSG, over any warning before it).  Types 0 and above
    max_type are skipped; lengths: {type: (least, most or None)}, a value
    shorter or longer refused (ERANGE), a fixed-size one longer than its
    type cut to it (its first bytes are used); the last duplicate wins."""
    sub, srem = walk_attrs(payload)
    tb = {}
    for st, sv in sub:
        typ = st & TYPE_MASK
        if typ == 0 or typ > max_type:
            continue
        least, most = lengths[typ]
        if len(sv) < least or (most is not None and len(sv) > most):
            raise Err(errno.ERANGE, 'Attribute failed policy validation')
        tb[typ] = sv if most is not None else sv[:least]
    return tb, srem > 0


# fl_geneve_opt_policy: class be16, type u8 (fixed), data a binary of at
# most 128 bytes
GENEVE_LENGTHS = {G_CLASS: (2, None), G_TYPE: (1, None), G_DATA: (0, 128)}


def mpls_lse_policy(typ, value):
    """fl_mpls_lse_policy: depth, ttl, bos, tc u8; label u32."""
    if len(value) != (4 if typ == LSE_ATTR['LABEL'] else 1):
        raise Err(errno.EINVAL, 'invalid attribute length')


def geneve_opts(data):
    """fl_set_enc_opts(): a TCA_FLOWER_KEY_ENC_OPTS(_MASK) payload ->
    (the options as on the wire, 255 bytes, zero after the last; their
    length; whether an option had bytes left over), or raises Err.  Each
    option is parsed (liberally, as stock: unknown types skipped, long
    class and type cut) and appended before the next is looked at."""
    opts, n, leftover = bytearray(ENC_OPTS_MAX), 0, False
    items, rem = walk_attrs(data)
    for t, payload in items:
        if t & TYPE_MASK != GENEVE:
            raise enc_opts_mixed(t)
        tb, left = nla_parse_liberal(payload, G_DATA, GENEVE_LENGTHS)
        leftover |= left
        if len(tb) != 3:
            raise Err(errno.EINVAL, 'Geneve option needs class, type and '
                                    'data')
        dl = len(tb[G_DATA])
        if dl < 4 or dl > 124 or dl % 4:
            raise Err(errno.EINVAL, 'Geneve option data must be 4 to 124 '
                                    'bytes, a multiple of 4')
        if n + 4 + dl > ENC_OPTS_MAX:
            raise Err(errno.EINVAL, 'Geneve options longer than 255 bytes')
        opts[n:n + 4] = tb[G_CLASS] + tb[G_TYPE] + bytes([dl // 4])
        opts[n + 4:n + 4 + dl] = tb[G_DATA]
        n += 4 + dl
    if rem or not n:
        raise Err(errno.EINVAL, 'Malformed or empty tunnel options')
    return opts, n, leftover


def enc_opts_mixed(t):
    """fl_set_enc_opts_mixed(): the Err for an option of type t (with
    flag bits) where no further option, or only Geneve's, may come."""
    t &= TYPE_MASK
    kind = TUN_OPT_KINDS.get(t)
    return Err(errno.EINVAL, 'Duplicate type for geneve options'
               if t == GENEVE else kind.dup_msg if kind else
               'Unknown tunnel option type')


def tun_opt(kind, payload, mask):
    """fl_set_tun_opt(): one option of kind (payload: its attributes;
    None for a mask without an option: every field whole) -> the bytes of
    its struct in enc_opts.data, or raises Err.  Parsed strictly (the
    kind's policy: u8/u32 fields), then the required fields (a mask has
    none) and their values: vxlan's gbp under VXLAN_GBP_MASK, erspan's
    version choosing the fields (a mask without one: 1), dir one bit and
    hwid six (bit fields)."""
    tb = {}
    if payload is not None:
        lens = {t: ln for t, ln in kind.fields.values()}

        def policy(typ, value):
            if len(value) != lens[typ]:
                raise Err(errno.EINVAL, 'invalid attribute length')
        tb = nla_parse_strict(payload, kind.maxtype, policy)
    f = {name: tb.get(t) for name, (t, _ln) in kind.fields.items()}
    if kind.name == 'vxlan':
        if not mask and f['GBP'] is None:
            raise Err(errno.EINVAL, 'Missing tunnel key vxlan option gbp')
        gbp = u32le(f['GBP']) & VXLAN_GBP_MASK if f['GBP'] is not None \
            else 0xFFFFFFFF
        return struct.pack('<I', gbp)
    if kind.name == 'gtp':
        if not mask and (f['PDU_TYPE'] is None or f['QFI'] is None):
            raise Err(errno.EINVAL, 'Missing tunnel key gtp option pdu '
                                    'type or qfi')
        return bytes(f[n][0] if f[n] is not None else 0xFF
                     for n in ('PDU_TYPE', 'QFI'))
    if not mask and f['VER'] is None:
        raise Err(errno.EINVAL, 'Missing tunnel key erspan option ver')
    ver = f['VER'][0] if f['VER'] is not None else 1
    md = bytearray(struct.pack('<i', ver) + bytes(8))
    if ver == 1:
        if not mask and f['INDEX'] is None:
            raise Err(errno.EINVAL, 'Missing tunnel key erspan option index')
        md[4:8] = f['INDEX'] if f['INDEX'] is not None else b'\xff' * 4
        return bytes(md)
    if ver == 2:
        if not mask and (f['DIR'] is None or f['HWID'] is None):
            raise Err(errno.EINVAL, 'Missing tunnel key erspan option dir '
                                    'or hwid')
        d = f['DIR'][0] if f['DIR'] is not None else 1
        h = f['HWID'][0] if f['HWID'] is not None else 0xFF
        # struct erspan_md2 (little-endian bit fields): byte 6
        # hwid_upper:2 ft:5 p:1, byte 7 o:1 gra:2 dir:1 hwid:4
        md[10] = (h >> 4) & 0x3
        md[11] = (d & 1) << 3 | (h & 0xF) << 4
        return bytes(md)
    raise Err(errno.EINVAL, 'Tunnel key erspan option ver is incorrect')


def tun_opt_fields(kind, md):
    """fl_dump_<kind>_opt(): [(field type, bytes)] of an option's struct
    (the key's or the mask's)."""
    if kind.name == 'vxlan':
        return [(1, bytes(md[:4]))]
    if kind.name == 'gtp':
        return [(1, bytes(md[0:1])), (2, bytes(md[1:2]))]
    ver = struct.unpack('<i', bytes(md[:4]))[0]
    out = [(1, bytes([ver & 0xFF]))]
    if ver == 1:
        out.append((2, bytes(md[4:8])))
    elif ver == 2:
        hwid = (md[10] & 0x3) << 4 | md[11] >> 4
        out += [(3, bytes([md[11] >> 3 & 1])), (4, bytes([hwid]))]
    return out


def tun_opt_dump(kind, md):
    """fl_dump_tun_opt()'s payload of ENC_OPTS or ENC_OPTS_MASK: the
    option nested (NLA_F_NESTED, nla_nest_start()) with its fields."""
    return nla(kind.attr | NLA_F_NESTED, b''.join(
        nla(t, v) for t, v in tun_opt_fields(kind, md)))


def geneve_offsets(opts, n):
    """[(offset, data length)] of the options laid out in opts[:n]."""
    out, off = [], 0
    while off < n:
        dl = (opts[off + 3] & 0x1F) * 4
        out.append((off, dl))
        off += 4 + dl
    return out


def geneve_dump(opts, key_opts, n):
    """fl_dump_geneve_opts(): the payload of ENC_OPTS (opts = the key's)
    or ENC_OPTS_MASK (opts = the mask's), laid out by the key's lengths:
    one nested GENEVE (NLA_F_NESTED) per option, CLASS, TYPE, DATA."""
    out = b''
    for off, dl in geneve_offsets(key_opts, n):
        out += nla(GENEVE | NLA_F_NESTED,
                   nla(G_CLASS, bytes(opts[off:off + 2])) +
                   nla(G_TYPE, bytes(opts[off + 2:off + 3])) +
                   nla(G_DATA, bytes(opts[off + 4:off + 4 + dl])))
    return out


def is_tag(ethertype, tb, before):
    """fl_is_tag(): a tag is expected where the ethertype is a VLAN
    TPID, or where num_of_vlans asks for more tags than come before
    (whatever the ethertype, none included)."""
    n = tb.get(T_NUM_OF_VLANS)
    return ethertype in VLAN_TPIDS or (n is not None and n[0][0] > before)


def set_lse(fields, depth, key, mask):
    """fl_set_key_lse(): one label stack entry ({name: attribute bytes},
    depth from 1): the range checks (bos, tc, label), then the fields, and
    the entry counts as used even without one."""
    for name in ('BOS', 'TC', 'LABEL'):
        if name in fields:
            off, ln, m = LSE_FIELD[name]
            v = fields[name][0] if ln == 1 else u32le(fields[name])
            if v & ~m:
                raise Err(errno.EINVAL, MPLS_RANGE_MSG[name])
    base = (depth - 1) * LSE_LEN
    for name, data in fields.items():
        off, ln, m = LSE_FIELD[name]
        key['mpls'][base + off:base + off + ln] = data
        mask['mpls'][base + off:base + off + ln] = \
            bytes([m]) if ln == 1 else struct.pack('<I', m)
    key['mpls'][MPLS_USED] |= 1 << (depth - 1)
    mask['mpls'][MPLS_USED] |= 1 << (depth - 1)


def set_mpls_opt(payload, key, mask):
    """fl_set_key_mpls_opt(): one TCA_FLOWER_KEY_MPLS_OPTS_LSE, parsed
    strictly (fl_mpls_lse_policy: depth, ttl, bos, tc u8, label u32;
    attribute by attribute, last duplicate wins; trailing bytes refused
    after them), then its depth."""
    tb = nla_parse_strict(payload, LSE_MAX, mpls_lse_policy)
    depth = tb.get(LSE_ATTR['DEPTH'])
    if depth is None:
        raise Err(errno.EINVAL, 'Missing MPLS option "depth"')
    d = depth[0]
    if not 1 <= d <= MPLS_LSES:
        raise Err(errno.EINVAL, 'MPLS depth must be between 1 and 7')
    if mask['mpls'][MPLS_USED] & (1 << (d - 1)):
        raise Err(errno.EINVAL, 'MPLS depth given more than once')
    set_lse({n: tb[LSE_ATTR[n]] for n in MPLS_FIELDS if LSE_ATTR[n] in tb},
            d, key, mask)


def lse_dump(key, mask, i, types):
    """fl_dump_key_lse(): entry i's fields under a non-zero mask, as
    [(type, bytes)] with types in MPLS_FIELDS order."""
    out, base = [], i * LSE_LEN
    for name, t in zip(MPLS_FIELDS, types):
        off, ln, _m = LSE_FIELD[name]
        if any(mask['mpls'][base + off:base + off + ln]):
            out.append((t, bytes(key['mpls'][base + off:base + off + ln])))
    return out


def mpls_dump(key, mask):
    """fl_dump_key_mpls(): nothing without an entry; the first entry's
    attributes when it is the only one and has a field; else the nested
    options, one LSE (NLA_F_NESTED, nla_nest_start()) per used entry with
    its depth first."""
    used = mask['mpls'][MPLS_USED]
    if not used:
        return []
    if used == 1 and any(mask['mpls'][:LSE_LEN]):
        return lse_dump(key, mask, 0, T_MPLS)
    types = [LSE_ATTR[n] for n in MPLS_FIELDS]
    payload = b''
    for i in range(MPLS_LSES):
        if used & (1 << i):
            payload += nla(MPLS_LSE | NLA_F_NESTED, nla(
                LSE_ATTR['DEPTH'], bytes([i + 1])) + b''.join(
                    nla(t, v) for t, v in lse_dump(key, mask, i, types)))
    return [(T_MPLS_OPTS, payload)]


def eth_type_dump(key, mask):
    """fl_dump_key_eth_type(): [(type, bytes)] of the protocol keys."""
    out = []
    if tagged(key, mask, 0):
        # fl_dump_key_vlans(): the innermost ethertype as the dissector
        # reports it (fl_inner_ethertype(): the protocol PPP carries, the
        # PPPoE session's for another given ppp_proto; none when the filter
        # gives only tags, or PPPoE without ppp_proto), the tags; the
        # outer TPID only as the filter's protocol
        if any(mask['n_proto']):
            out.append((T_ETH_TYPE, bytes(key['n_proto'])))
        elif any(mask['pppoe.ppp_proto']):
            out.append((T_ETH_TYPE, bytes(key['pppoe.type'])))
        for pre, tid, tprio, tet in (
                ('vlan', T_VLAN_ID, T_VLAN_PRIO, T_VLAN_ETH_TYPE),
                ('cvlan', T_CVLAN_ID, T_CVLAN_PRIO, T_CVLAN_ETH_TYPE)):
            if pre == 'cvlan' and not tagged(key, mask, 1):
                break
            if any(mask[pre + '_id']):
                out.append((tid, bytes(key[pre + '_id'])))
            if any(mask[pre + '_prio']):
                out.append((tprio, bytes(key[pre + '_prio'])))
            if any(mask[pre + '_eth_type']):
                out.append((tet, bytes(key[pre + '_eth_type'])))
    elif any(mask['pppoe.type']):
        out.append((T_ETH_TYPE, bytes(key['pppoe.type'])))
    elif any(mask['n_proto']):
        out.append((T_ETH_TYPE, bytes(key['n_proto'])))
    if (tagged(key, mask, 0) or any(mask['pppoe.type'])) and \
            any(mask['pppoe.ppp_proto']):
        # fl_dump_key_ppp()
        out.append((T_PPP_PROTO, bytes(key['pppoe.ppp_proto'])))
    return out


def zero_addrs_dump(key, mask):
    """fl_dump_key_zero_addrs(): an address family under an all-zero
    address mask (the filter asks for the family, no row dumps it) as dst
    0/0; the tunnel's too, for a family (not "any tunnel")."""
    out = []
    for at, l3, v4, v6 in (('addr_type', 'l3', 'IPV4_DST', 'IPV6_DST'),
                           ('enc_addr_type', 'enc_l3', 'ENC_IPV4_DST',
                            'ENC_IPV6_DST')):
        if at == 'addr_type' and not any(mask[at]) or \
                at == 'enc_addr_type' and bytes(mask[at]) != b'\xff\xff':
            continue
        fam4 = u16le(bytes(key[at])) == ENC_ADDR_V4
        n = 8 if fam4 else 32
        if any(mask[l3][:n]):
            continue
        name = v4 if fam4 else v6
        out += [(A['KEY_' + name], bytes(n // 2)),
                (A['KEY_' + name + '_MASK'], bytes(n // 2))]
    return out


def ip_flags_dump(key, mask):
    """fl_dump_key_ip_flags(): key and mask, under a non-zero mask."""
    if not any(mask['ip_flags']):
        return []
    return [(T_IP_FLAGS, bytes(key['ip_flags'])),
            (T_IP_FLAGS_MASK, bytes(mask['ip_flags']))]


def ct_state_error(state):
    """fl_ct_state_error(): the extack for ct_state flags (key & mask)
    that no packet has together, or None."""
    if state and not state & CT_TRK:
        return 'ct_state flags other than trk need +trk'
    if state & CT_NEW and state & (CT_EST | CT_RPL):
        return 'ct_state +new excludes +est and +rpl'
    if state & CT_INV and state & ~(CT_TRK | CT_INV):
        return 'ct_state +inv goes with +trk alone'
    return None


class Filter:
    def __init__(self, key, mask, flags, classid, acts):
        self.handle = None
        self.key, self.mask = key, mask
        self.flags, self.classid, self.acts = flags, classid, acts

    def mkey(self, mask=None):
        return masked(self.key, self.mask if mask is None else mask)

    def ident(self):
        """What must be unique in a prio: the mask and the key under it
        (one hash table per mask)."""
        return canon(self.mask), self.mkey()


class Tp:
    """One prio: its filters by handle, and its masks (canon(mask) ->
    mask) in the order they were first added, oldest first: the order in
    which classify tries them.  A mask goes when its last filter goes; a
    mask added again is then the youngest."""

    def __init__(self, chain, prio, proto, recipe):
        self.chain, self.prio, self.proto = chain, prio, proto
        self.masks = collections.OrderedDict()
        self.filters = {}
        self.recipe = recipe
        # the recipes of the prio's filters (the first one's, then the
        # variants with other masks the generator sent into it)
        self.recipes = [recipe] if recipe is not None else []

    def put(self, f):
        """Add filter f at f.handle, or replace the one there: the new
        mask (if new) is appended before the old filter's is released."""
        old = self.filters.get(f.handle)
        self.filters[f.handle] = f
        c = canon(f.mask)
        if c not in self.masks:
            self.masks[c] = f.mask
        if old is not None:
            self.release(old)

    def remove(self, handle):
        self.release(self.filters.pop(handle))

    def release(self, f):
        c = canon(f.mask)
        if not any(canon(g.mask) == c for g in self.filters.values()):
            self.masks.pop(c, None)


def strscpy_len(data):
    n = len(data)
    if n and data[-1] == 0:
        n -= 1
    return n
