# SPDX-License-Identifier: GPL-2.0
"""The classes of a divergence for compare.py: the declared differences
(DESIGN), stock's and ours' bugs, and the rules that put a (filter, frame)
pair in one of them (pair_class()).
"""
import struct

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
        'Ours dissects a first fragment (IPv4 MF at offset 0, an IPv6 '
        'fragment header at offset 0) down to its L4 header, so its ICMP '
        'type and code, TCP flags and L2TPv3 session are keys, as Open '
        'vSwitch\'s datapath reads them ("frag=first,icmp(type=8)" flows); '
        'stock stops at the fragment and leaves them zero.  After an IPv6 '
        'fragment header followed by another extension header, ours\' '
        'ip_proto is the protocol after that one, stock\'s the fragment '
        'header\'s next header.  Ports stay '
        'unread in any fragment on both.  A filter of the same prio can '
        'differ with it: the first filter found wins.'),
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
# ours' refusal of the attributes it did not implement (the prefix of
# fl_unsupported_msg()'s extack)
UNSUPPORTED_MSG = 'Unsupported flower attribute TCA_FLOWER_KEY_'
# keys read from a first fragment's L4 header by ours only
FIRST_FRAG_KEYS = ('tcp_flags', 'icmpv4_type', 'icmpv4_code', 'icmpv6_type',
                   'icmpv6_code', 'l2tpv3_sid')


def refusal_class(f, o, s):
    """Class of a filter ours refuses and stock accepts: always our bug
    (no refusal is by design since series step 22), the port range and
    hash key's (issue 31) or any other; None when ours does not refuse
    and stock does (unexplained)."""
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


def reads_first_fragment(f, spec=None):
    """f has a key ours reads from a first fragment and stock does not:
    an L4 key, or ip_proto when another extension header follows the
    IPv6 fragment header of spec (ours goes on to the protocol after it,
    FLOW_DISSECTOR_F_PARSE_1ST_FRAG; stock's ip_proto is the fragment
    header's next header)."""
    return any(k[0] in FIRST_FRAG_KEYS for k in f['keys']) or (
        f.get('ip_proto') is not None and ext_after_fragment(spec))


def pair_class(bi, fi, pj, filters, ov, sv, batch=None):
    """Class of a (filter, frame) pair whose verdicts differ, or None.
    batch (its packets and prios) places the frame and the filter's
    prio."""
    f = filters[fi]
    o, s = ov[fi], sv[fi]
    seen = batch and seen_by(batch['packets'][pj]['spec'], f)
    if seen and first_fragment(seen):
        # a prio is on one device: its filters see the same frame
        prio = batch.get('prio')
        same = [ti for ti in ov if ti in sv and ov[ti] != sv[ti] and
                (ti == fi or (prio and prio[ti] == prio[fi]))]
        if any(reads_first_fragment(filters[ti], seen) for ti in same):
            return 'first-fragment-l4'
    if o == 1 and s == 0 and batch is not None and \
            stock_zero_mask_enc(f, batch['packets'][pj]['spec']) and \
            twin_matches(fi, filters, ov, sv):
        return 'stock-zero-mask-enc-addr'
    spec = batch and batch['packets'][pj]['spec']
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
    return 'UNEXPLAINED'
