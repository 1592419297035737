# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.requests - valid requests: add, replace, change, delete,
get.
"""

from flower.nl import NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE

from stress.flowerfuzz.attrs import (A, ETH_P, ETH_P_ALL, INT_MAX, KEY_BY_VAL,
                                     SHARED_ACT, TC_ACT_EXT_VAL_MASK, T_ACT,
                                     T_CLASSID, T_CT_STATE, T_ENC_OPTS,
                                     T_ENC_OPTS_MASK, T_FLAGS, T_IP_FLAGS,
                                     T_IP_FLAGS_MASK, T_MPLS_OPTS,
                                     VALID_VERDICTS, enc, geneve_opt)
from stress.flowerfuzz.compare import dumped_request
from stress.flowerfuzz.recipes import Op


class RequestGen:
    """Gen's requests (a part of class Gen)."""

    def instantiate(self, recipe):
        """Attributes [(type, bytes, None)] of one filter of a recipe;
        now and then without ETH_TYPE where it is the recipe's protocol
        (as on stock, the filter then has no protocol: the keys that need
        it are ignored, with a warning)."""
        r = self.rng
        out = []
        implicit = recipe.proto != ETH_P_ALL and r.random() < 0.05
        for name, data in recipe.fixed:
            if implicit and name == 'ETH_TYPE' and \
                    data == enc('ETH_TYPE', recipe.proto):
                continue
            out.append((A[name] if name in A else A['KEY_' + name], data,
                        None))
        for vname, mname, mask in recipe.fields:
            if vname in ('VLAN_ID', 'CVLAN_ID'):    # varying id (exact)
                t = A['KEY_' + vname]
                out = [x for x in out if x[0] != t]
                out.append((t, enc(t, self.rng.randrange(4096)),
                            None))
                continue
            if vname == 'IP_FLAGS':
                v = r.randrange(4) & (mask if r.random() < 0.8 else 3)
                out.append((T_IP_FLAGS, enc(T_IP_FLAGS, v), None))
                out.append((T_IP_FLAGS_MASK, enc(T_IP_FLAGS_MASK, mask), None))
                continue
            if vname == 'MPLS':
                for n in mask:
                    out.append((A['KEY_MPLS_' + n], self.mpls_value(n), None))
                continue
            if vname == 'MPLS_OPTS':
                lses = [self.mpls_lse(d, names, nested=r.random() < 0.7)
                        for d, names in mask]
                if r.random() < 0.3:
                    r.shuffle(lses)
                out.append((T_MPLS_OPTS, b''.join(lses), None))
                continue
            if vname == 'ENC_OPTS':
                layout, omask = mask
                out.append((T_ENC_OPTS, self.geneve_value(layout), None))
                if omask is not None:
                    out.append((T_ENC_OPTS_MASK, b''.join(
                        geneve_opt(c, t, d, nested=r.random() < 0.7)
                        for c, t, d in omask), None))
                continue
            if vname == 'TUN_OPT':
                kind, fixed, omask = mask
                out.append((T_ENC_OPTS, self.tun_opt_value(kind, fixed),
                            None))
                if omask is not None:
                    out.append((T_ENC_OPTS_MASK, self.tun_opt_value(
                        kind, omask), None))
                continue
            if vname == 'PORT_RANGE':
                lo, hi = self.port_range()
                out.append((A['KEY_PORT_%s_MIN' % mask], lo, None))
                out.append((A['KEY_PORT_%s_MAX' % mask], hi, None))
                continue
            if vname == 'CT_STATE':
                out.append((T_CT_STATE, enc(
                    T_CT_STATE, self.ct_state_value(mask)), None))
                if mask is not None:
                    out.append((A['KEY_CT_STATE_MASK'],
                                enc(A['KEY_CT_STATE_MASK'], mask), None))
                continue
            if vname == 'CT_LABELS':
                vlen, lmask = mask
                out.append((A['KEY_CT_LABELS'], self.garbage(vlen), None))
                if lmask is not None:
                    out.append((A['KEY_CT_LABELS_MASK'], lmask, None))
                continue
            ln = KEY_BY_VAL[vname][4]
            out.append((A['KEY_' + vname], self.value(vname, ln), None))
            if mask is not None:
                out.append((A['KEY_' + mname], mask, None))
        return out
    def port_range(self):
        """A valid port range: min < max (the payloads of a range's
        ends, of one type in uapi.TABLE, be16)."""
        r = self.rng
        lo = r.choice(self.port_pool) if r.random() < 0.5 else \
            r.choice((0, 1, r.randrange(65535)))
        lo = min(lo, 65534)
        hi = r.choice((lo + 1, min(65535, lo + r.randrange(1, 1000)),
                       r.randrange(lo + 1, 65536)))
        return enc('PORT_DST_MIN', lo), enc('PORT_DST_MAX', hi)
    def extras(self, attrs):
        """CLASSID, FLAGS and actions a valid filter may carry."""
        r = self.rng
        if r.random() < 0.2:
            attrs.append((T_CLASSID, enc(T_CLASSID, r.choice(
                (0, 1, 0x10001, r.randrange(1 << 32)))), None))
        if r.random() < 0.2:
            attrs.append((T_FLAGS, enc(T_FLAGS, r.choice(
                (0, 1, 16, 17))), None))
        if r.random() < 0.75:
            acts = []
            shared = list(SHARED_ACT)
            r.shuffle(shared)
            for _ in range(r.choice((1, 1, 1, 2, 3))):
                if r.random() < 0.2:
                    # never the same explicit index twice in one request:
                    # that livelocks tc_new_tfilter() in this 6.1 tree
                    # (tc core, any classifier; see stress/README.md)
                    idx = shared.pop()
                    acts.append((SHARED_ACT[idx], idx))
                else:
                    acts.append((r.choice(VALID_VERDICTS), 0))
            attrs.append((T_ACT, None, acts))
        if r.random() < 0.3:
            r.shuffle(attrs)
        return attrs
    # -- picking targets -----------------------------------------------
    def pick_chain(self):
        r = self.rng.random()
        if r < 0.85:
            return None             # no TCA_CHAIN: chain 0
        if r < 0.9:
            return 0
        if r < 0.98:
            return self.rng.choice((1, 2))
        return TC_ACT_EXT_VAL_MASK
    def existing_filter(self):
        fl = [(tp, f) for tp in self.model.tps.values()
              for f in tp.filters.values()]
        return self.rng.choice(fl) if fl else (None, None)
    def base(self, what, **kw):
        op = Op(what, ifindex=self.ifindex)
        op.__dict__.update(kw)
        return op
    def valid_add(self):
        r = self.rng
        chain = self.pick_chain()
        tps = [t for t in self.model.tps.values() if t.chain == (chain or 0)
               and t.recipes]
        label = 'add'
        if tps and r.random() < 0.7:
            tp = r.choice(tps)
            prio, recipe = tp.prio, r.choice(tp.recipes)
            x = r.random()
            if x < 0.3:
                # another mask into this prio
                recipe = self.mask_variant(recipe)
                label = 'add-newmask'
            proto = tp.proto if r.random() < 0.9 else 0
            if x > 0.95 and tp.filters:
                # an existing filter's key under its mask: EEXIST
                attrs = self.same_key_attrs(tp, r.choice(list(
                    tp.filters.values())))
                if attrs:
                    op = self.base('new', flags=NLM_F_CREATE | NLM_F_EXCL,
                                   prio=prio, proto=proto, chain=chain,
                                   attrs=self.extras(attrs), recipe=recipe,
                                   label='add-samekey')
                    op.handle = self.pick_handle(tp)
                    return op
        else:
            recipe = self.random_recipe()
            used = {t.prio for t in self.model.tps.values()
                    if t.chain == (chain or 0)}
            free = [p for p in range(1, 17) if p not in used]
            if free and r.random() < 0.9:
                prio = r.choice(free)
            elif r.random() < 0.5:
                prio = r.choice((1, 2, 3, 4, 5, 6, 7, 8))
            else:
                prio = r.randrange(1, 0x10000)
            proto = recipe.proto
            tp = self.model.tps.get((chain or 0, prio))
            if tp is not None:
                proto = tp.proto
            elif r.random() < 0.1:
                proto = r.choice(list(ETH_P.values()))   # conflicting
        attrs = self.extras(self.instantiate(recipe))
        if proto and proto != recipe.proto:
            # ETH_TYPE unlike the prio's protocol: kept, with a warning
            # (in a new prio; an existing one's refuses another protocol);
            # the prio does not take the recipe up
            recipe, label = None, label + '-ethtype'
        op = self.base('new', flags=NLM_F_CREATE | NLM_F_EXCL, prio=prio,
                       proto=proto, chain=chain, attrs=attrs, recipe=recipe,
                       label=label)
        op.handle = self.pick_handle(tp)
        return op
    def pick_handle(self, tp):
        r = self.rng.random()
        if r < 0.55:
            return 0
        if r < 0.8:
            return self.rng.randrange(1, 3000)
        if r < 0.9:
            return self.rng.randrange(0x80000000, 0x100000000)
        if r < 0.95:
            return 0xFFFFFFFF
        if tp is not None and tp.filters:
            return self.rng.choice(list(tp.filters))     # -> EEXIST
        return INT_MAX
    def replace(self, change=False):
        r = self.rng
        tp, f = self.existing_filter()
        if tp is None:
            return self.valid_add()
        label = 'change' if change else 'replace'
        recipe = r.choice(tp.recipes) if tp.recipes else \
            self.random_recipe()
        x = r.random()
        if x >= 0.55 and r.random() < 0.3:
            # the filter moves to another mask (a new one, or one of the
            # prio's other recipes')
            recipe = self.mask_variant(recipe)
            label += '-newmask'
        attrs = self.instantiate(recipe)
        if x < 0.45 and tp.recipe is not None:
            # same key, other action: rebuild from the filter's own bytes
            attrs = self.same_key_attrs(tp, f) or attrs
            label += '-samekey'
        elif x < 0.55 and len(tp.filters) > 1:
            # another filter's key and mask: EEXIST
            g = r.choice([g for g in tp.filters.values() if g is not f])
            attrs = self.same_key_attrs(tp, g) or attrs
            label += '-otherskey'
        attrs = self.extras(attrs)
        if recipe.proto != tp.proto:
            # a prio the generator has no recipe of: ETH_TYPE unlike its
            # protocol (a warning), and the prio does not take it up
            recipe = None
            if label in ('replace', 'change', 'replace-newmask',
                         'change-newmask'):
                label += '-ethtype'
        flags = 0 if change else NLM_F_CREATE | NLM_F_REPLACE
        handle = f.handle if r.random() < 0.9 else self.pick_handle(tp)
        return self.base('new', flags=flags, prio=tp.prio,
                         proto=tp.proto if r.random() < 0.9 else 0,
                         chain=tp.chain if tp.chain or r.random() < 0.3
                         else None, handle=handle, attrs=attrs,
                         recipe=recipe, label=label)
    def same_key_attrs(self, tp, f):
        """Attributes that rebuild filter f exactly (from the model's
        expected dump, which only has valid attributes)."""
        return [a for a in dumped_request(
            tp.proto, self.model.expected_opts(tp, f))
            if a[0] not in (T_FLAGS, T_CLASSID)]
    def delete(self):
        r = self.rng
        tp, f = self.existing_filter()
        x = r.random()
        op = self.base('del', label='del')
        if tp is None or x < 0.08:
            op.prio = r.choice((1, 2, 3, 0x7777))
            op.handle = r.randrange(1, 10)
            op.proto = r.choice((0, ETH_P['ip']))
            op.label = 'del-missing'
            return op
        op.prio, op.chain = tp.prio, tp.chain if tp.chain else \
            r.choice((None, 0))
        op.proto = tp.proto if r.random() < 0.6 else 0
        op.kind = 'flower' if r.random() < 0.5 else None
        if x < 0.75:
            op.handle = f.handle
        elif x < 0.83:
            op.handle = r.randrange(1, 0x100000000)
            op.label = 'del-nohandle'
        elif x < 0.93:
            op.handle = 0
            op.label = 'del-prio'
        elif x < 0.97:
            op.handle = f.handle
            op.proto = (tp.proto + 1) & 0xFFFF or 1
            op.label = 'del-wrongproto'
        elif x < 0.985:
            op.handle = f.handle
            op.kind = 'matchall'
            op.label = 'del-wrongkind'
        else:
            op.prio, op.handle, op.proto, op.kind = 0, 0, 0, None
            op.label = 'flush'
        return op
    def get(self):
        r = self.rng
        tp, f = self.existing_filter()
        op = self.base('get', label='get', kind=None)
        if tp is None:
            op.prio, op.handle = 1, 1
            return op
        op.prio, op.chain, op.proto = tp.prio, tp.chain or None, \
            r.choice((0, tp.proto))
        op.handle = f.handle if r.random() < 0.8 else r.randrange(1 << 32)
        return op
