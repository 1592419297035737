# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.mutate - broken requests: masks without keys, wrong
lengths, bad tunnel, MPLS and action attributes, garbage.  Many are what
stock accepts and ours too, since series step 22, with a warning (keys
without their protocol, lone masks, unknown types, long attributes, VLAN
ranges, unknown ip_flags bits, both tunnel families...): the model says
which.
"""

import errno
import struct

from flower.nl import (NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE, gact,
                       walk_attrs)

from stress.flowerfuzz.attrs import (A, ANY, ATTR_LEN, CT_EST, CT_FLAGS,
                                     CT_INV, CT_NEW, CT_RPL, CT_TRK,
                                     CVLAN_ATTRS, ENC_V4, ENC_V6, ETH_P, Err,
                                     FLOWER_MAX, GENEVE, G_CLASS, G_DATA,
                                     G_TYPE, INT_MAX, KEYS, LSE_ATTR,
                                     LSE_FIELD, LSE_MAX, MAX_LEN, MPLS_FIELDS,
                                     MPLS_LSE, NESTED, NLA_F_NESTED,
                                     TC_ACT_EXT_VAL_MASK, TYPE_MASK, T_ACT,
                                     T_CLASSID, T_CT_STATE, T_CVLAN_ID,
                                     T_CVLAN_PRIO, T_ENC_OPTS, T_ENC_OPTS_MASK,
                                     T_ETH_TYPE, T_FLAGS, T_INDEV,
                                     T_IN_HW_COUNT, T_IP_FLAGS,
                                     T_IP_FLAGS_MASK, T_MPLS, T_MPLS_OPTS,
                                     T_NUM_OF_VLANS, T_PPPOE_SID, T_PPP_PROTO,
                                     T_VLAN_ETH_TYPE, T_VLAN_ID, T_VLAN_PRIO,
                                     TUN_OPT_KINDS, VLAN_TPIDS, enc,
                                     geneve_opt, nla)


# what a mutate_KIND() returns when it took the request's options away:
# mutate() leaves them so
NO_OPTIONS = 'no options'


class MutateGen:
    """Gen's mutate (a part of class Gen)."""

    # -- broken requests -------------------------------------------------
    def invalid(self):
        r = self.rng
        op = self.valid_add() if r.random() < 0.8 else self.replace()
        op.label = 'bad'
        op.recipe = None            # its prio (if it creates one) is odd
        for _ in range(r.choice((1, 1, 1, 2))):
            self.mutate(op)
        return op
    # the kinds of mutation, as often as they are drawn
    MUTATIONS = ('length', 'length', 'lonemask', 'unknown', 'range',
                 'act', 'act', 'act', 'need', 'need', 'flags', 'vlan',
                 'indev', 'dup', 'nlaflags', 'tail', 'noopts',
                 'top', 'top', 'prio', 'maskdiff', 'handle',
                 'tunnel', 'tunnel', 'tunnel', 'ct', 'l2', 'l2', 'l2',
                 'mpls',
                 'mpls')

    def mutate(self, op):
        """One random mutation of op (its label says which).  Each
        mutate_KIND(op, attrs) edits attrs, op's attributes (a new list
        when op has none: given to op afterwards if the mutation put
        something in it), or op itself."""
        m = self.rng.choice(self.MUTATIONS)
        op.label += '-' + m
        attrs = op.attrs if op.attrs is not None else []
        if getattr(self, 'mutate_' + m)(op, attrs) == NO_OPTIONS:
            return
        if op.attrs is None and attrs:
            op.attrs = attrs

    def mutate_length(self, op, attrs):
        """An attribute of a fixed (or maximum) length, or a nest, of
        another length; an IP_PROTO two bytes long when there is none."""
        r = self.rng
        fixed = [i for i, (t, d, _m) in enumerate(attrs)
                 if ATTR_LEN.get(t & TYPE_MASK, 0) > 0 or
                 (t & TYPE_MASK in set(MAX_LEN) | {T_ENC_OPTS, T_ENC_OPTS_MASK,
                                                   T_MPLS_OPTS}
                  and d is not None)]
        if not fixed:
            attrs.append((A['KEY_IP_PROTO'], b'\x06\x00', None))
            return
        i = r.choice(fixed)
        t, d, mt = attrs[i]
        if t & TYPE_MASK in MAX_LEN:        # ct_label: 0..16 bytes
            n = r.choice((0, 1, 15, 17, 20, 32))
        elif t & TYPE_MASK in NESTED:       # a nest: not 1..3
            n = r.choice((1, 2, 3, len(d) - 1, len(d) + 1))
        else:
            n = r.choice((0, 1, len(d) - 1, len(d) + 1, len(d) + 4,
                          64))
        n = max(0, n)
        attrs[i] = (t, (d * 70)[:n] if d else bytes(n), mt)

    def mutate_lonemask(self, op, attrs):
        """A key's mask without the key."""
        k = self.rng.choice([k for k in KEYS if k[1]])
        attrs.append((A['KEY_' + k[1]], b'\xff' * k[4], None))
        drop = A['KEY_' + k[0]]
        attrs[:] = [a for a in attrs if a[0] & TYPE_MASK != drop]

    def mutate_unknown(self, op, attrs):
        """An attribute type flower does not have, somewhere."""
        r = self.rng
        # IN_HW_COUNT is known, but only dumped: ignored in a request
        t = r.choice((0, FLOWER_MAX + 1, FLOWER_MAX + 2,
                      r.randrange(FLOWER_MAX + 1, TYPE_MASK + 1),
                      T_IN_HW_COUNT))
        attrs.insert(r.randrange(len(attrs) + 1),
                     (t, self.garbage(r.randrange(0, 24)), None))

    def mutate_act(self, op, attrs):
        """ACT replaced by garbage (its nla flags maybe set)."""
        attrs[:] = [a for a in attrs if a[0] != T_ACT]
        t = T_ACT | self.rng.choice((0, 0, 0x8000, 0x4000))
        payload, meta = self.act_garbage()
        attrs.append((t, payload, meta))

    def mutate_need(self, op, attrs):
        """A key, maybe without the protocol it needs."""
        k = self.rng.choice(KEYS[1:] + KEYS[:1])
        attrs.append((A['KEY_' + k[0]], self.value(k[0], k[4]), None))

    def mutate_flags(self, op, attrs):
        """FLAGS with bits flower does not take, or skip_hw|skip_sw."""
        r = self.rng
        v = r.choice((2, 3, 4, 8, 32, 0x80000000, r.randrange(1 << 32)))
        attrs.append((T_FLAGS, enc(T_FLAGS, v), None))

    def mutate_vlan(self, op, attrs):
        """A VLAN id or prio out of range, or a VLAN TPID where an inner
        ethertype goes."""
        r = self.rng
        c = r.random()
        if c < 0.3:
            attrs.append((T_VLAN_ID, enc(
                T_VLAN_ID, r.randrange(4096, 65536)), None))
        elif c < 0.5:
            attrs.append((T_VLAN_PRIO, bytes([r.randrange(8, 256)]), None))
        elif c < 0.7:
            attrs.append((T_VLAN_ETH_TYPE, enc(
                T_VLAN_ETH_TYPE, r.choice(VLAN_TPIDS)), None))
        else:
            attrs.append((T_ETH_TYPE, enc(
                T_ETH_TYPE, r.choice(VLAN_TPIDS)), None))
            attrs.append((T_VLAN_ID, enc(
                T_VLAN_ID, r.randrange(5000)), None))

    def mutate_indev(self, op, attrs):
        """INDEV: no such device, no NUL, too long, empty..."""
        attrs.append((T_INDEV, self.rng.choice((
            b'nosuchdev\0', b'fz1', b'fz1\0garbage', b'',
            b'x' * 15 + b'\0', b'x' * 16 + b'\0', b'lo' + b'\0' * 20,
            b'fz1\0\0')), None))

    def mutate_dup(self, op, attrs):
        """An attribute twice (the second maybe of another value)."""
        r = self.rng
        if attrs:
            t, d, mt = r.choice(attrs)
            if mt is None and d is not None and \
                    ATTR_LEN.get(t & TYPE_MASK, 0) > 0 and r.random() < .5:
                d = self.value_like(t, d)
            attrs.append((t, d, mt))

    def mutate_nlaflags(self, op, attrs):
        """NLA_F_NESTED / NLA_F_NET_BYTEORDER on an attribute."""
        r = self.rng
        if attrs:
            i = r.randrange(len(attrs))
            t, d, mt = attrs[i]
            if d is not None:
                attrs[i] = (t | r.choice((0x8000, 0x4000, 0xC000)), d, mt)

    def mutate_tail(self, op, attrs):
        """Bytes after the last attribute."""
        op.tail, op.tail_bad = self.bad_tail()
        if op.attrs is None:
            op.attrs = attrs

    def mutate_noopts(self, op, attrs):
        """A new filter without TCA_OPTIONS (other requests as they
        are)."""
        if op.what == 'new':
            op.attrs = None
            return NO_OPTIONS
        return None

    def mutate_prio(self, op, attrs):
        """Prio 0 (the kernel picks one) or an odd one, with CREATE."""
        r = self.rng
        op.prio = r.choice((0, 0, r.randrange(0x10000), 0x8000, 0xFFFF,
                            0xC000))
        op.flags |= NLM_F_CREATE

    def mutate_maskdiff(self, op, attrs):
        """The keys of another recipe (another mask), same actions."""
        other = self.instantiate(self.random_recipe())
        keep = [a for a in attrs if a[0] in (T_ACT, T_FLAGS, T_CLASSID)]
        attrs[:] = other + keep

    def mutate_handle(self, op, attrs):
        """Handle 0, the largest ones, around INT_MAX."""
        op.handle = self.rng.choice((0, 0xFFFFFFFF, INT_MAX, INT_MAX + 1,
                                     1))

    def mutate_range(self, op, attrs):
        """Port ranges that are refused: one end only, min not below max,
        on a filter without ip_proto tcp, udp or sctp (mostly on an IP
        filter of one of them, so that the range checks are reached)."""
        r = self.rng
        c = r.choice(('oneend', 'oneend', 'order', 'order', 'order',
                      'noproto'))
        op.label += ':' + c
        if c != 'noproto' and r.random() < 0.8:
            self.onto(op, attrs, r.choice(('ipv4', 'ipv6')))
            l4 = {A[n] for n in A if n.startswith((
                'KEY_TCP_', 'KEY_UDP_', 'KEY_SCTP_', 'KEY_ICMP',
                'KEY_PORT_'))} | {A['KEY_IP_PROTO']}
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in l4]
            attrs.append((A['KEY_IP_PROTO'], bytes([r.choice((6, 17, 132))]),
                          None))
        d = r.choice(('DST', 'SRC'))
        lo, hi = self.port_range()
        if c == 'oneend':
            attrs.append((A['KEY_PORT_%s_%s' % (d, r.choice(('MIN', 'MAX')))],
                          lo, None))
            if r.random() < 0.3:    # the other direction whole
                o = 'SRC' if d == 'DST' else 'DST'
                attrs += [(A['KEY_PORT_%s_MIN' % o], lo, None),
                          (A['KEY_PORT_%s_MAX' % o], hi, None)]
        else:
            if c == 'order':
                lo, hi = (hi, lo) if r.random() < 0.6 else (lo, lo)
            attrs += [(A['KEY_PORT_%s_MIN' % d], lo, None),
                      (A['KEY_PORT_%s_MAX' % d], hi, None)]
        if r.random() < 0.3:
            r.shuffle(attrs)
    def mutate_tunnel(self, op, attrs):
        """Tunnel keys: both address families (the IPv4 ones ignored, with
        a warning), bad Geneve options (lists, options, lengths, classes,
        masks)."""
        r = self.rng
        c = r.choice(('mixed', 'opts', 'opts', 'opts', 'optsmask',
                      'optsmask', 'nomask', 'lonemask', 'badlen', 'tunopt',
                      'tunopt', 'tunopt', 'tunoptmask', 'tunoptmask'))
        op.label += ':' + c
        opt = geneve_opt(b'\x01\x02', b'\x80', b'\0\x88\0\x22')
        if c == 'mixed':
            attrs.append((r.choice(ENC_V4), self.garbage(4), None))
            attrs.append((r.choice(ENC_V6), self.garbage(16), None))
            if r.random() < 0.5:
                r.shuffle(attrs)
        elif c in ('opts', 'optsmask'):
            bad = self.bad_geneve()
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_ENC_OPTS, T_ENC_OPTS_MASK)]
            if c == 'opts':
                attrs.append((T_ENC_OPTS, bad, None))
                if r.random() < 0.5:
                    attrs.append((T_ENC_OPTS_MASK, opt, None))
            else:
                attrs.append((T_ENC_OPTS, opt, None))
                attrs.append((T_ENC_OPTS_MASK, r.choice((
                    bad, bad, geneve_opt(b'\xff\xff', b'\xff', b'\xff' * 8),
                    opt + opt)), None))
        elif c == 'nomask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_ENC_OPTS, T_ENC_OPTS_MASK)]
            attrs.append((T_ENC_OPTS, self.geneve_value(
                self.geneve_spec()[0]), None))
        elif c == 'lonemask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK != T_ENC_OPTS]
            attrs.append((T_ENC_OPTS_MASK, opt, None))
        elif c in ('tunopt', 'tunoptmask'):
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_ENC_OPTS, T_ENC_OPTS_MASK)]
            kind, fixed, omask = self.tun_opt_spec()
            good = self.tun_opt_value(kind, fixed)
            gmask = self.tun_opt_value(kind, omask or {})
            if c == 'tunopt':
                attrs.append((T_ENC_OPTS, self.bad_tun_opt(kind, fixed, good),
                              None))
                if r.random() < 0.5:
                    attrs.append((T_ENC_OPTS_MASK, gmask, None))
            else:
                attrs.append((T_ENC_OPTS, good, None))
                attrs.append((T_ENC_OPTS_MASK, self.bad_tun_opt_mask(
                    kind, omask or {}, gmask), None))
        elif c == 'badlen':
            name = r.choice(('KEY_ENC_KEY_ID', 'KEY_ENC_IPV4_DST',
                             'KEY_ENC_IPV6_SRC', 'KEY_ENC_UDP_DST_PORT',
                             'KEY_ENC_IP_TTL_MASK', 'KEY_ENC_IPV6_DST_MASK'))
            ln = ATTR_LEN[A[name]]
            attrs.append((A[name], self.garbage(r.choice(
                (0, 1, ln - 1, ln + 1, 2 * ln))), None))
    def bad_geneve(self):
        """An ENC_OPTS payload the kernel refuses (most of the time: a
        random one may happen to be valid; the model says)."""
        r = self.rng
        cls, typ, data = b'\x01\x02', b'\x80', b'\0\x88\0\x22'
        c = r.choice(('empty', 'short', 'kind', 'missing', 'classlen',
                      'typelen', 'datalen', 'datalen', 'unknown', 'trail',
                      'listtrail', 'toolong', 'random', 'unpadded'))
        if c == 'empty':
            return b''
        if c == 'short':
            return self.garbage(r.randrange(1, 4))
        if c == 'kind':             # vxlan, erspan, gtp options
            return geneve_opt(cls, typ, data) * r.randrange(2) + nla(
                r.choice((2, 3, 4, 0, 0x3FFF)) | r.choice((0, NLA_F_NESTED)),
                nla(1, data))
        if c == 'missing':
            parts = [nla(G_CLASS, cls), nla(G_TYPE, typ), nla(G_DATA, data)]
            del parts[r.randrange(3)]
            return nla(GENEVE, b''.join(parts))
        if c == 'classlen':
            return nla(GENEVE, nla(G_CLASS, self.garbage(r.choice(
                (0, 1, 3, 4)))) + nla(G_TYPE, typ) + nla(G_DATA, data))
        if c == 'typelen':
            return nla(GENEVE, nla(G_CLASS, cls) + nla(G_TYPE, self.garbage(
                r.choice((0, 2, 4)))) + nla(G_DATA, data))
        if c == 'datalen':
            return geneve_opt(cls, typ, self.garbage(r.choice(
                (0, 1, 2, 3, 5, 6, 122, 125, 126, 128, 129, 200))))
        if c == 'unknown':
            return nla(GENEVE, nla(G_CLASS, cls) + nla(G_TYPE, typ) +
                       nla(G_DATA, data) + nla(r.choice((0, 4, 0x3FFF)), b''))
        if c == 'trail':            # bytes after an option's attributes
            inner = nla(G_CLASS, cls) + nla(G_TYPE, typ) + nla(G_DATA, data)
            return nla(GENEVE, inner + self.garbage(r.randrange(1, 4)))
        if c == 'listtrail':        # bytes after the last option
            return geneve_opt(cls, typ, data) + self.garbage(
                r.randrange(1, 4))
        if c == 'toolong':          # more than 255 bytes of options
            return b''.join(geneve_opt(cls, typ, self.garbage(dl))
                            for dl in r.choice(((124, 124, 4),
                                                (124, 124, 124),
                                                (100, 100, 48))))
        if c == 'unpadded':
            # the last option ends in an unpadded TYPE: the option parses,
            # but the list's walk ends 3 bytes past its end (rem < 0)
            inner = nla(G_CLASS, cls) + nla(G_DATA, data) + \
                struct.pack('<HH', 5, G_TYPE) + typ
            return struct.pack('<HH', 4 + len(inner), GENEVE) + inner
        return self.garbage(r.randrange(4, 40))
    def other_opt(self, kind):
        """An option of a kind other than kind's: Geneve, another kind,
        or of a type there is none of."""
        r = self.rng
        c = r.choice(('geneve', 'kind', 'unknown'))
        if c == 'geneve':
            return geneve_opt(b'\x01\x02', b'\x80', b'\0\x88\0\x22')
        if c == 'kind':
            k = TUN_OPT_KINDS[r.choice(sorted(TUN_OPT_KINDS))]
            return self.tun_opt_value(k, self.tun_opt_spec(k)[1])
        return nla(r.choice((0, 5, 6, 0x3FFF)), self.garbage(
            r.choice((0, 4, 8))))
    def bad_field(self, kind, fields):
        """An option's fields with one of them broken: missing, of
        another length, an unknown type, an erspan version other than 1
        and 2, or bytes after the last."""
        r = self.rng
        c = r.choice(('missing', 'missing', 'len', 'unknown', 'ver', 'trail'))
        parts = [nla(kind.fields[n][0], v if v is not None else bytes(
            kind.fields[n][1])) for n, v in fields.items()]
        if c == 'missing' and parts:
            del parts[r.randrange(len(parts))]
        elif c == 'len' and parts:
            i = r.randrange(len(parts))
            ln = struct.unpack_from('<H', parts[i])[0] - 4
            t = struct.unpack_from('<H', parts[i], 2)[0]
            parts[i] = nla(t, self.garbage(r.choice(
                [n for n in (0, 1, 2, 3, 5, 8) if n != ln])))
        elif c == 'unknown':
            parts.insert(r.randrange(len(parts) + 1), nla(r.choice((
                0, kind.maxtype + 1, 0x3FFF)), self.garbage(r.choice(
                    (0, 1, 4)))))
        elif c == 'ver' and kind.name == 'erspan':
            parts = [p for p in parts if struct.unpack_from(
                '<H', p, 2)[0] != kind.fields['VER'][0]]
            parts.append(nla(kind.fields['VER'][0], bytes([r.choice(
                (0, 3, 255))])))
        inner = b''.join(parts)
        if c == 'trail':
            inner += self.garbage(r.randrange(1, 4))
        return nla(kind.attr | r.choice((0, NLA_F_NESTED)), inner)
    def bad_tun_opt(self, kind, fields, good):
        """An ENC_OPTS payload of kind's option that the kernel refuses
        (most of the time; the model says): a broken field, a second
        option after it, Geneve options with one of kind's among them.
        Bytes after the option that do not form an attribute are not
        looked at (accepted)."""
        r = self.rng
        c = r.choice(('field', 'field', 'field', 'second', 'second',
                      'aftergeneve', 'listtrail'))
        if c == 'field':
            return self.bad_field(kind, fields)
        if c == 'second':
            return good + r.choice((good, self.other_opt(kind)))
        if c == 'aftergeneve':
            return geneve_opt(b'\x01\x02', b'\x80', b'\0\x88\0\x22') + \
                good
        return good + self.garbage(r.randrange(1, 4))
    def bad_tun_opt_mask(self, kind, fields, good):
        """An ENC_OPTS_MASK payload for an option of kind: empty or too
        short for an option, of another kind, broken fields (a mask needs
        none of them); a second option after it is not looked at."""
        r = self.rng
        c = r.choice(('empty', 'short', 'other', 'other', 'field', 'field',
                      'second'))
        if c == 'empty':
            return b''
        if c == 'short':
            return struct.pack('<HH', r.choice((0, 3, 200)), kind.attr)
        if c == 'other':
            return self.other_opt(kind)
        if c == 'field':
            return self.bad_field(kind, fields)
        return good + self.other_opt(kind)
    def mutate_ct(self, op, attrs):
        """ct_state flag sets no packet has, ct_label too long or short."""
        r = self.rng
        c = r.choice(('state', 'state', 'state', 'labels'))
        op.label += ':' + c
        if c == 'state':
            v = r.choice((CT_NEW, CT_EST, CT_TRK | CT_NEW | CT_EST,
                          CT_TRK | CT_NEW | CT_RPL, CT_TRK | CT_INV | CT_EST,
                          CT_INV, CT_TRK | 0x40, 0x8000 | CT_TRK,
                          r.randrange(65536)))
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_CT_STATE, A['KEY_CT_STATE_MASK'])]
            attrs.append((T_CT_STATE, enc(T_CT_STATE, v), None))
            x = r.random()
            if x < 0.5:
                t = A['KEY_CT_STATE_MASK']
                attrs.append((t, enc(t, r.choice((
                    v, 0xFFFF, CT_FLAGS, v & ~CT_TRK, r.randrange(65536)))),
                    None))
        else:
            t = r.choice((A['KEY_CT_LABELS'], A['KEY_CT_LABELS_MASK']))
            if t == A['KEY_CT_LABELS_MASK'] and r.random() < 0.7:
                attrs.append((A['KEY_CT_LABELS'], self.garbage(16), None))
            attrs.append((t, self.garbage(r.choice((0, 3, 16, 17, 24))),
                          None))
    def onto(self, op, attrs, fam):
        """Make op a request for a prio of family fam (one that exists, or
        a new one), with a filter of its recipe: the checks behind the
        protocol's are reached.  Actions, flags and classid stay."""
        r = self.rng
        chain = op.chain or 0
        tps = [t for t in self.model.tps.values() if t.chain == chain and
               t.recipe is not None and t.recipe.fam == fam]
        if tps and r.random() < 0.7:
            tp = r.choice(tps)
            op.prio, op.proto, recipe = tp.prio, tp.proto, tp.recipe
        else:
            recipe = self.random_recipe(fam)
            used = {t.prio for t in self.model.tps.values()
                    if t.chain == chain}
            free = [p for p in range(1, 17) if p not in used]
            op.prio = r.choice(free) if free else r.randrange(1, 0x10000)
            op.proto = recipe.proto
        op.flags |= NLM_F_CREATE
        keep = [a for a in attrs if a[0] in (T_ACT, T_FLAGS, T_CLASSID)]
        attrs[:] = self.instantiate(recipe) + keep
    def mutate_l2(self, op, attrs):
        """ip_flags, tags, num_of_vlans, PPPoE and L2TPv3 keys that are
        refused, or ignored or masked with a warning: a lone or missing
        mask, unknown flag bits, an inner tag without QinQ or out of range,
        PPP keys without PPPoE, an L2TPv3 session without ip_proto l2tp;
        or num_of_vlans making a tag of the protocol."""
        r = self.rng
        c = r.choice(('flagsmask', 'flagsnomask', 'flagsbits', 'cvlan',
                      'cvlanrange', 'cvlanrange', 'nvlans', 'ppp', 'ppp',
                      'l2tp'))
        op.label += ':' + c
        flags = (T_IP_FLAGS, T_IP_FLAGS_MASK)
        if c == 'flagsmask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK != T_IP_FLAGS]
            attrs.append((T_IP_FLAGS_MASK,
                          enc(T_IP_FLAGS_MASK, r.randrange(4)), None))
        elif c == 'flagsnomask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in flags]
            attrs.append((T_IP_FLAGS, enc(T_IP_FLAGS, r.randrange(4)),
                          None))
        elif c == 'flagsbits':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in flags]
            v = r.choice((4, 8, 0x80000000, r.randrange(1 << 32)))
            x = r.random()
            attrs.append((T_IP_FLAGS, enc(
                T_IP_FLAGS, v if x < 0.5 else r.randrange(4)), None))
            attrs.append((T_IP_FLAGS_MASK, enc(
                T_IP_FLAGS_MASK, v if x >= 0.5 else 3), None))
        elif c == 'cvlan':          # on whatever the filter is
            attrs.append((r.choice(CVLAN_ATTRS), None, None))
            t = attrs[-1][0]
            attrs[-1] = (t, self.garbage(ATTR_LEN[t]), None)
        elif c == 'cvlanrange':
            if r.random() < 0.7:
                self.onto(op, attrs, 'qinq')
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_CVLAN_ID, T_CVLAN_PRIO)]
            if r.random() < 0.5:
                attrs.append((T_CVLAN_ID, enc(
                    T_CVLAN_ID, r.randrange(4096, 65536)), None))
            else:
                attrs.append((T_CVLAN_PRIO, bytes([r.randrange(8, 256)]),
                              None))
        elif c == 'nvlans':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK !=
                        T_NUM_OF_VLANS]
            attrs.append((T_NUM_OF_VLANS, bytes([r.choice((1, 2, 3, 255))]),
                          None))
        elif c == 'ppp':
            if r.random() < 0.3:
                self.onto(op, attrs, 'pppoe')
            t = r.choice((T_PPP_PROTO, T_PPPOE_SID))
            attrs.append((t, enc(t, r.choice((0x21, 0x57,
                                              r.randrange(65536)))), None))
        elif c == 'l2tp':
            attrs.append((A['KEY_L2TPV3_SID'], self.garbage(4), None))
    def mutate_mpls(self, op, attrs):
        """MPLS keys out of range, both forms at once, broken nested
        options (most of them on an MPLS filter, so that the checks
        behind the protocol's are reached); or on another protocol."""
        r = self.rng
        c = r.choice(('range', 'range', 'both', 'opts', 'opts', 'opts',
                      'opts', 'proto'))
        op.label += ':' + c
        if c != 'proto' and r.random() < 0.8:
            self.onto(op, attrs, 'mpls')
        if c == 'range':
            name = r.choice(('BOS', 'TC', 'LABEL'))
            off, ln, m = LSE_FIELD[name]
            bad = r.choice((m + 1, m + 2, (1 << 8 * ln) - 1,
                            r.randrange(m + 1, 1 << 8 * ln)))
            v = enc('MPLS_' + name, bad)
            if r.random() < 0.5:
                self.drop_mpls(attrs)
                attrs.append((A['KEY_MPLS_' + name], v, None))
            else:
                self.drop_mpls(attrs)
                parts = [nla(LSE_ATTR['DEPTH'], bytes([r.randrange(1, 8)])),
                         nla(LSE_ATTR[name], v)]
                attrs.append((T_MPLS_OPTS, nla(MPLS_LSE, b''.join(parts)),
                              None))
        elif c == 'both':
            self.drop_mpls(attrs)
            attrs.append((A['KEY_MPLS_' + r.choice(MPLS_FIELDS[:3])],
                          b'\1', None))
            attrs.append((T_MPLS_OPTS, self.mpls_lse(1, ['LABEL']), None))
        elif c == 'opts':
            self.drop_mpls(attrs)
            attrs.append((T_MPLS_OPTS, self.bad_mpls_opts(), None))
        else:
            attrs.append((r.choice(T_MPLS + [T_MPLS_OPTS]), None, None))
            t = attrs[-1][0]
            attrs[-1] = (t, self.mpls_lse(1, ['TTL']) if t == T_MPLS_OPTS
                         else self.garbage(ATTR_LEN[t]), None)
    @staticmethod
    def drop_mpls(attrs):
        attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                    T_MPLS + [T_MPLS_OPTS]]
    def bad_mpls_opts(self):
        """A KEY_MPLS_OPTS payload the kernel refuses (most of the time: a
        random one may happen to be valid; the model says)."""
        r = self.rng
        ok = self.mpls_lse(1, ['LABEL'])
        depth = nla(LSE_ATTR['DEPTH'], b'\2')
        c = r.choice(('empty', 'short', 'kind', 'nodepth', 'depth', 'dup',
                      'len', 'len', 'unknown', 'trail', 'listtrail',
                      'unpadded', 'random', 'onlydepth'))
        if c == 'empty':
            return b''
        if c == 'short':
            return self.garbage(r.randrange(1, 4))
        if c == 'kind':             # not an LSE
            return ok * r.randrange(2) + nla(
                r.choice((0, 2, 3, 0x3FFF)) | r.choice((0, NLA_F_NESTED)),
                depth)
        if c == 'nodepth':
            return nla(MPLS_LSE, nla(LSE_ATTR['TTL'], b'\1'))
        if c == 'depth':
            return nla(MPLS_LSE, nla(LSE_ATTR['DEPTH'], bytes([r.choice(
                (0, 8, 9, 255))])))
        if c == 'dup':              # the same depth twice
            d = r.randrange(1, 8)
            return self.mpls_lse(d, ['TTL']) + self.mpls_lse(d, ['LABEL'])
        if c == 'len':
            name = r.choice(('DEPTH', 'TTL', 'BOS', 'TC', 'LABEL'))
            n = r.choice((0, 2, 3, 8)) if name == 'LABEL' else \
                r.choice((0, 2, 4))
            return nla(MPLS_LSE, (depth if name != 'DEPTH' else b'') +
                       nla(LSE_ATTR[name], bytes(n)))
        if c == 'unknown':
            return nla(MPLS_LSE, depth + nla(r.choice(
                (0, LSE_MAX + 1, 0x3FFF)), b''))
        if c == 'trail':            # bytes after an entry's attributes
            return nla(MPLS_LSE, depth + self.garbage(r.randrange(1, 4)))
        if c == 'listtrail':        # bytes after the last entry
            return ok + self.garbage(r.randrange(1, 4))
        if c == 'unpadded':
            # the last entry ends in an unpadded DEPTH: it parses, but the
            # list's walk ends 3 bytes past its end (rem < 0)
            inner = nla(LSE_ATTR['TTL'], b'\5') + \
                struct.pack('<HH', 5, LSE_ATTR['DEPTH']) + b'\3'
            return struct.pack('<HH', 4 + len(inner), MPLS_LSE) + inner
        if c == 'onlydepth':        # valid: the packet has an entry there
            return nla(MPLS_LSE, depth)
        return self.garbage(r.randrange(4, 40))
    def mutate_top(self, op, attrs):
        """The request's header or kind: no NLM flags, no or another kind,
        another device, parent, chain or protocol (attrs as they are)."""
        r = self.rng
        c = r.choice(('noflags', 'nokind', 'kind', 'longkind', 'ifindex',
                      'parent', 'chain', 'proto0', 'protoconflict'))
        op.label += ':' + c
        if c == 'noflags':
            op.flags &= ~(NLM_F_CREATE | NLM_F_EXCL | NLM_F_REPLACE)
        elif c == 'nokind':
            op.kind = None
        elif c == 'kind':
            # an unknown kind makes the kernel try to load cls_<kind>:
            # slow in the guest, so keep it rare
            op.kind = 'flowerx' if r.random() < 0.15 else 'flower'
        elif c == 'longkind':
            op.kind = 'flower' + 'x' * r.randrange(10, 30)
        elif c == 'ifindex':
            op.ifindex = r.choice((0, 1, 0x7FFFFFFE))
        elif c == 'parent':
            op.parent = r.choice((0, 0x12340000, 0xFFFF0000, 0xFFFFFFF2,
                                  0xFFFFFFFF, 0xFFFE0000))
        elif c == 'chain':
            op.chain = r.choice((TC_ACT_EXT_VAL_MASK + 1, 0xFFFFFFFF,
                                 TC_ACT_EXT_VAL_MASK))
        elif c == 'proto0':
            op.proto = 0
        elif c == 'protoconflict':
            op.proto = r.choice(list(ETH_P.values()) + [r.randrange(65536)])
    def garbage(self, n):
        return bytes(self.rng.randrange(256) for _ in range(n))
    def value_like(self, t, d):
        return bytes(self.rng.randrange(256) for _ in range(len(d)))
    def bad_tail(self):
        """Bytes after the last attribute of TCA_OPTIONS that do not form
        an attribute: nla_for_each_nested() stops with bytes left."""
        r = self.rng
        c = r.random()
        if c < 0.4:
            return self.garbage(r.randrange(1, 4)), True
        if c < 0.7:     # header claiming less than a header
            return struct.pack('<HH', r.randrange(0, 4),
                               r.randrange(1 << 16)), True
        # header claiming more than what is left
        extra = self.garbage(r.randrange(0, 8))
        return struct.pack('<HH', 4 + len(extra) + r.randrange(1, 200),
                           r.randrange(1, FLOWER_MAX + 1)) + extra, True
    def act_garbage(self):
        """(payload, meta) for a TCA_FLOWER_ACT that is not a well-formed
        action list; meta is the expected result: an Err, or the actions
        ([]: an action list with no action at prio 1 is accepted empty)."""
        r = self.rng
        bad = Err((errno.EINVAL, errno.ERANGE), ANY)
        c = r.choice(('empty', 'ignored', 'noprio1', 'nokind', 'nokind',
                      'gact-noopts', 'gact-noparms', 'gact-shortparms',
                      'badverdict', 'longkind', 'second-bad', 'random',
                      'random', 'unknownkind'))
        if c == 'empty':
            return b'', []
        if c == 'ignored':
            return b''.join(nla(r.choice((0, 33, 40, 0x3FFF)),
                                self.garbage(r.randrange(8)))
                            for _ in range(r.randrange(1, 4))), []
        if c == 'noprio1':
            return gact(2, order=r.randrange(2, 33), nested=False), []
        if c == 'nokind':
            inner = b''.join(nla(r.choice((3, 5, 8, 9)),
                                 self.garbage(r.randrange(12)))
                             for _ in range(r.randrange(0, 3)))
            return nla(1, inner), bad
        if c == 'gact-noopts':
            return nla(1, nla(1, b'gact\0')), bad
        if c == 'gact-noparms':
            return nla(1, nla(1, b'gact\0') + nla(0x8002, nla(
                3, self.garbage(4)))), bad
        if c == 'gact-shortparms':
            return nla(1, nla(1, b'gact\0') + nla(0x8002, nla(
                2, self.garbage(r.randrange(0, 20))))), bad
        if c == 'badverdict':
            v = r.choice((9, 100, 0x7FFFFFFF, 0x30000000))
            return gact(v, nested=False), \
                Err(errno.EINVAL, 'invalid control action')
        if c == 'longkind':
            return nla(1, nla(1, b'g' * r.randrange(16, 40) + b'\0')), \
                Err(errno.EINVAL, 'TC action name too long')
        if c == 'second-bad':
            return gact(2, nested=False) + nla(2, nla(3, self.garbage(4))), \
                Err(errno.EINVAL, 'TC action kind must be specified')
        if c == 'unknownkind' and r.random() < 0.15:
            # request_module("act_nosuch") runs modprobe: keep it rare
            return nla(1, nla(1, b'nosuch\0') + nla(0x8002, b'')), \
                Err(errno.ENOENT, 'Failed to load TC action module')
        # random bytes: accepted empty when they hold no attribute of type
        # 1 (prio 1); anything with one is refused.  Avoid bytes that name
        # an action kind (a module load per message).
        for _ in range(20):
            payload = self.garbage(r.randrange(0, 48))
            attrs, _rem = walk_attrs(payload)
            tb = {}
            for t, d in attrs:
                if 1 <= t & TYPE_MASK <= 32:
                    tb[t & TYPE_MASK] = d
            if 1 not in tb:
                return payload, []
            sub, _ = walk_attrs(tb[1])
            if not any(t & TYPE_MASK == 1 for t, _d in sub):
                # prio 1 without a kind, and every later prio is not
                # even looked at if prio 1 fails
                return payload, bad
        return b'', []
