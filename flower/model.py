# SPDX-License-Identifier: GPL-2.0
"""flower.model - the one Python model of this classifier's fl_change()
(and fl_dump()): what ours answers to a request's TCA_OPTIONS.

Built from flower/uapi.py (the attribute table), flower/keys.py (the
fl_keys[] rows) and flower/needs.py (the needs, their messages and the
other warnings), through flower/model_attrs.py (lengths, the flow key's
members, the tunnel option kinds, the ct_state bits, the MPLS messages)
and flower/model_keys.py (the flow key: needs met, nested attributes,
what a dump holds).

Classifier(devs).fl_parse(attrs, tail_bad, proto) parses the attributes
([(type with flags, bytes, meta)]) in fl_change()'s order and returns
the Filter it makes (key, mask, flags, classid, actions; .warning the
extack of the ack: the first warning, or None) or raises Err(errno,
extack).  Either way the instance keeps what the parse said before it
ended: .warnings (every warning, in order, each once) and .applied (the
key attributes kept: their need met).  dump_opts(f) is what fl_dump()
puts for the filter.

Two generators ask it: the fuzzer (stress/flowerfuzz/model.py: the tc
core around it, raw requests) and the differential oracle
(difftest/model.py: a generated filter encoded as tc sends it).
"""

import errno
import struct

from flower import keys as flower_keys
from flower.needs import WARNINGS
from flower.nl import walk_attrs

from flower.model_attrs import (A, ATTR_LEN, BINARY_LENGTHS, CT_FLAGS,
                                CVLAN_ATTRS, ENC_ADDR_V4, ENC_ADDR_V6, ENC_ANY,
                                ENC_OPTS_MAX, ENC_V4, ENC_V6, ETH_P, ETH_P_ALL,
                                ETH_P_PPP_SES, Err, FLOWER_MAX, FL_TUNNEL_ANY,
                                IP_FLAGS_KNOWN, KEYS, MAX_LEN, MPLS_FIELDS,
                                MPLS_LSE, MPLS_USED, NEED_MSG, NESTED,
                                NOT_IN_HW, PPP_ATTRS, PPP_CARRIED,
                                PORT_RANGE_BOTH_MSG, PORT_RANGE_ORDER_MSG,
                                TUNNEL_GENEVE_OPT, TUNNEL_OPTIONS_PRESENT,
                                TYPE_MASK, T_ACT, T_CLASSID, T_CVLAN_ETH_TYPE,
                                T_CVLAN_ID, T_CVLAN_PRIO, T_ENC_OPTS,
                                T_ENC_OPTS_MASK, T_ETH_TYPE, T_FLAGS, T_INDEV,
                                T_IN_HW_COUNT, T_IP_FLAGS, T_IP_FLAGS_MASK,
                                T_MPLS, T_MPLS_OPTS, T_PPP_PROTO,
                                T_VLAN_ETH_TYPE, T_VLAN_ID, T_VLAN_PRIO,
                                TUN_OPT_BY_FLAG, TUN_OPT_KINDS, VAR,
                                VLAN_ATTRS, be16, u16le, u32le)
from flower.model_keys import (LEFTOVER_MSG, Filter, ct_state_error,
                               enc_opts_mixed, eth_type_dump, geneve_dump,
                               geneve_offsets, geneve_opts, ip_flags_dump,
                               is_tag, mpls_dump, need_met, new_key,
                               proto_is, row_dumped, set_lse, set_mpls_opt,
                               strscpy_len, tun_opt, tun_opt_dump,
                               zero_addrs_dump)

# fl_warn_tcp_flags(): the bits a packet's TCP flags have
TCP_FLAGS_BITS = flower_keys.KEY['tcp_flags'].bits
# the attributes of the tags' keys fl_set_key_tag() keeps
TAG_ATTRS = {'vlan': ('KEY_VLAN_ID', 'KEY_VLAN_PRIO'),
             'cvlan': ('KEY_CVLAN_ID', 'KEY_CVLAN_PRIO')}


class Classifier:
    """fl_change()'s parse of one request at a time (fl_parse()); devs:
    the device names INDEV may give -> their ifindex."""

    def __init__(self, devs):
        self.devs = devs        # name -> ifindex (for INDEV)
        self.names = {i: n for n, i in devs.items()}
        self.extack, self.warnings, self.applied = None, [], set()

    # -- fl_change()'s parsing, as cls_flower.c does it ------------------
    def warn(self, msg):
        """fl_warn(): a warning of the request being parsed; the first
        one is the extack of its answer (an error replaces it)."""
        if msg not in self.warnings:
            self.warnings.append(msg)
        if self.extack is None:
            self.extack = msg

    def leftover(self):
        """__nla_parse()'s message for bytes after the last attribute
        (NL_VALIDATE_LIBERAL: the parse goes on): NL_SET_ERR_MSG(), over
        any warning before it."""
        self.extack = LEFTOVER_MSG

    def fl_parse(self, attrs, tail_bad, proto=0x0003):
        """attrs: [(type with flags, bytes, meta)], meta for ACT: the
        generator's prediction (an Err to raise, or the list of actions);
        proto: the filter's protocol (the tcmsg's).  Returns a Filter
        (its warning: the first of the request's, or None) or raises Err;
        either way self.warnings and self.applied (the attribute names
        of the keys kept) say what the parse did up to its end."""
        if attrs is None:
            raise Err(errno.EINVAL, 'Missing flower options')
        self.extack, self.warnings, self.applied = None, [], set()
        self.check_policy(attrs)
        if tail_bad:
            self.leftover()
        tb = self.lax_attrs(attrs)
        flags = self.parse_flags(tb)
        key, mask = new_key(), new_key()
        self.set_indev(tb, key, mask)
        self.set_eth_type(tb, proto, key, mask)
        self.set_ip_flags(tb, key, mask)
        self.set_mpls(tb, key, mask)
        self.set_enc_opts(tb, key, mask)
        self.set_enc_control(tb, key, mask)
        self.set_addr_type(tb, key, mask)
        self.set_key_rows(tb, key, mask)
        self.check_tags(tb, key, mask)
        if be16(bytes(mask['tcp.flags'])) & ~TCP_FLAGS_BITS:
            self.warn(WARNINGS['tcp_flags'])    # kept as given
        self.check_port_range(key, mask)
        self.check_ct(tb, key, mask)
        acts = self.parse_actions(tb)
        classid = u32le(tb[T_CLASSID][0]) if T_CLASSID in tb else 0
        f = Filter(key, mask, flags, classid, acts)
        f.warning = self.extack
        return f

    @staticmethod
    def check_policy(attrs):
        """__nla_parse(NL_VALIDATE_LIBERAL), as the in-tree flower: types
        0 and above the maximum are skipped, an attribute longer than
        its type passes, a shorter one does not (bytes after the last
        attribute only leave their message: fl_parse())."""
        for t, data, _meta in attrs:
            typ = t & TYPE_MASK
            if typ == 0 or typ > FLOWER_MAX:
                continue
            ln = ATTR_LEN.get(typ)
            # NLA_STRING of .len IFNAMSIZ: at least one byte, and at most
            # 16 without one trailing NUL (validate_nla())
            if typ == T_INDEV and (not data or
                                   len(data) - (data[-1:] == b'\0') > 16):
                raise Err(errno.ERANGE, 'Attribute failed policy validation')
            # NLA_NESTED: empty, or at least one attribute header
            if typ in NESTED and data and len(data) < 4:
                raise Err(errno.ERANGE, 'Attribute failed policy validation')
            # NLA_BINARY with a maximum length
            if len(data or b'') > MAX_LEN.get(typ, 1 << 16):
                raise Err(errno.ERANGE, 'Attribute failed policy validation')
            if ln and ln != VAR and len(data) < ln:
                raise Err(errno.ERANGE, 'binary attribute size out of range'
                          if ln in BINARY_LENGTHS else
                          'Attribute failed policy validation')

    def lax_attrs(self, attrs):
        """fl_warn_lax_attrs(): what the liberal parse let through.
        Returns tb: {type: (data, meta)}, the last of a type winning, a
        long attribute cut to its type's length."""
        tb = {}
        for t, data, meta in attrs:
            typ = t & TYPE_MASK
            if typ == 0 or typ > FLOWER_MAX:
                self.warn(WARNINGS['unknown_attr'])
                continue
            if typ == T_IN_HW_COUNT:
                self.warn(WARNINGS['in_hw_count'])
            ln = ATTR_LEN.get(typ)
            if ln and ln != VAR and len(data) > ln:
                self.warn(WARNINGS['attr_long'])
                data = data[:ln]        # its first bytes are used
            tb[typ] = (data, meta)
        return tb

    @staticmethod
    def parse_flags(tb):
        """TCA_FLOWER_FLAGS: skip_hw, skip_sw (not both) and verbose."""
        flags = 0
        if T_FLAGS in tb:
            flags = u32le(tb[T_FLAGS][0])
            ok = not (flags & ~(1 | 2 | 16)) and (flags & 3) != 3
            if not ok:
                raise Err(errno.EINVAL, 'Invalid flower flags')
        return flags

    def set_indev(self, tb, key, mask):
        """fl_set_key(): INDEV, a device name, as its ifindex."""
        if T_INDEV not in tb:
            return
        data = tb[T_INDEV][0]
        n = strscpy_len(data)
        if n >= 16:
            raise Err(errno.EINVAL, 'Interface name too long')
        name = data[:n].split(b'\0')[0].decode('latin-1')
        if name not in self.devs:
            raise Err(errno.ENODEV, 'Network device not found')
        key['indev'][:] = struct.pack('<i', self.devs[name])
        mask['indev'][:] = b'\xff' * 4

    def set_key_rows(self, tb, key, mask):
        """fl_keys[]: a mask without its key warns, a key whose need is
        unmet is ignored (with a warning), the others are copied."""
        for v, m, member, off, ln, need in KEYS:
            val = tb.get(A['KEY_' + v])
            msk = tb.get(A['KEY_' + m]) if m else None
            if val is None:
                if msk is not None:
                    self.warn(WARNINGS['mask_without_key'])
                continue
            if not need_met(key, mask, need):
                self.warn(NEED_MSG[need])       # the key is ignored
                continue
            # nla_memcpy(): a short ct_label (or its mask) is zero-padded
            self.applied.add('KEY_' + v)
            key[member][off:off + ln] = (val[0] + bytes(ln))[:ln]
            mask[member][off:off + ln] = (msk[0] + bytes(ln))[:ln] \
                if msk else b'\xff' * ln

    @staticmethod
    def check_ct(tb, key, mask):
        """fl_check_ct(): every ct key is built in (kernel/flower.config
        has NF_CONNTRACK, _ZONES, _MARK, _LABELS: no EOPNOTSUPP here);
        then the flags the filter asks to be set (key & mask) must be
        possible."""
        # a flag bit the uAPI does not define, in the value or the mask
        for name in ('KEY_CT_STATE', 'KEY_CT_STATE_MASK'):
            if A[name] in tb and u16le(tb[A[name]][0]) & ~CT_FLAGS:
                raise Err(errno.EINVAL, 'Unknown ct_state flags')
        msg = ct_state_error(u16le(bytes(key['ct.state'])) &
                             u16le(bytes(mask['ct.state'])))
        if msg:
            raise Err(errno.EINVAL, msg)

    def parse_actions(self, tb):
        """The actions the generator predicted for ACT (or its Err)."""
        acts = []
        if T_ACT in tb:
            data, meta = tb[T_ACT]
            if isinstance(meta, Err):
                raise meta
            acts = list(meta)
            # tcf_action_init(): the action list parsed liberally too
            if data is not None and walk_attrs(data)[1] > 0:
                self.leftover()
        return acts

    @staticmethod
    def check_port_range(key, mask):
        """fl_check_port_range() (after the TCP flags): both ends of a
        range (their masks: the exact rows' all ones), then min < max;
        destination before source."""
        k, m = bytes(key['tp_range']), bytes(mask['tp_range'])
        for d, off in (('dst', 2), ('src', 0)):
            if m[off:off + 2] != m[off + 4:off + 6]:
                raise Err(errno.EINVAL, PORT_RANGE_BOTH_MSG[d])
        for d, off in (('dst', 2), ('src', 0)):
            if any(m[off:off + 2]) and \
                    be16(k[off + 4:off + 6]) <= be16(k[off:off + 2]):
                raise Err(errno.EINVAL, PORT_RANGE_ORDER_MSG[d])

    # -- the protocol: fl_set_key_eth_type() and the functions it calls --
    def set_eth_type(self, tb, proto, key, mask):
        """fl_set_key_eth_type(): ETH_TYPE (unlike the filter's protocol,
        not all: kept, with a warning) is a tag's TPID (a VLAN TPID, or
        any ethertype when num_of_vlans > 0), PPPoE's session ethertype
        or basic.n_proto, whatever its value (all and 0 too, as on
        stock).  Without ETH_TYPE the filter's protocol is no key (as on
        stock): only num_of_vlans > 0 makes a tag, with no TPID to match
        (stock's "num_of_vlans 1 vlan_prio 5" under protocol all).  Tag
        and PPP attributes that found no tag (or PPPoE) are check_tags()'
        warnings, after the rows (num_of_vlans is one)."""
        val = tb.get(T_ETH_TYPE)
        et = be16(val[0]) if val else None
        if val and proto != ETH_P_ALL and et != proto:
            self.warn(WARNINGS['eth_type'])
        if is_tag(et, tb, 0):
            self.set_vlans(tb, et, key, mask)
        elif et is not None:
            self.set_inner(tb, et, key, mask)

    def check_tags(self, tb, key, mask):
        """fl_warn_tags() (after the fl_keys[] rows): the tags' and PPP's
        attributes that found no tag (or PPPoE) were ignored; one
        fl_check_need() each, in this order."""
        for attrs, need in ((VLAN_ATTRS, 'VLAN'), (CVLAN_ATTRS, 'CVLAN'),
                            (PPP_ATTRS, 'PPPOE')):
            if any(t in tb for t in attrs) and \
                    not need_met(key, mask, need):
                self.warn(NEED_MSG[need])

    def set_tag(self, vid, prio, tpid, pre, key, mask):
        """fl_set_key_tag(): one tag (pre 'vlan' or 'cvlan'; tpid None or
        0: a tag num_of_vlans asks for, with no TPID to match); an id above
        4095 or a priority above 7 is masked, with a warning."""
        self.applied.update(a for a, x in zip(TAG_ATTRS[pre], (vid, prio))
                            if x is not None)
        if vid is not None:
            v = u16le(vid[0])
            if v > 4095:
                self.warn(WARNINGS['vlan_id'])
            key[pre + '_id'][:] = struct.pack('<H', v & 0xFFF)
            mask[pre + '_id'][:] = struct.pack('<H', 0xFFF)
        if prio is not None:
            p = prio[0][0]
            if p > 7:
                self.warn(WARNINGS['vlan_prio'])
            key[pre + '_prio'][0] = p & 7
            mask[pre + '_prio'][0] = 7
        if tpid:
            key[pre + '_tpid'][:] = struct.pack('>H', tpid)
            mask[pre + '_tpid'][:] = b'\xff\xff'

    def set_vlans(self, tb, tpid, key, mask):
        """fl_set_key_vlans(): the outer tag; vlan_ethtype is the inner
        tag's TPID when fl_is_tag(.., 1) says so (a VLAN TPID, or
        num_of_vlans > 1), else the innermost ethertype.  Without
        vlan_ethtype, num_of_vlans > 1 still makes the inner tag (no TPID
        to match, as stock's is_vlan_key() with no attribute); else the
        inner tag's keys are not looked at (not even their range)."""
        self.set_tag(tb.get(T_VLAN_ID), tb.get(T_VLAN_PRIO), tpid, 'vlan',
                     key, mask)
        nxt = tb.get(T_VLAN_ETH_TYPE)
        if nxt is None:
            if not is_tag(None, tb, 1):
                return
            et = None
        else:
            et = be16(nxt[0])
            key['vlan_eth_type'][:] = nxt[0]
            mask['vlan_eth_type'][:] = b'\xff\xff'
            if not is_tag(et, tb, 1):
                self.set_inner(tb, et, key, mask)
                return
        self.set_tag(tb.get(T_CVLAN_ID), tb.get(T_CVLAN_PRIO), et, 'cvlan',
                     key, mask)
        inner = tb.get(T_CVLAN_ETH_TYPE)
        if inner is None:
            return
        key['cvlan_eth_type'][:] = inner[0]
        mask['cvlan_eth_type'][:] = b'\xff\xff'
        self.set_inner(tb, be16(inner[0]), key, mask)

    def set_inner(self, tb, et, key, mask):
        """fl_set_key_inner(): PPPoE session frames, or basic.n_proto."""
        if et != ETH_P_PPP_SES:
            key['n_proto'][:] = struct.pack('>H', et)
            mask['n_proto'][:] = b'\xff\xff'
            return
        # fl_set_key_pppoe(): the session ethertype is pppoe.type; a PPP
        # protocol of ip/ipv6/mpls also sets basic.n_proto (any other
        # value is taken as given, no range)
        key['pppoe.type'][:] = struct.pack('>H', ETH_P_PPP_SES)
        mask['pppoe.type'][:] = b'\xff\xff'
        pp = tb.get(T_PPP_PROTO)
        if pp is None:
            return
        self.applied.add('KEY_PPP_PROTO')
        key['pppoe.ppp_proto'][:] = pp[0]
        mask['pppoe.ppp_proto'][:] = b'\xff\xff'
        if be16(pp[0]) in PPP_CARRIED:
            key['n_proto'][:] = struct.pack('>H', PPP_CARRIED[be16(pp[0])])
            mask['n_proto'][:] = b'\xff\xff'

    def set_ip_flags(self, tb, key, mask):
        """fl_set_key_ip_flags(): the mask is mandatory; bits other than
        frag and firstfrag (a warning), and key bits outside the mask,
        are dropped; any protocol."""
        val, msk = tb.get(T_IP_FLAGS), tb.get(T_IP_FLAGS_MASK)
        if val is None:
            if msk is not None:
                self.warn(WARNINGS['mask_without_key'])
            return
        if msk is None:
            raise Err(errno.EINVAL, 'Missing flags mask')
        v = struct.unpack('>I', val[0])[0]
        m = struct.unpack('>I', msk[0])[0]
        if (v | m) & ~IP_FLAGS_KNOWN:
            self.warn(WARNINGS['ip_flags'])
        self.applied.add('KEY_FLAGS')
        key['ip_flags'][:] = struct.pack('>I', v & m & IP_FLAGS_KNOWN)
        mask['ip_flags'][:] = struct.pack('>I', m & IP_FLAGS_KNOWN)

    def set_mpls(self, tb, key, mask):
        """fl_set_key_mpls(): without an MPLS protocol every MPLS
        attribute (options included) is ignored, unread, with a warning;
        else either the first entry's own attributes or the nested
        options, never both (EBADMSG)."""
        first = [t for t in T_MPLS if t in tb]
        opts = tb.get(T_MPLS_OPTS)
        if not first and opts is None:
            return
        if not need_met(key, mask, 'MPLS'):
            self.warn(NEED_MSG['MPLS'])
            return
        fields = {n: tb[t][0] for n, t in zip(MPLS_FIELDS, T_MPLS)
                  if t in tb}
        if opts is None:
            if first:
                set_lse(fields, 1, key, mask)
                self.applied.update('KEY_MPLS_' + n for n in fields)
            return
        if first:
            raise Err(errno.EBADMSG, 'MPLS label, Traffic Class, Bottom Of '
                                     'Stack and Time To Live must be '
                                     'encapsulated in the MPLS options '
                                     'attribute')
        items, rem = walk_attrs(opts[0])
        for t, payload in items:
            if t & TYPE_MASK != MPLS_LSE:
                raise Err(errno.EINVAL, 'Only LSE options are allowed in '
                                        'MPLS options')
            set_mpls_opt(payload, key, mask)
        if rem or not mask['mpls'][MPLS_USED]:
            raise Err(errno.EINVAL, 'Malformed or empty MPLS options')

    @staticmethod
    def set_enc_control(tb, key, mask):
        """fl_set_key_enc_control(): the tunnel's family (from the address
        keys, not their masks; both families: IPv6, whose rows then ignore
        the IPv4 ones), or just "came with tunnel metadata"."""
        v4 = any(t in tb for t in ENC_V4)
        v6 = any(t in tb for t in ENC_V6)
        if v4 or v6:
            key['enc_addr_type'][:] = struct.pack(
                '<H', ENC_ADDR_V6 if v6 else ENC_ADDR_V4)
            mask['enc_addr_type'][:] = b'\xff\xff'
        elif any(t in tb for t in ENC_ANY):
            key['enc_addr_type'][:] = struct.pack('<H', FL_TUNNEL_ANY)
            mask['enc_addr_type'][:] = struct.pack('<H', FL_TUNNEL_ANY)

    def set_addr_type(self, tb, key, mask):
        """fl_set_key_addr_type() (before the rows): the address family,
        IPv4 when the filter has IPv4 address keys (its IPv6 ones are
        then ignored), else IPv6; a family unlike an exact ethertype is
        kept, with a warning."""
        if any(A['KEY_IPV4_' + d] in tb for d in ('SRC', 'DST')):
            fam, et = 2, ETH_P['ip']
        elif any(A['KEY_IPV6_' + d] in tb for d in ('SRC', 'DST')):
            fam, et = 3, ETH_P['ipv6']
        else:
            return
        key['addr_type'][:] = struct.pack('<H', fam)
        mask['addr_type'][:] = b'\xff\xff'
        if any(mask['n_proto']) and not proto_is(key, mask, et):
            self.warn(WARNINGS['addr_family'])

    def set_enc_opts(self, tb, key, mask):
        """fl_set_key_enc_opts(): the list's first option (when the list
        has one) says its kind: vxlan, erspan or gtp (set_tun_opt()), else
        Geneve options and their mask, which must have the options'
        lengths (the mask's length bits are then all ones: lengths count
        exactly)."""
        val, msk = tb.get(T_ENC_OPTS), tb.get(T_ENC_OPTS_MASK)
        if val is None:
            if msk is not None:
                self.warn(WARNINGS['mask_without_key'])
            return
        items, _rem = walk_attrs(val[0])
        if items and items[0][0] & TYPE_MASK in TUN_OPT_KINDS:
            self.set_tun_opt(TUN_OPT_KINDS[items[0][0] & TYPE_MASK], items,
                              msk, key, mask)
            return
        kopts, n, left = geneve_opts(val[0])
        if left:
            self.leftover()
        if msk is not None:
            mopts, mn, left = geneve_opts(msk[0])
            if left:
                self.leftover()
        else:
            # No mask: "every bit counts", as the all-ones mask tc sends
            # (ffff:ff:ff..).  NB the kernel at 1046a8a refuses this unless
            # every option has 124 data bytes: it fills the mask's length
            # bits with ones before comparing them with the key's.
            mopts, mn = bytearray(ENC_OPTS_MAX), n
            for off, dl in geneve_offsets(kopts, n):
                mopts[off:off + 3] = b'\xff\xff\xff'
                mopts[off + 3] = dl // 4
                mopts[off + 4:off + 4 + dl] = b'\xff' * dl
        if mn != n or any(
                kopts[off + 3] & 0x1F != mopts[off + 3] & 0x1F
                for off, _dl in geneve_offsets(kopts, n)):
            raise Err(errno.EINVAL, "Tunnel options mask does not have the "
                                    "options' lengths")
        for off, _dl in geneve_offsets(kopts, n):
            mopts[off + 3] |= 0x1F
        key['enc_opts'][:] = bytes(kopts) + bytes([n]) + TUNNEL_GENEVE_OPT
        mask['enc_opts'][:] = bytes(mopts) + b'\xff' + TUNNEL_OPTIONS_PRESENT

    @staticmethod
    def set_tun_opt(kind, items, msk, key, mask):
        """fl_set_key_tun_opt(): the key's option (items: the list's
        attributes, as nla_for_each walks them), which must be the list's
        only one (bytes after it that do not form an attribute are not
        looked at); the mask's first option, of the same kind, or none:
        every field whole (further options in the mask are not looked
        at)."""
        kmd = tun_opt(kind, items[0][1], False)
        if len(items) > 1:
            raise enc_opts_mixed(items[1][0])
        mpayload = None
        if msk is not None:
            mitems, _rem = walk_attrs(msk[0])
            if not mitems:
                raise Err(errno.EINVAL, 'Invalid nested attribute for masks')
            if mitems[0][0] & TYPE_MASK != kind.attr:
                raise Err(errno.EINVAL, kind.mask_msg)
            mpayload = mitems[0][1]
        mmd = tun_opt(kind, mpayload, True)
        pad = bytes(ENC_OPTS_MAX - kind.size)
        key['enc_opts'][:] = kmd + pad + bytes([kind.size]) + kind.flag
        mask['enc_opts'][:] = mmd + pad + bytes([kind.size]) + kind.flag
    # -- what fl_dump() puts for a filter --------------------------------
    def dump_opts(self, f):
        """[(type, bytes)] of TCA_OPTIONS without TCA_FLOWER_ACT, in the
        order fl_dump() puts them."""
        key, mask = f.key, f.mask
        out = []
        if f.classid:
            out.append((T_CLASSID, struct.pack('<I', f.classid)))
        if any(mask['indev']):
            ifi = struct.unpack('<i', bytes(key['indev']))[0]
            if ifi in self.names:
                out.append((T_INDEV, self.names[ifi].encode() + b'\0'))
        out += eth_type_dump(key, mask)
        out += ip_flags_dump(key, mask)
        out += mpls_dump(key, mask)
        kind = TUN_OPT_BY_FLAG.get(bytes(key['enc_opts'][ENC_OPTS_MAX + 1:]))
        if mask['enc_opts'][ENC_OPTS_MAX] and kind:
            # fl_dump_tun_opt(): the key's option, then the mask's
            out.append((T_ENC_OPTS, tun_opt_dump(kind, key['enc_opts'])))
            out.append((T_ENC_OPTS_MASK, tun_opt_dump(kind,
                                                      mask['enc_opts'])))
        elif mask['enc_opts'][ENC_OPTS_MAX]:    # Geneve: mask len 0xff
            kopts = key['enc_opts'][:ENC_OPTS_MAX]
            n = key['enc_opts'][ENC_OPTS_MAX]
            out.append((T_ENC_OPTS, geneve_dump(kopts, kopts, n)))
            out.append((T_ENC_OPTS_MASK, geneve_dump(
                mask['enc_opts'][:ENC_OPTS_MAX], kopts, n)))
        for v, m, member, off, ln, need in KEYS:
            ms = bytes(mask[member][off:off + ln])
            if not any(ms) or not row_dumped(key, mask, v, need):
                continue
            out.append((A['KEY_' + v], bytes(key[member][off:off + ln])))
            if m:
                out.append((A['KEY_' + m], ms))
        out += zero_addrs_dump(key, mask)
        # fl_dump_flags(): not in hardware, in no device
        out.append((T_FLAGS, struct.pack('<I', f.flags | NOT_IN_HW)))
        out.append((T_IN_HW_COUNT, struct.pack('<I', 0)))
        return out