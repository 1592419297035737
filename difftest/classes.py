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
# A refusal is one of them only when gen.predict_refusal() predicted it for
# the filter, errno and extack exactly, with that class (refusal_class()).
DESIGN = {
    'refused-prerequisite': (
        'refused key (by design): key without its protocol prerequisite',
        'Ours refuses a key whose protocol / ip_proto prerequisite the '
        'filter does not give ("Key requires ..."), e.g. dst_ip under '
        'protocol all, tcp ports under ip_proto udp, ip_proto under arp, '
        'a port range outside tcp, udp and sctp ("Key requires ip_proto '
        'tcp, udp or sctp"; issue 31 lets it go for now). '
        'Stock accepts such a filter and silently ignores the key (ports, '
        'ip_proto, ip_tos/ttl outside IP) or keeps it (IPv4/IPv6 '
        'addresses under protocol all), which is a rule that matches '
        'more, or differently, than it reads.'),
    'refused-range': (
        'refused value (by design): out of range',
        'Ours refuses a vlan_id above 4095 / vlan_prio above 7 (stock '
        'silently masks the value, vlan_id & 0xfff, so the filter matches '
        'another VLAN than the one written) and a tcp_flags mask with bits '
        'above 0xfff ("TCP flags mask has bits above 0xfff, which no '
        'packet sets"; stock accepts it, and never matches when the key '
        'has such a bit).'),
    'refused-flag-bits': (
        'refused value (by design): unknown ip_flags bits',
        'Ours refuses an ip_flags key or mask with bits other than frag '
        'and firstfrag ("Unsupported flower key flags ..."); stock keeps '
        'the known bits and silently drops the others, so the filter '
        'matches more than written.'),
    'first-fragment-l4': (
        'first fragment (by design): ours reads its L4 header',
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
}
STOCK_BUGS = {
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
    'ours-refuses-range-hash': (
        'ours refuses a port range or the hash key',
        'Ours refuses a filter with port range keys '
        '(TCA_FLOWER_KEY_PORT_{DST,SRC}_{MIN,MAX}) or the hash key '
        '(TCA_FLOWER_KEY_HASH) that stock accepts, or refuses such a '
        'filter with another answer than stock\'s ("Unsupported flower '
        'attribute ..." where stock says "Both min and max destination '
        'ports must be specified").  Issue 31: ours takes both with '
        'stock 6.1\'s semantics; only a range without its tcp / udp / '
        'sctp prerequisite stays a declared refusal '
        '(refused-prerequisite).'),
}
# ours' refusal of the attributes it did not implement (the prefix of
# fl_unsupported_msg()'s extack)
UNSUPPORTED_MSG = 'Unsupported flower attribute TCA_FLOWER_KEY_'
# keys read from a first fragment's L4 header by ours only
FIRST_FRAG_KEYS = ('tcp_flags', 'icmpv4_type', 'icmpv4_code', 'icmpv6_type',
                   'icmpv6_code', 'l2tpv3_sid')


def refusal_class(f, o, s):
    """Class of a filter ours refuses and stock accepts: the declared
    difference gen.py's model predicted for it (f['refusal']: errno,
    extack, class), when ours refused it with exactly that errno and
    extack; else None (unexplained).  The kernel's message alone never
    makes a refusal by design: a valid vlan_id refused with "VLAN id must
    be below 4096" is our bug."""
    want = f.get('refusal')
    if o['err'] and not s['err'] and want and want[2] in DESIGN and \
            [o['err'], o['msg']] == list(want[:2]):
        return want[2]
    if o['err'] and not s['err'] and range_or_hash(f):
        return 'ours-refuses-range-hash'
    return None


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
    prediction), or None; a filter without a prediction has none."""
    if 'refusal' not in f:
        return None
    want = f['refusal']
    got = [o['err'], o['msg']] if o['err'] else None
    if (want and list(want[:2])) == got:
        return None
    return 'ours %s, its model predicts %s' % (
        'refuses (%d: %s)' % tuple(got) if got else 'accepts',
        'refusal (%d: %s)' % tuple(want[:2]) if want else 'acceptance')


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
    """A twin of filter fi (itself without its zero-mask keys) matched
    the frame on both kernels."""
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
    if c in DESIGN:
        return '(c) ' + DESIGN[c][0]
    if c in STOCK_BUGS:
        return '(b) ' + STOCK_BUGS[c][0]
    if c in OURS_BUGS:
        return '(a) ' + OURS_BUGS[c][0]
    return 'UNEXPLAINED'
