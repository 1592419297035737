# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.recipes - message generation: requests (Op), filter
recipes, and the recipes of each kind of filter.
"""

import struct

from flower import uapi
from flower.nl import (NLM_F_ACK, NLM_F_REQUEST, RTM_DELTFILTER,
                       RTM_GETTFILTER, RTM_NEWTFILTER, TC_H_INGRESS, nla,
                       tfilter)

from stress.flowerfuzz.attrs import (CT_EST, CT_FLAGS, CT_INV, CT_NEW, CT_REL,
                                     CT_RPL, CT_TRK, ENC_OPTS_MAX, ETH_P,
                                     ETH_P_ALL, IPPROTO_L2TP, KEY_BY_VAL,
                                     LSE_ATTR, LSE_FIELD, MPLS_FIELDS,
                                     MPLS_LSE, MPLS_LSES, NLA_F_NESTED,
                                     PPP_CARRIED, SHARED_ACT, TUN_OPT_KINDS,
                                     TYPE_MASK, T_ACT, T_FLAGS, VLAN_TPIDS,
                                     acts_payload, enc, geneve_opt, typed,
                                     u32le)
from flower.model_keys import ct_state_error


class Op:
    def __init__(self, what, **kw):
        self.what = what            # 'new', 'del' or 'get'
        self.flags = 0
        self.ifindex = 0
        self.parent = TC_H_INGRESS
        self.prio = 0
        self.proto = 0
        self.handle = 0
        self.chain = None
        self.kind = 'flower'
        self.attrs = None           # [(type, bytes, meta)] or None
        self.tail = b''
        self.tail_bad = False
        self.recipe = None
        self.label = what
        self.__dict__.update(kw)

    def sanitize(self):
        """Keep the request deterministic: an action created by a filter
        inherits the filter's skip_hw, and a later filter without skip_hw
        may not bind to it ("Mismatch between action and filter offload
        flags") -- until the action is freed, an RCU grace period after
        its last filter went.  A shared action a skip_sw filter binds
        inherits skip_sw for good (the filter is refused, the flag stays).
        So a filter with skip_hw or skip_sw binds no shared (explicit
        index) action."""
        if not self.attrs:
            return
        flags = [d for t, d, _m in self.attrs
                 if t & TYPE_MASK == T_FLAGS and d is not None and
                 len(d) == 4]
        if not flags or not u32le(flags[-1]) & 3:
            return
        for i, (t, d, meta) in enumerate(self.attrs):
            if t == T_ACT and d is None and isinstance(meta, list):
                self.attrs[i] = (t, d, [(v, 0) if idx in SHARED_ACT else
                                        (v, idx) for v, idx in meta])

    def encode(self):
        msg_type = {'new': RTM_NEWTFILTER, 'del': RTM_DELTFILTER,
                    'get': RTM_GETTFILTER}[self.what]
        options = None
        if self.attrs is not None:
            options = [nla(t, acts_payload(meta))
                       if t == T_ACT and isinstance(meta, list) and
                       data is None else nla(t, data)
                       for t, data, meta in self.attrs]
        return tfilter(msg_type, self.flags | NLM_F_REQUEST | NLM_F_ACK,
                       self.ifindex, self.handle, self.parent, self.prio,
                       self.proto, kind=self.kind, chain=self.chain,
                       options=options,
                       tail=self.tail if options is not None else b'')

    def describe(self):
        attrs = 'none' if self.attrs is None else ' '.join(
            '%s%s=%s' % (uapi.BY_NUMBER[t & TYPE_MASK].name
                         if (t & TYPE_MASK) in uapi.BY_NUMBER else
                         'T%d' % (t & TYPE_MASK),
                '|%#x' % (t & ~TYPE_MASK) if t & ~TYPE_MASK else '',
                ('acts%s' % (meta,) if data is None else data.hex()))
            for t, data, meta in self.attrs)
        return ('%s[%s] flags=%#x ifindex=%d parent=%#x prio=%d proto=%#x '
                'handle=%#x chain=%s kind=%r tail=%s options: %s'
                % (self.what, self.label, self.flags, self.ifindex,
                   self.parent, self.prio, self.proto, self.handle,
                   self.chain, self.kind, self.tail.hex() or '-', attrs))


class Recipe:
    """How the filters of one prio are built: the fixed part (protocol
    attributes) and the masked fields whose values vary."""

    def __init__(self, proto, fixed, fields, fam=None):
        self.proto = proto      # tcm_info protocol for a new prio
        self.fixed = fixed      # [(attr name, bytes)]
        self.fields = fields    # [(value attr, mask attr|None, mask|None)]
        self.fam = fam          # what random_recipe() was asked for


class RecipeGen:
    """Gen's recipes (a part of class Gen)."""

    # -- values ----------------------------------------------------------
    def value(self, vname, ln):
        r = self.rng
        if vname in ('TCP_SRC', 'TCP_DST', 'UDP_SRC', 'UDP_DST',
                     'SCTP_SRC', 'SCTP_DST', 'ENC_UDP_SRC_PORT',
                     'ENC_UDP_DST_PORT'):
            p = r.choice(self.port_pool) if r.random() < 0.5 else \
                r.randrange(65536)
            return enc(vname, p)
        if ln >= 4 and r.random() < 0.3:
            return r.choice(self.addr_pool)[:ln]
        if ln == 1 and r.random() < 0.5:
            return bytes([r.randrange(4)])
        return bytes(r.randrange(256) for _ in range(ln))
    def prefix_mask(self, ln):
        bits = self.rng.randrange(1, ln * 8 + 1)
        v = ((1 << bits) - 1) << (ln * 8 - bits)
        return v.to_bytes(ln, 'big')
    def maybe_mask(self, vname):
        """None: no mask attribute (exact); else explicit mask bytes."""
        k = KEY_BY_VAL[vname]
        if not k[1]:
            return None
        r = self.rng.random()
        if r < 0.4:
            return None
        if r < 0.55:
            return b'\xff' * k[4]
        if r < 0.9:
            return self.prefix_mask(k[4])
        return bytes(self.rng.randrange(256) for _ in range(k[4]))
    def field(self, vname):
        return (vname, KEY_BY_VAL[vname][1], self.maybe_mask(vname))
    def random_recipe(self, fam=None):
        r = self.rng
        fam = fam or r.choice(('ipv4', 'ipv4', 'ipv6', 'ipv6', 'arp', 'vlan',
                               'eth', 'none', 'qinq', 'mpls', 'pppoe',
                               'l2tp', 'nvlans'))
        if fam in ('qinq', 'mpls', 'pppoe', 'l2tp', 'nvlans'):
            recipe = getattr(self, 'recipe_' + fam)()
            recipe.fam = fam
            return recipe
        recipe = self.plain_recipe(fam)
        recipe.fam = fam
        return recipe
    def plain_recipe(self, fam):
        r = self.rng
        fixed, fields = [], []
        proto = ETH_P['all']
        if fam in ('ipv4', 'ipv6', 'vlan'):
            v6 = fam == 'ipv6'
            et = ETH_P['ipv6' if v6 else 'ip']
            if fam == 'vlan':
                tpid = r.choice(VLAN_TPIDS)
                if r.random() < 0.2:
                    # one tag of any TPID ("protocol ip num_of_vlans 1
                    # vlan_id 5": fl_is_tag())
                    fixed.append(('NUM_OF_VLANS', b'\1'))
                    if r.random() < 0.5:
                        tpid = r.choice((ETH_P['ip'], ETH_P['ipv6']))
                fixed.append(typed('ETH_TYPE', tpid))
                if r.random() < 0.7:
                    fixed.append(typed(
                        'VLAN_ID', r.randrange(4096)))
                if r.random() < 0.4:
                    fixed.append(typed('VLAN_PRIO', r.randrange(8)))
                proto = tpid
                if r.random() < 0.4:
                    fields.append(('VLAN_ID', None, None))
                if r.random() < 0.5:
                    self.meta_fields(fields)
                    if not fields:
                        fields.append(self.field('ETH_DST'))
                    return Recipe(proto, fixed, fields)
                fixed.append(typed('VLAN_ETH_TYPE', et))
            else:
                fixed.append(typed('ETH_TYPE', et))
                proto = et
            l4 = r.choice((None, 6, 17, 132, 58 if v6 else 1))
            if l4 is not None:
                fixed.append(typed('IP_PROTO', l4))
            a = 'IPV6' if v6 else 'IPV4'
            for d in ('SRC', 'DST'):
                if r.random() < 0.5:
                    fields.append(self.field('%s_%s' % (a, d)))
            for k in ('IP_TOS', 'IP_TTL'):
                if r.random() < 0.15:
                    fields.append(self.field(k))
            if r.random() < 0.15:
                fields.append(self.ip_flags_field())
            if l4 in (6, 17, 132):
                pre = {6: 'TCP', 17: 'UDP', 132: 'SCTP'}[l4]
                for d in ('SRC', 'DST'):
                    if r.random() < 0.5:
                        fields.append(self.field('%s_%s' % (pre, d)))
                    if r.random() < 0.25:
                        # a port range (min and max, exact), beside the
                        # exact port or not
                        fields.append(('PORT_RANGE', None, d))
                if l4 == 6 and r.random() < 0.3:
                    fields.append(self.field('TCP_FLAGS'))
            elif l4 in (1, 58):
                pre = 'ICMPV6' if v6 else 'ICMPV4'
                for d in ('TYPE', 'CODE'):
                    if r.random() < 0.6:
                        fields.append(self.field('%s_%s' % (pre, d)))
        elif fam == 'arp':
            et = r.choice((ETH_P['arp'], ETH_P['arp'], ETH_P['rarp']))
            fixed.append(typed('ETH_TYPE', et))
            proto = et
            for k in ('ARP_OP', 'ARP_SIP', 'ARP_TIP', 'ARP_SHA', 'ARP_THA'):
                if r.random() < 0.4:
                    fields.append(self.field(k))
        elif fam == 'eth':
            if r.random() < 0.5:
                et = r.choice((ETH_P['lldp'], ETH_P['mpls_uc'], 0x9000))
                fixed.append(typed('ETH_TYPE', et))
                proto = et
            for k in ('ETH_DST', 'ETH_SRC'):
                if r.random() < 0.7:
                    fields.append(self.field(k))
            if r.random() < 0.1:
                fields.append(self.ip_flags_field())
            if r.random() < 0.1:
                fixed.append(typed('NUM_OF_VLANS', r.choice((0, 0, 3))))
        self.meta_fields(fields)
        if not fields and r.random() < 0.9:
            # something that varies, or every filter has the same key
            fields.append(self.field(r.choice(('ETH_DST', 'ETH_SRC'))))
        if r.random() < 0.1:
            fixed.append(('INDEV', r.choice((b'fz1\0', b'fz0\0', b'lo\0'))))
        return Recipe(proto, fixed, fields)
    def mask_variant(self, recipe):
        """A recipe for the same prio with other masks: some fields' masks
        drawn again, a field dropped or added, a tag's id or priority
        dropped.  Its filters go into the prio as a second (third, ...)
        mask."""
        r = self.rng
        fields = []
        for fld in recipe.fields:
            vname = fld[0]
            if r.random() < 0.5:
                if vname == 'CT_STATE':
                    fld = (vname, fld[1], r.choice((
                        None, CT_TRK, CT_TRK | CT_EST, CT_FLAGS)))
                elif vname == 'CT_LABELS':
                    fld = (vname, fld[1], (fld[2][0], self.prefix_mask(16)))
                elif vname == 'IP_FLAGS':
                    fld = self.ip_flags_field()
                elif vname in KEY_BY_VAL and KEY_BY_VAL[vname][1]:
                    fld = self.field(vname)
            fields.append(fld)
        if len(fields) > 1 and r.random() < 0.3:
            del fields[r.randrange(len(fields))]
        names = {f[0] for f in fields}
        if r.random() < 0.4:
            extra = r.choice(('ETH_DST', 'ETH_SRC', 'CT_ZONE', 'CT_MARK',
                              'ENC_UDP_DST_PORT'))
            if extra not in names:
                fields.append(self.field(extra))
        fixed = list(recipe.fixed)
        drop = [i for i, (n, _d) in enumerate(fixed)
                if n in ('VLAN_ID', 'VLAN_PRIO', 'CVLAN_ID', 'CVLAN_PRIO',
                         'INDEV')]
        if drop and r.random() < 0.2:
            del fixed[r.choice(drop)]
        return Recipe(recipe.proto, fixed, fields or [self.field('ETH_DST')],
                      recipe.fam)
    # -- tags, PPPoE, MPLS, L2TPv3, ip_flags ------------------------------
    def recipe_nvlans(self):
        """num_of_vlans on its own, as stock takes it: protocol all and no
        ETH_TYPE, so the tags have no TPID to match ("num_of_vlans 1
        vlan_prio 5", "num_of_vlans 1 vlan_ethtype ip src_ip ..."); with
        num_of_vlans > 1 the inner tag's keys (vlan_ethtype its TPID, any
        ethertype, or none at all) and cvlan_ethtype with its keys."""
        r = self.rng
        n = r.choice((1, 1, 1, 2, 2, 3))
        fixed, fields = [typed('NUM_OF_VLANS', n)], []
        if r.random() < 0.5:
            fixed.append(typed('VLAN_PRIO', r.randrange(8)))
        if r.random() < 0.4:
            fields.append(('VLAN_ID', None, None))
        elif r.random() < 0.3:
            fixed.append(typed('VLAN_ID', r.randrange(4096)))
        inner = r.choice((None, ETH_P['ip'], ETH_P['ip'], ETH_P['ipv6'],
                          ETH_P['mpls_uc'], ETH_P['ppp_ses']))
        if n == 1:
            if inner is not None:
                fixed.append(typed('VLAN_ETH_TYPE', inner))
        else:
            if r.random() < 0.6:
                fixed.append(typed('VLAN_ETH_TYPE', r.choice(
                    VLAN_TPIDS + (ETH_P['ip'], 0x9100))))
            if r.random() < 0.5:
                fixed.append(typed('CVLAN_PRIO', r.randrange(8)))
            if r.random() < 0.5:
                fields.append(('CVLAN_ID', None, None))
            if inner is not None:
                fixed.append(typed('CVLAN_ETH_TYPE', inner))
        if inner == ETH_P['ppp_ses']:
            self.ppp_part(fixed, fields)
        elif inner is not None:
            if inner == ETH_P['ip'] and r.random() < 0.3:
                fixed.append(typed('IP_PROTO', 17))
                fields.append(self.field('UDP_DST'))
            self.inner_fields(fixed, fields, inner)
        if not fields:
            fields.append(self.field(r.choice(('ETH_DST', 'ETH_SRC'))))
        return Recipe(ETH_P_ALL, fixed, fields)
    def ip_flags_field(self):
        """ip_flags under a mask of known bits (0 now and then: no dump)."""
        return ('IP_FLAGS', 'KEY_FLAGS_MASK', self.rng.choice((1, 2, 3, 3,
                                                               0)))
    def addr_fields(self, fields, v6):
        a = 'IPV6' if v6 else 'IPV4'
        for d in ('SRC', 'DST'):
            if self.rng.random() < 0.5:
                fields.append(self.field('%s_%s' % (a, d)))
    def inner_fields(self, fixed, fields, et):
        """The keys of the innermost protocol et (after tags or PPP)."""
        if et in (ETH_P['ip'], ETH_P['ipv6']):
            self.addr_fields(fields, et == ETH_P['ipv6'])
            if self.rng.random() < 0.2:
                fields.append(self.ip_flags_field())
        elif et in (ETH_P['mpls_uc'], ETH_P['mpls_mc']):
            fields.extend(self.mpls_fields())
    def recipe_qinq(self):
        """Two tags: vlan_ethtype a TPID (or anything, with num_of_vlans
        2), the inner tag's id/prio, its ethertype (ip, ipv6, PPPoE,
        MPLS) and that protocol's keys."""
        r = self.rng
        tpid = r.choice(VLAN_TPIDS)
        fixed, fields = [typed('ETH_TYPE', tpid)], []
        if r.random() < 0.7:
            fixed.append(typed('VLAN_ID', r.randrange(4096)))
        if r.random() < 0.3:
            fixed.append(typed('VLAN_PRIO', r.randrange(8)))
        if r.random() < 0.25:
            fixed.append(('NUM_OF_VLANS', b'\2'))
            inner_tpid = r.choice((ETH_P['ip'], ETH_P['ipv6'], 0x9100,
                                   0x8100))
        else:
            inner_tpid = r.choice(VLAN_TPIDS)
            if r.random() < 0.2:
                fixed.append(typed('NUM_OF_VLANS', r.choice((0, 1, 3))))
        fixed.append(typed('VLAN_ETH_TYPE', inner_tpid))
        if r.random() < 0.6:
            fixed.append(typed('CVLAN_ID', r.randrange(4096)))
        if r.random() < 0.3:
            fixed.append(typed('CVLAN_PRIO', r.randrange(8)))
        if r.random() < 0.4:
            fields.append(('CVLAN_ID', None, None))
        x = r.random()
        if x < 0.75:
            et = r.choice((ETH_P['ip'], ETH_P['ip'], ETH_P['ipv6'],
                           ETH_P['mpls_uc'], ETH_P['ppp_ses']))
            fixed.append(typed('CVLAN_ETH_TYPE', et))
            if et == ETH_P['ppp_ses']:
                self.ppp_part(fixed, fields)
            else:
                self.inner_fields(fixed, fields, et)
        if not fields:
            fields.append(('CVLAN_ID', None, None))
        return Recipe(tpid, fixed, fields)
    def ppp_part(self, fixed, fields):
        """PPPoE: the session id varies; a PPP protocol (ip, ipv6, MPLS,
        or any other value) with its keys."""
        r = self.rng
        pp = r.choice((None, 0x21, 0x21, 0x57, 0x281, 0x283,
                       r.randrange(65536)))
        if pp is not None:
            fixed.append(typed('PPP_PROTO', pp))
        if r.random() < 0.8:
            fields.append(('PPPOE_SID', None, None))
        if pp in PPP_CARRIED:
            self.inner_fields(fixed, fields, PPP_CARRIED[pp])
        if not fields:
            fields.append(('PPPOE_SID', None, None))
    def recipe_pppoe(self):
        r = self.rng
        fixed, fields = [], []
        if r.random() < 0.3:            # behind a tag
            proto = r.choice(VLAN_TPIDS)
            fixed.append(typed('ETH_TYPE', proto))
            if r.random() < 0.7:
                fixed.append(typed('VLAN_ID', r.randrange(4096)))
            fixed.append(typed('VLAN_ETH_TYPE', ETH_P['ppp_ses']))
        else:
            proto = ETH_P['ppp_ses']
            fixed.append(typed('ETH_TYPE', proto))
        self.ppp_part(fixed, fields)
        return Recipe(proto, fixed, fields)
    def recipe_mpls(self):
        r = self.rng
        et = r.choice((ETH_P['mpls_uc'], ETH_P['mpls_uc'], ETH_P['mpls_mc']))
        fixed = []
        if r.random() < 0.2:            # behind a tag
            proto = r.choice(VLAN_TPIDS)
            fixed += [typed('ETH_TYPE', proto),
                      typed('VLAN_ETH_TYPE', et)]
        else:
            proto = et
            fixed.append(typed('ETH_TYPE', et))
        fields = self.mpls_fields()
        if r.random() < 0.3:
            fields.append(self.field(r.choice(('ETH_DST', 'ETH_SRC'))))
        return Recipe(proto, fixed, fields)
    def mpls_fields(self):
        """The first entry's own attributes, or 1-3 entries of the nested
        options at random depths; each with a random set of fields."""
        r = self.rng
        if r.random() < 0.5:
            names = [n for n in MPLS_FIELDS if r.random() < 0.5]
            return [('MPLS', None, names or ['LABEL'])]
        depths = sorted(r.sample(range(1, MPLS_LSES + 1),
                                 r.choice((1, 1, 2, 3))))
        spec = [(d, [n for n in MPLS_FIELDS if r.random() < 0.5])
                for d in depths]
        if not any(names for _d, names in spec) and r.random() < 0.8:
            spec[0] = (spec[0][0], ['LABEL'])
        return [('MPLS_OPTS', None, spec)]
    def mpls_value(self, name):
        """A value of an entry's field, in range (bytes as sent)."""
        r = self.rng
        if name == 'LABEL':
            return enc('MPLS_LABEL', r.choice((0, 3, 16, 0xFFFFF,
                                               r.randrange(1 << 20))))
        return bytes([r.randrange(LSE_FIELD[name][2] + 1)])
    def mpls_lse(self, depth, names, nested=True):
        """One TCA_FLOWER_KEY_MPLS_OPTS_LSE (tc sets NLA_F_NESTED; the
        kernel does not ask for it), its attributes in random order."""
        parts = [nla(LSE_ATTR['DEPTH'], bytes([depth]))] + [
            nla(LSE_ATTR[n], self.mpls_value(n)) for n in names]
        self.rng.shuffle(parts)
        return nla(MPLS_LSE | (NLA_F_NESTED if nested else 0),
                   b''.join(parts))
    def recipe_l2tp(self):
        r = self.rng
        v6 = r.random() < 0.4
        et = ETH_P['ipv6' if v6 else 'ip']
        fixed = [typed('ETH_TYPE', et),
                 typed('IP_PROTO', IPPROTO_L2TP)]
        fields = [('L2TPV3_SID', None, None)]
        self.addr_fields(fields, v6)
        return Recipe(et, fixed, fields)
    # -- tunnel and conntrack keys (any protocol: metadata) ---------------
    def meta_fields(self, fields):
        r = self.rng
        if r.random() < 0.2:
            fields.extend(self.tunnel_fields())
        if r.random() < 0.15:
            fields.extend(self.ct_fields())
        if r.random() < 0.08:
            fields.append(self.field('HASH'))
    def tunnel_fields(self):
        r = self.rng
        out = []
        if r.random() < 0.5:
            out.append(('ENC_KEY_ID', None, None))
        fam = r.choice((None, None, 'IPV4', 'IPV4', 'IPV6'))
        if fam:
            for d in ('SRC', 'DST'):
                if r.random() < 0.6:
                    out.append(self.field('ENC_%s_%s' % (fam, d)))
        for k in ('ENC_UDP_SRC_PORT', 'ENC_UDP_DST_PORT', 'ENC_IP_TOS',
                  'ENC_IP_TTL'):
            if r.random() < 0.2:
                out.append(self.field(k))
        x = r.random()
        if x < 0.25:
            out.append(('ENC_OPTS', 'ENC_OPTS_MASK', self.geneve_spec()))
        elif x < 0.55:
            out.append(('TUN_OPT', 'ENC_OPTS_MASK', self.tun_opt_spec()))
        return out or [('ENC_KEY_ID', None, None)]
    def tun_opt_spec(self, kind=None):
        """A vxlan, erspan or gtp option: (kind, the fields' fixed values
        {name: bytes or None: varies}, the mask: None (no ENC_OPTS_MASK)
        or {name: bytes} of the mask option's fields, absent ones whole).
        An erspan option is of version 1 (index) or 2 (dir and hwid); its
        mask's version (none: 1) may be the other."""
        r = self.rng
        kind = kind or TUN_OPT_KINDS[r.choice(sorted(TUN_OPT_KINDS))]
        if kind.name == 'vxlan':
            fixed = {'GBP': r.choice((None, None, struct.pack(
                '<I', r.choice((0, 0x10, 0x400000 | 0x80000 | 7)))))}
        elif kind.name == 'gtp':
            fixed = {'PDU_TYPE': bytes([r.choice((0, 1, r.randrange(256)))]),
                     'QFI': None}
            if r.random() < 0.3:
                fixed = {'PDU_TYPE': None, 'QFI': bytes([r.randrange(64)])}
        elif r.random() < 0.5:
            fixed = {'VER': b'\1', 'INDEX': None}
        else:
            fixed = {'VER': b'\2', 'DIR': bytes([r.randrange(2)]),
                     'HWID': None}
            if r.random() < 0.3:
                fixed = {'VER': b'\2', 'DIR': None,
                         'HWID': bytes([r.randrange(64)])}
        if r.random() < 0.25:
            return kind, fixed, None
        mask = {}
        for name, (_t, ln) in kind.fields.items():
            if name == 'VER':
                x = r.random()
                if x < 0.7:
                    mask['VER'] = fixed['VER']
                elif x < 0.85:
                    mask['VER'] = r.choice((b'\1', b'\2'))
                continue            # else none: version 1
            if r.random() < 0.3:
                continue            # absent: the field whole
            mask[name] = r.choice((b'\xff' * ln, self.prefix_mask(ln),
                                   bytes(r.randrange(256)
                                         for _ in range(ln))))
        return kind, fixed, mask
    def tun_opt_value(self, kind, fields):
        """One option of kind with the fields {name: bytes or None:
        random}, its attributes in random order (tc sets NLA_F_NESTED;
        the kernel does not ask for it)."""
        r = self.rng
        parts = []
        for name, v in fields.items():
            t, ln = kind.fields[name]
            if v is None:
                v = bytes(r.randrange(256) for _ in range(ln))
                if name == 'HWID' and r.random() < 0.8:
                    v = bytes([v[0] & 0x3F])
                elif name == 'GBP' and r.random() < 0.8:
                    v = struct.pack('<I', r.randrange(1 << 16))
            parts.append(nla(t, v))
        r.shuffle(parts)
        return nla(kind.attr | (NLA_F_NESTED if r.random() < 0.7 else 0),
                   b''.join(parts))
    def geneve_spec(self):
        """The fixed part of a recipe's Geneve options: per option (class
        or None: varies, type or None, data length), and the mask (None:
        no ENC_OPTS_MASK; else per option (class, type, data) mask bytes)."""
        r = self.rng
        layout, total = [], 0
        for _ in range(r.choice((1, 1, 1, 2, 3))):
            dl = r.choice((4, 4, 8, 12, 16, 124)) if r.random() < 0.9 else \
                4 * r.randrange(1, 32)
            if total + 4 + dl > ENC_OPTS_MAX:
                break
            total += 4 + dl
            layout.append((r.choice((0x0102, 0xFFFF, None,
                                     r.randrange(65536))),
                           r.choice((0x80, None, r.randrange(256))), dl))
        if not layout:
            layout.append((0x0102, 0x80, 4))
        if r.random() < 0.1:              # ENC_OPTS without a mask
            return layout, None
        mask = []
        for _c, _t, dl in layout:
            x = r.random()
            if x < 0.4:
                mask.append((b'\xff\xff', b'\xff', b'\xff' * dl))
            elif x < 0.8:
                mask.append((r.choice((b'\xff\xff', b'\0\0')),
                             r.choice((b'\xff', b'\0')),
                             self.prefix_mask(dl)))
            else:
                mask.append((self.garbage(2), self.garbage(1),
                             self.garbage(dl)))
        return layout, mask
    def geneve_value(self, layout):
        r = self.rng
        return b''.join(geneve_opt(
            struct.pack('>H', c if c is not None else r.randrange(65536)),
            bytes([t if t is not None else r.randrange(256)]),
            self.garbage(dl), nested=r.random() < 0.7)
            for c, t, dl in layout)
    def ct_fields(self):
        r = self.rng
        out = []
        if r.random() < 0.6:
            m = r.choice((None, CT_TRK, CT_TRK | CT_NEW,
                          CT_TRK | CT_NEW | CT_EST, CT_TRK | CT_EST | CT_RPL,
                          CT_TRK | CT_INV, CT_FLAGS, 0xFFFF))
            out.append(('CT_STATE', 'CT_STATE_MASK', m))
        for k in ('CT_ZONE', 'CT_MARK'):
            if r.random() < 0.4:
                out.append(self.field(k))
        if r.random() < 0.3:
            vlen = r.choice((16, 16, 16, 1, 4, 8, 15))
            x = r.random()
            mask = None if x < 0.4 else b'\xff' * 16 if x < 0.6 else \
                self.prefix_mask(16)[:r.choice((16, 16, 8, 2))]
            out.append(('CT_LABELS', 'CT_LABELS_MASK', (vlen, mask)))
        return out or [self.field('CT_ZONE')]
    def ct_state_value(self, m):
        """A ct_state that is possible under mask m (None: exact), now
        and then with bits outside the mask (kept, and dumped, as given)."""
        r = self.rng
        m = 0xFFFF if m is None else m
        for _ in range(50):
            v = r.choice((0, CT_TRK, CT_TRK | CT_NEW, CT_TRK | CT_EST,
                          CT_TRK | CT_REL, CT_TRK | CT_EST | CT_RPL,
                          CT_TRK | CT_REL | CT_RPL, CT_TRK | CT_INV,
                          r.randrange(64)))
            if r.random() < 0.2:
                v |= r.randrange(64) & ~m     # defined flags the mask clears
            if ct_state_error(v & m) is None:
                return v
        return 0
