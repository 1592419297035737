# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.compare - comparing the kernel's filter set with the
model, and resynchronising the model after a difference.
"""

import errno
import struct

from flower import uapi
from flower.nl import decode_filter

from stress.flowerfuzz.attrs import (CVLAN_ATTRS, ETH_P_ALL, Err, NOT_IN_HW,
                                     SHARED_ACT, TYPE_MASK, T_ACT, T_ETH_TYPE,
                                     T_FLAGS, T_IN_HW_COUNT, T_NUM_OF_VLANS,
                                     VLAN_ATTRS, VLAN_TPIDS, u32le)
from flower.model_keys import Tp, canon, masked


class Stock:
    """--stock: a run against the stock module, to see the model agree
    with a flower that has several masks per prio on what both do.  Its
    dumps differ from ours by design (attribute order, keys ours leaves
    out), so a dump is compared as a set of attributes, and a dumped
    filter the model cannot rebuild (one ours would refuse) is kept as it
    is, opaque:
    its handle and its own mask, never matching another filter's key."""
    on = False


class OpaqueFilter:
    """A stock filter the model cannot parse (--stock): its dump as is."""

    def __init__(self, chain, prio, handle, opts, acts):
        marker = {'opaque': bytearray(struct.pack('<IHI', chain, prio,
                                                  handle))}
        self.key, self.mask = marker, marker
        self.handle, self.opts, self.acts = handle, opts, acts
        self.flags, self.classid = 0, 0

    def mkey(self, mask=None):
        return masked(self.key, self.mask)

    def ident(self):
        return canon(self.mask), self.mkey()


def acts_of_json(entry):
    """[(verdict, index)] of a filter_json() entry's actions."""
    out = []
    for act in entry.get('options', {}).get('TCA_FLOWER_ACT', []) or []:
        parms = (act.get('options') or {}).get('parms') or {}
        out.append((act.get('kind'), parms.get('action'), parms.get('index')))
    return out


def expected_acts(f):
    return [('gact', v, idx if idx in SHARED_ACT else None)
            for v, idx in f.acts]


def normalize_acts(acts):
    return [(k, v, i if i in SHARED_ACT else None) for k, v, i in acts]


def compare_filter(model, tp, f, opts, entry):
    """None when the dumped filter is what the model holds, else text."""
    got = [(t & TYPE_MASK, v) for t, v in opts if t & TYPE_MASK != T_ACT]
    want = model.expected_opts(tp, f)
    if Stock.on:
        got, want = sorted(got), sorted(want)
    if got != want:
        return 'options differ: dumped %s, model %s' % (
            fmt_attrs(got), fmt_attrs(want))
    ga, wa = normalize_acts(acts_of_json(entry)), expected_acts(f)
    if ga != wa:
        return 'actions differ: dumped %s, model %s' % (ga, wa)
    return None


def fmt_attrs(attrs):
    return '[' + ', '.join('%s=%s' % (
        uapi.BY_NUMBER[t].name if t in uapi.BY_NUMBER else str(t), v.hex())
        for t, v in attrs) + ']'


def compare_dump(model, bodies):
    """List of differences between a dump and the model."""
    problems = []
    seen_tps = set()
    seen = set()
    for body in bodies:
        (ifi, handle, parent, prio, proto), tca, opts, entry = \
            decode_filter(body)
        chain = u32le(tca[11]) if 11 in tca else 0
        kind = tca.get(1, b'').rstrip(b'\0').decode()
        tp = model.tps.get((chain, prio))
        if kind != 'flower':
            problems.append('chain %d prio %d: kind %r' % (chain, prio, kind))
            continue
        if tp is None:
            problems.append('dump has chain %d prio %d (handle %#x) the '
                            'model does not' % (chain, prio, handle))
            continue
        if proto != tp.proto:
            problems.append('chain %d prio %d: protocol %#x, model %#x'
                            % (chain, prio, proto, tp.proto))
        if handle == 0 and opts is None:
            seen_tps.add((chain, prio))
            continue
        f = tp.filters.get(handle)
        if f is None:
            problems.append('dump has chain %d prio %d handle %#x the model '
                            'does not' % (chain, prio, handle))
            continue
        if (chain, prio, handle) in seen:
            problems.append('chain %d prio %d handle %#x dumped twice'
                            % (chain, prio, handle))
        seen.add((chain, prio, handle))
        why = compare_filter(model, tp, f, opts or [], entry)
        if why:
            problems.append('chain %d prio %d handle %#x: %s'
                            % (chain, prio, handle, why))
    for (chain, prio), tp in sorted(model.tps.items()):
        if (chain, prio) not in seen_tps:
            problems.append('model has chain %d prio %d, dump has no '
                            'header for it' % (chain, prio))
        for h in sorted(tp.filters):
            if (chain, prio, h) not in seen:
                problems.append('model has chain %d prio %d handle %#x, '
                                'dump does not' % (chain, prio, h))
    return problems


def has_tag(proto, opts):
    """Whether a dumped filter in a prio of protocol proto was a tagged
    one (fl_set_key_vlans() ran): the dump has a tag's attribute, or
    num_of_vlans > 0 (fl_is_tag(): then the TPID may be any ethertype,
    the filter's protocol), or the protocol is a VLAN TPID and the dump
    has no ETH_TYPE (a tagged filter's ETH_TYPE comes with vlan_ethtype;
    one alone is an ETH_TYPE unlike the protocol, untagged)."""
    return any(t & TYPE_MASK in VLAN_ATTRS + CVLAN_ATTRS or
               (t & TYPE_MASK == T_NUM_OF_VLANS and v[:1] > b'\0')
               for t, v in opts) or \
        (proto in VLAN_TPIDS and
         not any(t & TYPE_MASK == T_ETH_TYPE for t, _v in opts))


def dumped_request(proto, opts):
    """The request attributes [(type, bytes, None)] that would make the
    filter a dump shows, in a prio of protocol proto.  A tagged filter
    dumps its innermost ethertype as ETH_TYPE and the TPID only as the
    filter's protocol: in a prio of protocol other than all the request's
    ETH_TYPE was that protocol (the ambiguity left: ETH_TYPE=TPID alone
    dumps as no ETH_TYPE at all, like a filter without it; taken as given,
    as recipes do; a tag from num_of_vlans without ETH_TYPE, or under an
    ETH_TYPE unlike the protocol, is rebuilt with the protocol as its
    TPID: the same dump, another mask).  In a prio of protocol all a tagged filter is taken
    as one without a TPID (num_of_vlans > 0, no ETH_TYPE: the dump's
    ETH_TYPE is the innermost ethertype, which its vlan_ethtype or
    cvlan_ethtype gives again)."""
    attrs = []
    for t, v in opts:
        t &= TYPE_MASK
        if t in (T_ACT, T_IN_HW_COUNT):
            continue
        if t == T_FLAGS:
            v = struct.pack('<I', u32le(v) & ~NOT_IN_HW)
        attrs.append((t, v, None))
    if has_tag(proto, opts):
        attrs = [a for a in attrs if a[0] != T_ETH_TYPE]
        if proto != ETH_P_ALL:
            attrs.insert(0, (T_ETH_TYPE, struct.pack('>H', proto), None))
    return attrs


def resync(model, bodies):
    """Rebuild the model from a dump (after a divergence, so that one
    difference is reported once, not as a cascade).

    A dumped filter that the model holds and that dumps as the model
    says is kept as the model has it (its exact key and mask, which a
    dump does not always show: a member under a zero mask, the TPID of a
    VLAN filter); any other is rebuilt from its dump, parsed as a request
    in its prio, and must dump back the same.  Returns the problems: each
    dumped filter the model cannot rebuild (its parser refuses the dump,
    or the rebuilt filter would dump otherwise).  They are failures,
    never skipped: a filter the kernel holds and the model does not would
    hide what it does to later requests (its key's uniqueness within its
    mask, its handle).  A dump does not show the order of a prio's masks:
    the masks the model had keep their order, new ones follow in handle
    order."""
    old = model.tps
    model.tps = {}
    problems = []
    rest = []
    for body in bodies:
        (ifi, handle, parent, prio, proto), tca, opts, entry = \
            decode_filter(body)
        chain = u32le(tca[11]) if 11 in tca else 0
        otp = old.get((chain, prio))
        if otp is not None and otp.proto != proto:
            otp = None
        tp = model.tps.get((chain, prio))
        if tp is None:
            tp = model.tps[(chain, prio)] = Tp(
                chain, prio, proto, otp.recipe if otp else None)
            if otp is not None:
                tp.recipes = list(otp.recipes)
        if handle == 0 or opts is None:
            continue
        of = otp.filters.get(handle) if otp else None
        if of is not None and compare_filter(model, otp, of, opts,
                                             entry) is None:
            tp.filters[handle] = of         # as the model had it
        else:
            rest.append((tp, handle, opts, entry))
    for tp, handle, opts, entry in rest:
        name = 'chain %d prio %d handle %#x' % (tp.chain, tp.prio, handle)
        attrs = dumped_request(tp.proto, opts)
        f, why = None, None
        if tp.proto == ETH_P_ALL and has_tag(tp.proto, opts) and \
                not Stock.on:
            why = ('a VLAN filter in a prio of protocol %#x: its TPID is not '
                   'in the dump, the model cannot rebuild it: %s' % (
                       tp.proto, fmt_attrs([(t, v) for t, v, _m in attrs])))
        else:
            try:
                f = model.fl_parse(attrs, False, tp.proto)
            except Err as e:
                why = 'the model cannot parse the dumped filter (%s %r): %s' \
                    % ('/'.join(errno.errorcode.get(c, str(c))
                                for c in sorted(e.codes)), e.msg,
                       fmt_attrs([(t, v) for t, v, _m in attrs]))
        if f is not None:
            f.acts = [(v, i) for _k, v, i in acts_of_json(entry)]
            f.handle = handle
            diff = compare_filter(model, tp, f, opts, entry)
            if diff:
                why = 'rebuilt from its dump, the model would dump it ' \
                    'otherwise: %s' % diff
        if why is None:
            tp.filters[handle] = f
        elif Stock.on:
            model.opaque += 1
            tp.filters[handle] = OpaqueFilter(
                tp.chain, tp.prio, handle,
                [(t & TYPE_MASK, v) for t, v in opts
                 if t & TYPE_MASK != T_ACT],
                [(v, i) for _k, v, i in acts_of_json(entry)])
        else:
            problems.append('%s: %s' % (name, why))
    for key, tp in model.tps.items():
        otp = old.get(key)
        order = list(otp.masks) if otp is not None else []
        present = {canon(f.mask): f.mask for _h, f in
                   sorted(tp.filters.items())}
        for c in [c for c in order if c in present] + list(present):
            tp.masks.setdefault(c, present[c])
    return problems
