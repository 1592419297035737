# SPDX-License-Identifier: GPL-2.0
"""The classes of a divergence for compare.py: the declared differences
(DESIGN), stock's and ours' bugs, and the rules that put a (filter, frame)
pair in one of them (pair_class()).
"""
import struct

from difftest import frames as F
from difftest import model as M
from difftest import keys as K
from flower import packets as P
from flower import uapi


# Declared differences: class (c), by design.  key -> (title, reason).
# None is left in what the oracle generates (series step 22, README's
# "Where ours differs"): ours refuses only what stock refuses, and a
# refusal stock does not make is our bug (OURS_BUGS); where ours does
# what a request asked and stock does not (first fragments, the PPPoE
# and zero-mask dumps), that is a stock bug (STOCK_BUGS).  The one request
# stock refuses and ours takes on purpose, a replace that changes the
# mask, is not generated here (the oracle only adds filters).
DESIGN = {
}
STOCK_BUGS = {
    'first-fragment-l4': (
        'stock 6.1: a first fragment\'s L4 keys stay zero (ours reads '
        'its L4 header)',
        'Ours reads a first fragment (IPv4 MF at offset 0, an IPv6 '
        'fragment header at offset 0) down to its L4 header in a second '
        'pass, so its ICMP type and code, TCP flags and L2TPv3 session are '
        'keys, as Open vSwitch\'s datapath reads them '
        '("frag=first,icmp(type=8)" flows); stock stops at the fragment '
        'and leaves them zero.  Ours takes nothing from that pass where it '
        'finds another protocol than the first pass (an extension header '
        'after the IPv6 fragment header, MPLS in IP): there both read the '
        'same.  Ports stay unread in any fragment on both.  A divergence '
        'is this one only where the frame-field model of both readings '
        'gives the verdicts seen (classes.first_fragment_class()): the '
        'filter\'s own, or, in a prio of several filters, an older filter '
        'of the prio that matched on one kernel only as modelled and so '
        'took the frame there.'),
    'dump-pppoe-protocol': (
        'stock 6.1: a PPPoE filter dumps the protocol PPP carries, not the '
        'one it was given',
        'A filter of protocol (or vlan_ethtype, cvlan_ethtype) ppp_ses '
        'dumps eth_type ppp_ses on ours; stock rewrites its key to the '
        'protocol PPP carries (ip for ppp_proto ip, none without '
        'ppp_proto) and dumps that.  Only the ethertype attributes '
        'differ; the frames they match are the same.'),
    'dump-zero-mask-addr': (
        'stock 6.1: an all-zero address mask dumps no address (ours: dst '
        '0/0)',
        'A filter whose address keys of a family all have an all-zero '
        'mask asks for that family (ours matches every packet with such '
        'an address, stock none: its bug below); ours dumps it as '
        'dst_ip 0.0.0.0/0 (::/0), so that the dump gives the filter back, '
        'stock dumps no address.'),
    'stock-zero-mask-enc-addr': (
        'stock 6.1: an all-zero tunnel address mask never matches',
        'With enc_dst_ip 0.0.0.0/0 (or any enc_* IPv4/IPv6 address whose '
        'mask is all zero, and no tunnel address key with a non-zero '
        'mask) stock asks for the tunnel family (enc_control.addr_type, '
        'mask all ones) but fl_init_dissector() dissects ENC_CONTROL only '
        'when a tunnel address mask is non-zero, so the frame\'s '
        'addr_type stays 0 and the filter never matches; ours matches '
        'every frame of that tunnel family the rest of the filter matches. '
        ' Recognised by the twin filter (the same filter without the '
        'zero-mask keys), which stock matches on the same frame, a frame '
        'that came over a tunnel of the key\'s family.'),
    'stock-enc-families': (
        'stock 6.1: IPv4 tunnel addresses beside IPv6 ones match the '
        'IPv6 source\'s first bytes',
        'With enc_src_ip / enc_dst_ip of both families in one filter stock '
        'keeps both (docs/leniency.md), but enc_ipv4 and enc_ipv6 share '
        'their bytes in its struct fl_flow_key: the IPv4 keys become the '
        'first 8 bytes of the IPv6 tunnel source (unless an IPv6 source '
        'key overwrites them), so the filter matches only IPv6 tunnels '
        'whose source begins with them, and dumps them as an '
        'enc_src_ip it was never given.  Ours ignores the IPv4 keys '
        '("Key ignored: IPv4 tunnel addresses do not count beside IPv6 '
        'ones") and matches what its dump says.  Recognised by the twin '
        '(the filter without its IPv4 tunnel keys), which stock matches '
        'on the same frame.'),
    'stock-zero-mask-addr': (
        'stock 6.1: an all-zero address mask never matches',
        'With dst_ip 0.0.0.0/0 (or any IPv4/IPv6 src/dst whose mask is all '
        'zero, and no other address key of that family with a non-zero '
        'mask) stock masks control.addr_type but its dissector skips the '
        'zero-mask address key, so addr_type stays 0 and the filter never '
        'matches; ours matches every packet the rest of the filter '
        'matches.  Recognised by the twin filter (the same filter without '
        'the zero-mask key), which stock matches on the same frame.'),
}
# Bugs in ours the oracle found and that are still open.  A divergence
# of one of these classes fails the run like an unexplained one (it is
# named, not excused).  Fixed: vlan_ethtype/cvlan_ethtype ppp_ses was
# not a PPPoE match (ours keyed on n_proto 0x8864, which the dissector
# replaces by the PPP payload's protocol); regression case in
# tc-tests/filters/flower/regressions.json.
OURS_BUGS = {
    'ours-refuses-what-stock-takes': (
        'ours refuses a request stock accepts',
        'Since series step 22 ours takes every request stock 6.1 takes '
        '(docs/leniency.md: keys without their prerequisite, masks '
        'without their key, VLAN ids above 4095, tcp_flags mask bits '
        'above 0xfff, unknown ip_flags bits, an eth_type unlike the '
        'protocol, no eth_type, both tunnel families, unknown attribute '
        'types, TCA_FLOWER_IN_HW_COUNT, attributes longer than their '
        'type), with a warning; a refusal stock does not make is a bug, '
        'whatever ours says.'),
    'ours-refuses-range-hash': (
        'ours refuses a port range or the hash key',
        'Ours refuses a filter with port range keys '
        '(TCA_FLOWER_KEY_PORT_{DST,SRC}_{MIN,MAX}) or the hash key '
        '(TCA_FLOWER_KEY_HASH) that stock accepts, or refuses such a '
        'filter with another answer than stock\'s ("Unsupported flower '
        'attribute ..." where stock says "Both min and max destination '
        'ports must be specified").  Issue 31: ours takes both with '
        'stock 6.1\'s semantics.'),
    'ours-dump-other-family': (
        'ours dumps address keys of the other family',
        'A filter with IPv6 addresses (an IPv6 source) dumps '
        'TCA_FLOWER_KEY_IPV4_SRC/DST (+ masks) on ours as well: the first '
        '8 bytes of the IPv6 source, which the IPv4 keys share in struct '
        'fl_flow_key; likewise a filter with IPv4 tunnel addresses dumps '
        'an enc_ipv6 source made of them.  Since step 22 the IPv4 rows '
        '(the IPv6 tunnel rows) need nothing, so fl_dump_key_val() no '
        'longer skips them for the other family; stock dumps the family '
        'of control.addr_type (enc_control.addr_type) alone.  The filter '
        'matches the same frames; its dump, given back, would make an '
        'IPv4 filter of it (IPv4 addresses win).'),
}
# Strict mode (compare.py --stock-name stock-next; issue 32 item 3):
# ours against stock-next, the pristine file with kernel/stock-series,
# which fixes the STOCK_BUGS above.  There every divergence fails the
# run, whatever class explains it, but one: a request ours accepts and
# stock-next refuses (the series' fixes may refuse what ours takes).
STRICT_VARIANTS = ('stock-next',)
STRICT_DECLARED = {
    'stock-next-refuses': (
        'ours accepts a request stock-next refuses',
        'Against stock-next (strict mode) the one divergence that does not '
        'fail the run: a patch of kernel/stock-series may refuse a '
        'request stock 6.1 took and ours takes.  Ours\' answer is still '
        'checked against its model.'),
}
# ours' refusal of the attributes it did not implement (the prefix of
# fl_unsupported_msg()'s extack)
UNSUPPORTED_MSG = 'Unsupported flower attribute TCA_FLOWER_KEY_'
# keys read from a first fragment's L4 header by ours only
FIRST_FRAG_KEYS = ('tcp_flags', 'icmpv4_type', 'icmpv4_code', 'icmpv6_type',
                   'icmpv6_code', 'l2tpv3_sid')


def refusal_class(f, o, s, strict=False):
    """Class of a filter ours refuses and stock accepts: always our bug
    (no refusal is by design since series step 22), the port range and
    hash key's (issue 31) or any other; when ours does not refuse and
    stock does, None (unexplained), or in strict mode (stock-next) the
    declared 'stock-next-refuses'."""
    if strict and s['err'] and not o['err']:
        return 'stock-next-refuses'
    if not (o['err'] and not s['err']):
        return None
    if range_or_hash(f):
        return 'ours-refuses-range-hash'
    return 'ours-refuses-what-stock-takes'


def range_or_hash(f):
    """f has a port range key or the hash key."""
    return any(K.special(K.KEY[k[0]]) for k in f['keys'])


def mismatch_class(f, o):
    """Class of ours' answer differing from its model where both kernels
    answered alike (model_mismatch()): ours refusing a range or hash
    filter as an unsupported attribute where the model (stock's answer)
    is another refusal is the open bug of ours; anything else, None
    (unexplained)."""
    if o['err'] and range_or_hash(f) and \
            (o['msg'] or '').startswith(UNSUPPORTED_MSG) and \
            any(w in o['msg'] for w in ('_PORT_', '_HASH')):
        return 'ours-refuses-range-hash'
    return None


def model_mismatch(f, o):
    """How ours' answer to a filter differs from its model (gen.py's
    prediction), or None; a filter without a prediction has none.  A
    refusal must be the model's, errno and extack; an acceptance must
    carry one of the warnings the model gives (netlink carries the
    first), or none when it gives none."""
    if 'refusal' not in f:
        return None
    want = f['refusal']
    got = [o['err'], o['msg']] if o['err'] else None
    if (want and list(want[:2])) != got:
        return 'ours %s, its model predicts %s' % (
            'refuses (%d: %s)' % tuple(got) if got else 'accepts',
            'refusal (%d: %s)' % tuple(want[:2]) if want else 'acceptance')
    if got or 'warnings' not in f:
        return None
    ws, msg = f['warnings'], o['msg'] or ''
    if (msg in ws) if ws else not msg:
        return None
    return 'ours accepts with %s, its model predicts %s' % (
        'warning "%s"' % msg if msg else 'no warning',
        'a warning (%s)' % ' | '.join('"%s"' % w for w in ws) if ws
        else 'no warning')


def enc_families(f):
    """f has tunnel address keys of both families."""
    names = [k[0] for k in f['keys']]
    return any(n.startswith('enc_ipv4') for n in names) and \
        any(n.startswith('enc_ipv6') for n in names)


# the attributes a dump divergence of a declared class may have
_ETH_TYPES = {K.A[n] for n in ('KEY_ETH_TYPE', 'KEY_VLAN_ETH_TYPE',
                               'KEY_CVLAN_ETH_TYPE')}
_ZERO_DSTS = {K.A[n] for n in ('KEY_IPV4_DST', 'KEY_IPV4_DST_MASK',
                               'KEY_IPV6_DST', 'KEY_IPV6_DST_MASK',
                               'KEY_ENC_IPV4_DST', 'KEY_ENC_IPV4_DST_MASK',
                               'KEY_ENC_IPV6_DST', 'KEY_ENC_IPV6_DST_MASK')}
_ENC6_SRC = {K.A['KEY_ENC_IPV6_SRC'], K.A['KEY_ENC_IPV6_SRC_MASK']}
_IPV4 = {K.A[n] for n in ('KEY_IPV4_SRC', 'KEY_IPV4_SRC_MASK',
                          'KEY_IPV4_DST', 'KEY_IPV4_DST_MASK')}


def _has(f, prefix):
    return any(k[0].startswith(prefix) for k in f['keys'])


def dump_diff(od, sd):
    """(attributes ours dumps and stock does not, and the other way) of
    two sorted [[type, hex], ...] dumps, as lists of (type, hex)."""
    o = [tuple(x) for x in od or ()]
    s = [tuple(x) for x in sd or ()]
    return sorted(set(o) - set(s)), sorted(set(s) - set(o))


def dump_class(f, ours_only, stock_only):
    """Class of a filter whose dump differs between the kernels (both
    accepted it), or None: the PPPoE protocol, the zero-mask address
    family (both by design), stock's tunnel families, ours' rows of the
    other address family."""
    if 'ppp_ses' in (f['proto'], f['vlan_eth'], f['cvlan_eth']):
        # the ethertype attributes are the PPPoE difference; the rest
        # (if any) has a class of its own
        oo = [x for x in ours_only if x[0] not in _ETH_TYPES]
        so = [x for x in stock_only if x[0] not in _ETH_TYPES]
        if not oo and not so:
            return 'dump-pppoe-protocol'
        ours_only, stock_only = oo, so
    types = {t for t, _h in ours_only + stock_only}
    if ours_only and not stock_only and \
            all(t in _ZERO_DSTS and not int(h or '0', 16)
                for t, h in ours_only) and \
            any(k[0] in K.ZERO_MASK_ADDR_KEYS + K.ZERO_MASK_ENC_KEYS and
                not M.full_mask(K.KEY[k[0]], k[2]) for k in f['keys']):
        return 'dump-zero-mask-addr'
    if stock_only and not ours_only and enc_families(f) and \
            {t for t, _h in stock_only} <= _ENC6_SRC:
        return 'stock-enc-families'
    # the other family's rows, over the bytes its keys share
    if ours_only and not stock_only and (
            types <= _IPV4 and _has(f, 'ipv6_src') and
            not _has(f, 'ipv4_') or
            types <= _ENC6_SRC and _has(f, 'enc_ipv4_') and
            not _has(f, 'enc_ipv6_')):
        return 'ours-dump-other-family'
    return None


def addr_header(hexs):
    """The family (4 or 6) of the complete IP header the frame carries
    where the flow dissector reads addresses (after VLAN tags and a PPPoE
    session header), or None: IPv4 with version 4, IHL >= 5, the IHL's
    bytes present and a total length that holds them; IPv6 with version 6
    and its 40 bytes."""
    b = bytes.fromhex(hexs)
    off = 12
    et = struct.unpack_from('>H', b, off)[0] if len(b) >= off + 2 else None
    while et in K.VLAN_TPIDS and len(b) >= off + 6:
        off += 4
        et = struct.unpack_from('>H', b, off)[0]
    off += 2
    if et == K.PROTOS['ppp_ses'] and len(b) >= off + 8:
        et = uapi.PPP_CARRIED.get(struct.unpack_from('>H', b, off + 6)[0])
        off += 8
    if et == uapi.ETH_P['ip'] and len(b) >= off + 20:
        ihl = (b[off] & 0xf) * 4
        tot = struct.unpack_from('>H', b, off + 2)[0]
        if b[off] >> 4 == 4 and 20 <= ihl <= min(tot, len(b) - off):
            return 4
    if et == uapi.ETH_P['ipv6'] and len(b) >= off + 40 and b[off] >> 4 == 6:
        return 6
    return None


def first_fragment(spec):
    """The frame is an IP first fragment: IPv4 MF at offset 0, or an IPv6
    fragment header at offset 0 (flower/packets.py: frag 'first', or a
    'frag' extension header of a frame that is no fragment, an atomic
    one)."""
    ip = (spec or {}).get('ip')
    if not ip:
        return False
    frag = ip.get('frag', 'none')
    if ip.get('v') == 6 and frag == 'none':
        return 'frag' in ip.get('ext', ())
    return frag == 'first'


def seen_by(spec, f):
    """The frame filter f classifies: a tunnel filter the inner frame of a
    tunneled spec (its device decapsulated it), the others the frame on
    the wire (a tunneled frame's outer headers)."""
    if spec is None:
        return None
    return P.untunneled(spec) if f.get('dev') else P.wire(spec)


def ext_after_fragment(spec):
    """An IPv6 frame whose fragment header is followed by another
    extension header (flower/packets.py's order: ext as given, a
    fragment's own header last)."""
    ip = (spec or {}).get('ip') or {}
    ext = list(ip.get('ext', ()))
    if ip.get('v') != 6 or 'frag' not in ext:
        return False
    return ext.index('frag') < len(ext) - 1


# the next header a fragment header gives when an extension header of
# flower/packets.py's follows it
EXT_NEXTHDR = {'hbh': 0, 'rt': 43, 'dst': 60, 'frag': 44}


def dissected_ip(spec):
    """The flow dissector reaches spec's IP header: VLAN tags only, then
    the ethertype of its family (or a PPPoE session carrying it); and the
    frame is whole (no verdict on a cut frame is modelled)."""
    ip = spec.get('ip')
    if not ip or spec.get('trunc') is not None or \
            any(t[0] not in K.VLAN_TPIDS for t in spec.get('tags', ())):
        return False
    et = P.etype_of(spec)
    if spec.get('l3') == 'pppoe' and et == uapi.ETH_P['ppp_ses']:
        et = uapi.PPP_CARRIED.get((spec.get('pppoe') or {}).get('proto',
                                                                0x21))
    elif spec.get('l3') not in ('ipv4', 'ipv6'):
        return False
    return et == uapi.ETH_P['ip' if ip.get('v') == 4 else 'ipv6']


def l4_as_built(spec):
    """spec's L4 header is the one its IP protocol says (the packet
    model's L4 fields are what a kernel reads there)."""
    ip, l4 = spec['ip'], spec.get('l4') or {}
    kind = P.PROTO_L4.get(ip.get('proto', 17))
    return bool(kind) and kind == l4.get('kind') and \
        (kind, ip.get('v')) not in (('icmp', 6), ('icmp6', 4))


def kernel_views(seen):
    """(ours, stock): first fragment seen as each kernel reads it
    (frames.fragment_views()), or None when the flow dissector does not
    see a first fragment there.  Ours takes the L4 keys of its second
    pass only where it finds the first pass's ip_proto: not past an
    extension header after the IPv6 fragment header, whose next header
    is then both kernels' ip_proto."""
    if not (first_fragment(seen) and dissected_ip(seen)):
        return None
    after = ext_after_fragment(seen)
    ours, stock = F.fragment_views(seen, l4_as_built(seen) and not after)
    if after:
        ext = seen['ip']['ext']
        for view in (ours, stock):
            view['ip']['proto'] = EXT_NEXTHDR[ext[ext.index('frag') + 1]]
    return ours, stock


def ip_proto_kept(f):
    """f's ip_proto counts (its prerequisite, n_proto ip or ipv6, met):
    a probe key that needs IP is kept beside it (model.applied())."""
    if f.get('ip_proto') is None:
        return False
    probe = dict(f, keys=[k for k in f['keys'] if k[0] != 'ip_tos'] +
                 [['ip_tos', 0, 0xff]])
    return 'ip_tos' in M.applied(probe)


def fragment_match(f, view):
    """Whether filter f matches view (one kernel's reading of a first
    fragment) by the frame-field model: the keys it keeps
    (model.applied()) under their masks (frames.satisfies()), the
    ip_proto it keeps, an ICMP key's family.  The rest of its protocol
    shape (ethertype, tags) is not modelled: it reads the same in both
    views, and a kernel that counted the frame had it."""
    kept = M.applied(f)
    ip = view['ip']
    if ip_proto_kept(f) and ip.get('proto', 17) != f['ip_proto']:
        return False
    for prefix, v in (('icmpv4_', 4), ('icmpv6_', 6)):
        if any(n.startswith(prefix) for n in kept) and ip.get('v') != v:
            return False
    return F.satisfies(view, dict(f, keys=[k for k in f['keys']
                                           if k[0] in kept]))


def prio_of(batch, filters, ti):
    """Where filter ti sits: (chain, device, prio); runner.py's prio i+1
    without the batch's list."""
    prio = batch.get('prio')
    f = filters[ti]
    return f.get('chain', 0), f.get('dev'), prio[ti] if prio else ti + 1


def mask_of(f):
    """What makes f's mask (a prio's filters share one when it is the
    same): its kept keys' fields and masks, the protocol keys it has."""
    kept = M.applied(f)
    keys = frozenset(
        (k['field'], k['width'], k.get('range'), k.get('bound'),
         M.full_mask(k, m))
        for name, _v, m in f['keys'] if name in kept
        for k in (K.KEY[name],) if M.full_mask(k, m))
    return (M.eth_type(f) is not None, f.get('vlan_eth') is not None,
            f.get('cvlan_eth') is not None, ip_proto_kept(f), keys)


def tried_before(fi, filters, ov, sv, batch):
    """The filters of fi's prio (chain, device and prio; both kernels
    hold them) that a frame meets before fi: flower tries a prio's masks
    in the order they were first added (runner.py adds the filters in
    list order) and a mask's filters in the order they came; the first
    filter found counts the frame."""
    here = prio_of(batch, filters, fi)
    members = [ti for ti in range(len(filters)) if ti in ov and ti in sv
               and prio_of(batch, filters, ti) == here]
    if fi not in members:
        return []
    masks = [mask_of(filters[ti]) for ti in members]
    first = {}
    for m in masks:
        first.setdefault(m, len(first))
    rank = {ti: (first[m], ti) for ti, m in zip(members, masks)}
    return [ti for ti in members if rank[ti] < rank[fi]]


def first_fragment_class(fi, filters, ov, sv, batch, seen, spec=None):
    """'first-fragment-l4' when filter fi's divergence on the first
    fragment seen is the modelled one, else None.  The model: ours'
    reading of the frame and stock's (kernel_views()), each filter's
    verdict on each (fragment_match()).  Explained, on the kernel where
    fi counted the frame no older filter of its prio (tried_before())
    taking it by the model (one the model matches there that counted the
    frame on either kernel), when: (ours, stock) is fi's modelled pair
    and the two differ; or the model matches fi on both, and an older
    filter of its prio counted the frame on the kernel where fi did not
    and not on the other, that filter's (ours, stock) being its modelled
    pair.  spec: the packet's spec (a tunnel filter's keys read its
    tunnel)."""
    views = kernel_views(seen)
    if views is None or ov[fi] == sv[fi]:
        return None
    got = (ov, sv)
    preds = {}

    def pred(ti):
        if ti not in preds:
            f = filters[ti]
            vs = views
            if f.get('dev') and spec and spec.get('tun'):
                vs = [dict(v, tun=spec['tun']) for v in views]
            preds[ti] = tuple(int(fragment_match(f, v)) for v in vs)
        return preds[ti]

    def modelled(ti):
        p = pred(ti)
        return p[0] != p[1] and (ov[ti], sv[ti]) == p

    y = 0 if ov[fi] else 1              # the kernel where fi counted it
    older = tried_before(fi, filters, ov, sv, batch)
    if any(pred(g)[y] and (ov[g] or sv[g]) for g in older):
        return None
    if modelled(fi):
        return 'first-fragment-l4'
    if pred(fi) != (1, 1):
        return None
    x = 1 - y                           # the kernel where fi missed it
    if any(got[x][g] and not got[y][g] and modelled(g) for g in older):
        return 'first-fragment-l4'
    return None


def pair_class(bi, fi, pj, filters, ov, sv, batch=None):
    """Class of a (filter, frame) pair whose verdicts differ, or None.
    batch (its packets and prios) places the frame and the filter's
    prio."""
    f = filters[fi]
    o, s = ov[fi], sv[fi]
    spec = batch and batch['packets'][pj]['spec']
    seen = batch and seen_by(spec, f)
    if seen and first_fragment_class(fi, filters, ov, sv, batch, seen,
                                     spec):
        return 'first-fragment-l4'
    if o == 1 and s == 0 and batch is not None and \
            stock_zero_mask_enc(f, batch['packets'][pj]['spec']) and \
            twin_matches(fi, filters, ov, sv):
        return 'stock-zero-mask-enc-addr'
    if o == 1 and s == 0 and enc_families(f) and spec and \
            (spec.get('tun') or {}).get('v') == 6 and \
            twin_matches(fi, filters, ov, sv):
        return 'stock-enc-families'
    zk = [k for k in f['keys'] if k[0] in K.ZERO_MASK_ADDR_KEYS and k[2] == 0]
    # the stock bug only where the frame has an address of the key's
    # family: ours matching a frame without one would be our bug
    family = {4 if k[0].startswith('ipv4') else 6 for k in zk}
    if zk and o == 1 and s == 0 and batch is not None and \
            family == {addr_header(seen_hex(batch['packets'][pj], f))}:
        if twin_matches(fi, filters, ov, sv):
            return 'stock-zero-mask-addr'
    return None


def twin_matches(fi, filters, ov, sv):
    """A twin of filter fi (itself without its zero-mask keys, and
    without its IPv4 tunnel keys beside IPv6 ones) matched the frame on
    both kernels."""
    return any(ov.get(ti) == 1 and sv.get(ti) == 1
               for ti, t in enumerate(filters) if t.get('twin_of') == fi)


def stock_zero_mask_enc(f, spec):
    """f asks for a tunnel family through zero-mask tunnel address keys
    only (no tunnel address mask is non-zero: stock never dissects
    ENC_CONTROL), and spec came over a tunnel of that family."""
    enc = [(k[0], M.full_mask(K.KEY[k[0]], k[2])) for k in f['keys']
           if k[0] in K.ZERO_MASK_ENC_KEYS]
    if not enc or any(m for _n, m in enc):
        return False
    family = {4 if n.startswith('enc_ipv4') else 6 for n, _m in enc}
    return bool(spec and spec.get('tun')) and family == {spec['tun']['v']}


def seen_hex(p, f):
    """The bytes (hex) filter f classifies of packet p: a tunnel filter's
    the inner frame's."""
    if f.get('dev') and p['spec'] and p['spec'].get('tun'):
        return P.build(P.untunneled(p['spec']))[:1514].hex()
    return p['hex']


def class_title(c):
    # in words: the issues' (a) is stock's bugs, difftest's README's ours
    if c in DESIGN:
        return 'by design: ' + DESIGN[c][0]
    if c in STOCK_BUGS:
        return 'stock bug: ' + STOCK_BUGS[c][0]
    if c in OURS_BUGS:
        return 'our bug: ' + OURS_BUGS[c][0]
    if c in STRICT_DECLARED:
        return 'declared: ' + STRICT_DECLARED[c][0]
    return 'UNEXPLAINED'
