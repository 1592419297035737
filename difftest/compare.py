#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the verdict matrices of ours and stock, classify divergences.

Every divergence ends in exactly one class:
  (a) ours-bug     a bug in our flower (none is declared here: a rule is
                   added when the lead confirms one; until then it shows
                   as unexplained, which fails the run)
  (b) stock-bug    a documented bug of the 6.1 tree's flower
  (c) by-design    a declared difference (DESIGN table below)
A divergence no rule explains is "unexplained" and fails the run.

Two passes (difftest/difftest.mk):
  1. --shrink-out FILE: write candidate reductions (key subsets x packet
     simplifications) of up to a few divergences per class to FILE, a
     cases file the runner takes (empty if no divergence).
  2. --final [--shrink FILE]: pick, for each shrunk divergence, the
     smallest filter and frame that still diverge the same way, print
     every divergence with its class and the reproducers as tdc cases,
     write --doc, exit 1 if anything is unexplained.  Last line:
     "N passed, N failed" (N = compared verdicts / unexplained ones).
The report also fails (its last line "0 passed, N failed", N counting
each reason below and the unexplained divergences) when the run proves
nothing (run_problems): both result files come from one module (the same
srcversion of cls_flower, which runner.py records, or the same guest
variant; results without a srcversion are refused too), either kernel
accepted no filter, or fewer than --min-verdicts (default 1) verdicts
were compared.
"""
import argparse
import hashlib
import json
import os
import struct
import sys
import time

sys.dont_write_bytecode = True

from difftest import gen as G
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
        'protocol all, tcp ports under ip_proto udp, ip_proto under arp. '
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
# Bugs in ours the oracle found and that are still open (none).  Fixed:
# vlan_ethtype/cvlan_ethtype ppp_ses was not a PPPoE match (ours keyed on
# n_proto 0x8864, which the dissector replaces by the PPP payload's
# protocol); regression case in tc-tests/filters/flower/regressions.json.
OURS_BUGS = {}
# keys read from a first fragment's L4 header by ours only
FIRST_FRAG_KEYS = ('tcp_flags', 'icmpv4_type', 'icmpv4_code', 'icmpv6_type',
                   'icmpv6_code', 'l2tpv3_sid')


def load(path):
    with open(path) as fp:
        return json.load(fp)


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


def uncovered(cases, ours, stock):
    """Keys of keys.py in no filter both kernels accepted (under a
    non-zero mask): keys the run compared no verdict of."""
    seen = set()
    for b, ob, sb in zip(cases['batches'], ours['batches'], stock['batches']):
        for f, o, s in zip(b['filters'], ob['filters'], sb['filters']):
            if not o['err'] and not s['err']:
                seen.update(name for name, _v, m in f['keys']
                            if M.full_mask(K.KEY[name], m))
    return [k['name'] for k in K.KEYS if k['name'] not in seen]


def picked(b, ob, sb, pick):
    """Of a batch's filters that pick() selects: how many, and the results
    (ours, stock) of those both kernels accepted; the frames sent on
    both."""
    rows = [(o, s) for f, o, s in zip(b['filters'], ob['filters'],
                                      sb['filters']) if pick(f)]
    sent = [j for j, x in enumerate(ob['sent']) if x and sb['sent'][j]]
    return len(rows), [(o, s) for o, s in rows
                       if not o['err'] and not s['err']], sent


def both_match(acc, frames):
    return sum(o['bits'][j] == s['bits'][j] == '1'
               for o, s in acc for j in frames)


def tunnel_counts(cases, ours, stock):
    """Filters on a tunnel device, their verdicts compared, of them the
    matches on both kernels, and frames that reached a tunnel device on
    ours / stock."""
    n = verdicts = matches = 0
    reached = [0, 0]
    for b, ob, sb in zip(cases['batches'], ours['batches'], stock['batches']):
        for k, doc in enumerate((ob, sb)):
            reached[k] += sum(r.count('1') for r in
                              doc.get('reached_tunnel', {}).values())
        nb, acc, sent = picked(b, ob, sb, lambda f: f.get('dev'))
        n += nb
        verdicts += len(acc) * len(sent)
        matches += both_match(acc, sent)
    return n, verdicts, matches, reached


def ct_counts(cases, ours, stock):
    """Chain 1 (conntrack) filters, their verdicts compared, of them on
    the conntrack flows' frames, and those matches on both kernels; the
    flows' frames that reached chain 1 on both."""
    n = verdicts = flow_verdicts = matches = reached = 0
    for b, ob, sb in zip(cases['batches'], ours['batches'], stock['batches']):
        nb, acc, sent = picked(b, ob, sb, lambda f: f.get('chain'))
        flow = [j for j in sent if b['packets'][j].get('ct')]
        reached += sum(ob.get('reached_ct', '')[j:j + 1] ==
                       sb.get('reached_ct', '')[j:j + 1] == '1' for j in flow)
        n += nb
        verdicts += len(acc) * len(sent)
        flow_verdicts += len(acc) * len(flow)
        matches += both_match(acc, flow)
    return n, verdicts, flow_verdicts, matches, reached


def ct_expected(f, spec):
    """Whether chain 1 filter f matches a conntrack flow frame, as
    gen.py's model of the flow says (its spec's 'ct') and the filter's
    keys (protocol ip, ipv6 or all, an ip_proto, the ct keys) decide."""
    if f['proto'] != 'all' and spec['l3'] != {'ip': 'ipv4',
                                              'ipv6': 'ipv6'}[f['proto']]:
        return False
    if f['ip_proto'] is not None and spec['ip']['proto'] != f['ip_proto']:
        return False
    return all(not (P.get_field(spec, K.KEY[name]['field']) ^ v) &
               M.full_mask(K.KEY[name], m) for name, v, m in f['keys'])


def ct_model_misses(cases, ours, stock):
    """(batch, filter, frame, ours, stock) where a kernel's verdict of
    a chain 1 filter on a flow frame is not the model's: a wrong model
    (the flows' states, zone, mark, labels) aims no near miss right."""
    out = []
    for bi, (b, ob, sb) in enumerate(zip(cases['batches'], ours['batches'],
                                         stock['batches'])):
        for fi, f in enumerate(b['filters']):
            o, s = ob['filters'][fi], sb['filters'][fi]
            if not f.get('chain') or o['err'] or s['err']:
                continue
            for j, p in enumerate(b['packets']):
                if p.get('ct') and ob['sent'][j] and sb['sent'][j] and \
                        not o['bits'][j] == s['bits'][j] == \
                        str(int(ct_expected(f, p['spec']))):
                    out.append((bi, fi, j, o['bits'][j], s['bits'][j]))
    return out


def run_problems(ours, stock, compared, min_verdicts, cases=None):
    """Why a comparison of these two result files proves nothing, as lines
    (none: it counts).  cases: also every key must have been compared."""
    problems = []
    ids = [doc.get('srcversion') for doc in (ours, stock)]
    if not all(ids):
        problems.append('no cls_flower srcversion in the %s results: cannot '
                        'tell the modules apart' % ' and '.join(
                            v for v, i in zip(('ours', 'stock'), ids)
                            if not i))
    elif ids[0] == ids[1]:
        problems.append('ours and stock results come from the same module '
                        '(cls_flower srcversion %s)' % ids[0])
    if ours.get('variant') == stock.get('variant') and \
            ours.get('variant') not in (None, '?'):
        problems.append('ours and stock results come from the same guest '
                        'variant (%s)' % ours['variant'])
    for v, doc in (('ours', ours), ('stock', stock)):
        if not any(not f['err'] for b in doc['batches'] for f in b['filters']):
            problems.append('%s accepted no filter' % v)
    if compared < min_verdicts:
        problems.append('%d verdicts compared, fewer than the %d asked '
                        '(--min-verdicts)' % (compared, min_verdicts))
    for bi, fi, j, o, s in (ct_model_misses(cases, ours, stock)
                            if cases else [])[:10]:
        b = cases['batches'][bi]
        problems.append('conntrack model: batch %d filter %d (%s) on flow '
                        'frame %d (%s, modelled %s): ours %s, stock %s' % (
                            bi, fi, b['filters'][fi]['desc'], j,
                            b['packets'][j]['kind'],
                            b['packets'][j]['spec']['ct'], o, s))
    missing = uncovered(cases, ours, stock) if cases else []
    if missing:
        problems.append('no filter both kernels accepted has key %s '
                        '(--cover)' % ', '.join(missing))
    return problems


def analyse(cases, ours, stock):
    """-> (compared verdicts, [divergence dicts])"""
    divs = []
    compared = 0
    for bi, (b, ob, sb) in enumerate(zip(cases['batches'], ours['batches'],
                                         stock['batches'])):
        filters = b['filters']
        reached = [('tc', ob['reached'], sb['reached'])] + [
            ('the %s device' % d, ob.get('reached_tunnel', {}).get(d, ''),
             sb.get('reached_tunnel', {}).get(d, ''))
            for d in sorted(set(ob.get('reached_tunnel', {})) |
                            set(sb.get('reached_tunnel', {})))] + [
            ('chain 1 (the ct action)', ob.get('reached_ct', ''),
             sb.get('reached_ct', ''))]
        for where, ours_r, stock_r in reached:
            if ours_r == stock_r:
                continue
            for j, (x, y) in enumerate(zip(ours_r.ljust(len(stock_r), '-'),
                                           stock_r.ljust(len(ours_r), '-'))):
                if x != y:
                    divs.append(dict(batch=bi, filter=None, packet=j,
                                     cls=None, what='frame reached %s on one '
                                     'kernel only (ours %s, stock %s)'
                                     % (where, x, y)))
        sent = [i for i, x in enumerate(ob['sent']) if x and sb['sent'][i]]
        for fi, f in enumerate(filters):
            o, s = ob['filters'][fi], sb['filters'][fi]
            if bool(o['err']) != bool(s['err']):
                c = refusal_class(f, o, s)
                divs.append(dict(batch=bi, filter=fi, packet=None, cls=c,
                                 what='ours %s, stock %s' % (
                                     'refuses (%d: %s)' % (o['err'], o['msg'])
                                     if o['err'] else 'accepts',
                                     'refuses (%d: %s)' % (s['err'], s['msg'])
                                     if s['err'] else 'accepts')))
                continue
            miss = model_mismatch(f, o)
            if miss:
                divs.append(dict(batch=bi, filter=fi, packet=None, cls=None,
                                 what=miss, model=f['refusal']))
            if o['err']:
                continue
            compared += len(sent)
            if o['bits'] == s['bits']:
                continue
            for j in sent:
                if o['bits'][j] != s['bits'][j]:
                    ov = {ti: int(ob['filters'][ti]['bits'][j])
                          for ti in range(len(filters)) if ob['filters'][ti]['bits']}
                    sv = {ti: int(sb['filters'][ti]['bits'][j])
                          for ti in range(len(filters)) if sb['filters'][ti]['bits']}
                    c = pair_class(bi, fi, j, filters, ov, sv, b)
                    divs.append(dict(batch=bi, filter=fi, packet=j, cls=c,
                                     ours=ov[fi], stock=sv[fi],
                                     what='ours %s, stock %s' % (
                                         'matches' if ov[fi] else 'misses',
                                         'matches' if sv[fi] else 'misses')))
    return compared, divs


# --- shrinking --------------------------------------------------------------
def simplify_variants(spec):
    """(name, spec) of single simplifications of a frame."""
    out = [('as is', spec)]

    def v(name, fn):
        t = P.clone(spec)
        try:
            if fn(t) is not False:
                out.append((name, t))
        except (KeyError, TypeError, AttributeError, IndexError):
            pass
    if spec.get('pad'):
        v('no padding', lambda t: t.__setitem__('pad', 0))
    if spec.get('trunc') is not None:
        v('not truncated', lambda t: t.__setitem__('trunc', None))
    if spec.get('ip'):
        if spec['ip'].get('opts'):
            v('no IPv4 options', lambda t: t['ip'].__setitem__('opts', ''))
        if spec['ip'].get('ext'):
            v('no IPv6 ext headers', lambda t: t['ip'].__setitem__('ext', []))
        if spec['ip'].get('frag', 'none') != 'none':
            v('not a fragment', lambda t: t['ip'].__setitem__('frag', 'none'))
        v('tos/ttl defaults', lambda t: t['ip'].update(tos=0, ttl=64))
    if spec.get('inner') is not None:
        v('no inner packet', lambda t: t.__setitem__('inner', None))
    if spec.get('tun'):
        v('tunnel tos/ttl defaults', lambda t: t['tun'].update(tos=0, ttl=64))
    if len(spec.get('tags', [])) > 1:
        v('one tag less', lambda t: t['tags'].pop())
    v('plain MACs', lambda t: t.update(dst=0x020000000001, src=0x020000000002))
    return out


def key_subsets(f):
    keys = f['keys']
    n = len(keys)
    subs = []
    for m in range(1 << n):
        if n > 6 and bin(m).count('1') < n - 2 and m:
            continue
        subs.append([keys[i] for i in range(n) if m >> i & 1])
    subs.sort(key=len)
    return subs


def pick_reps(divs, per_class=3, unexplained=12):
    seen, reps = {}, []
    for d in divs:
        if d['filter'] is None:
            continue
        c = d['cls'] or 'UNEXPLAINED'
        lim = unexplained if c == 'UNEXPLAINED' else per_class
        key = (c, d['batch'], d['filter'])
        if any(r[0] == key for r in reps):
            continue
        if seen.get(c, 0) >= lim:
            continue
        seen[c] = seen.get(c, 0) + 1
        reps.append((key, d))
    return [d for _, d in reps]


def shrink_cases(cases, reps, seed):
    """One cases file: per rep, filter key subsets x frame variants."""
    batches, index = [], []
    cur = dict(filters=[], packets=[])
    for ri, d in enumerate(reps):
        b = cases['batches'][d['batch']]
        f = b['filters'][d['filter']]
        subs = key_subsets(f)
        pk = simplify_variants(b['packets'][d['packet']]['spec']) \
            if d['packet'] is not None else []
        if len(cur['filters']) + len(subs) > 300 and cur['filters']:
            batches.append(cur)
            cur = dict(filters=[], packets=[])
        fidx, pidx = [], []
        for sub in subs:
            g = dict(f, keys=sub)
            g.pop('twin_of', None)
            g['attrs'] = G.encode_filter(g)
            g['desc'] = G.describe(g)
            g['refusal'] = M.predict_refusal(g)
            fidx.append(len(cur['filters']))
            cur['filters'].append(g)
        for name, spec in pk:
            b_ = P.build(spec)
            pidx.append(len(cur['packets']))
            cur['packets'].append(dict(owner=None, kind='shrink:' + name,
                                       spec=spec, hex=b_[:1514].hex(),
                                       tunnel=G.tunnel_reach(spec)))
        index.append(dict(rep=ri, batch=len(batches), filters=fidx,
                          packets=pidx))
    if cur['filters']:
        batches.append(cur)
    if not cur['packets'] and batches:
        # the runner needs at least one frame per batch
        for bb in batches:
            if not bb['packets']:
                bb['packets'].append(dict(owner=None, kind='filler',
                                          spec=None, hex=(b'\xff' * 14).hex()))
    for bb in batches:
        if not bb['packets']:
            bb['packets'].append(dict(owner=None, kind='filler', spec=None,
                                      hex=(b'\xff' * 14).hex()))
    return dict(seed=seed, rx=cases['rx'], tx=cases['tx'], batches=batches,
                reps=reps, index=index, tunnel=cases.get('tunnel'))


def shrink_pick(sh, so, ss):
    """For each rep, the smallest (filter, frame) still diverging alike."""
    out = []
    for ent in sh['index']:
        d = sh['reps'][ent['rep']]
        b = sh['batches'][ent['batch']]
        ob, sb = so['batches'][ent['batch']], ss['batches'][ent['batch']]
        best = None
        for fi in ent['filters']:
            o, s = ob['filters'][fi], sb['filters'][fi]
            f = b['filters'][fi]
            if d['packet'] is None:
                if bool(o['err']) != bool(s['err']) and \
                        refusal_class(f, o, s) == d['cls']:
                    cand = (len(f['keys']), 0, fi, None)
                    best = min(best, cand) if best else cand
                continue
            if o['err'] or s['err']:
                continue
            for pj in ent['packets']:
                if o['bits'][pj] == str(d['ours']) and \
                        s['bits'][pj] == str(d['stock']):
                    cand = (len(f['keys']), len(b['packets'][pj]['hex']), fi, pj)
                    best = min(best, cand) if best else cand
        if best:
            _, _, fi, pj = best
            out.append(dict(d, min_filter=b['filters'][fi],
                            min_packet=b['packets'][pj] if pj is not None else None,
                            min_errs=(ob['filters'][fi], sb['filters'][fi])))
        else:
            out.append(dict(d, min_filter=None, min_packet=None))
    return out


# --- tdc output ---------------------------------------------------------------
def tdc_dev(f):
    """(setup, the device of the filter, teardown) of a tdc case: $DEV1,
    or for a tunnel filter its collect_md device, to which $DEV1 (the
    scapy frames' receiver) hands the tunnel frames, as runner.py sets it
    up."""
    if not f.get('dev'):
        return (['$TC qdisc add dev $DEV1 ingress'], '$DEV1',
                ['$TC qdisc del dev $DEV1 ingress'])
    t = G.tunnel_setup()
    dev = t['devs'][f['dev']]
    return (['$IP link set $DEV1 address ' + t['mac'],
             '$IP route add local %s dev $DEV1' % t['net4'],
             '$IP -6 route add local %s dev $DEV1' % t['net6'],
             '$IP ' + t['links'][f['dev']],
             '$IP link set %s up' % dev, '$TC qdisc add dev %s ingress' % dev],
            dev, ['$IP link del %s' % dev])


def flnl_cmd(f, dev='$DEV1'):
    parts = ['$FLNL add --dev %s --parent ingress --prio 1 --handle 1' % dev,
             '--protocol', '0x%04x' % K.PROTOS[f['proto']]]
    for t, h in f['attrs']:
        if t == K.A['INDEV'] and bytes.fromhex(h).rstrip(b'\0').decode() == G.RX_DEV:
            parts.append('--attr indev=$DEV1')
        else:
            parts.append('--raw %s=%s' % (K.NAME[t], h))
    parts.append('--action drop')   # counts like pass; flowernl maps ok->pass, which pyroute2 lacks
    return ' '.join(parts)


def tdc_case(r, seed):
    f = r['min_filter'] or r['filter_obj']
    p = r['min_packet'] if r['min_filter'] else r.get('packet_obj')
    cls = r['cls'] or 'UNEXPLAINED'
    setup, dev, teardown = tdc_dev(f)
    h = hashlib.sha1(('%s|%s|%s' % (seed, f['desc'], p and p['hex'])).encode())
    case = dict(
        id=h.hexdigest()[:4],
        name='difftest seed %s: %s: %s%s' % (
            seed, class_title(cls), f['desc'],
            (' vs frame %s' % p['kind']) if p else ''),
        category=['filter', 'flower', 'difftest'] + (['packets', 'scapy'] if p else []),
        plugins=dict(requires=['nsPlugin'] + (['scapyPlugin'] if p else [])),
        setup=setup,
        cmdUnderTest=flnl_cmd(f, dev),
        teardown=teardown,
    )
    if p is None:
        # the correct outcome: stock's for (a) and unexplained, else ours'
        o, st = r.get('min_errs') or ({}, {})
        want = st if cls in OURS_BUGS or cls == 'UNEXPLAINED' else o
        if 'model' in r:        # ours unlike its model: the model's answer
            want = dict(err=r['model'][0]) if r['model'] else {}
        case['expExitCode'] = str(want.get('err', 0))
        case['verifyCmd'] = '$TC filter show dev %s ingress' % dev
        case['matchPattern'] = 'flower'
        case['matchCount'] = '0' if want.get('err') else '1'
    else:
        # expected: the correct verdict: stock's for (a), ours' otherwise
        want = r['stock'] if cls in OURS_BUGS or cls == 'UNEXPLAINED' else r['ours']
        case['expExitCode'] = '0'
        case['scapy'] = [dict(iface='$DEV0', count=1,
                              packet="Ether(bytes.fromhex('%s'))" % p['hex'])]
        case['verifyCmd'] = '$TC -s -j filter show dev %s ingress' % dev
        case['matchJSON'] = [{}, {'options': {'actions': [
            {'stats': {'packets': want}}]}}]
    return case


def corpus_ids():
    ids = set()
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'tc-tests')
    for d, _, files in os.walk(root):
        for fn in files:
            if fn.endswith('.json'):
                try:
                    ids.update(c.get('id') for c in load(os.path.join(d, fn)))
                except (ValueError, AttributeError, TypeError):
                    pass
    return ids


def frame_summary(hexs):
    try:
        from scapy.all import Ether   # noqa: F401  (host only, once)
        return Ether(bytes.fromhex(hexs)).summary()
    except Exception:                   # noqa: BLE001
        return '%d bytes' % (len(hexs) // 2)


# --- report -------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cases', required=True)
    ap.add_argument('--ours', required=True)
    ap.add_argument('--stock', required=True)
    ap.add_argument('--shrink-out')
    ap.add_argument('--shrink')
    ap.add_argument('--tdc-out')
    ap.add_argument('--doc')
    ap.add_argument('--wall', type=int)
    ap.add_argument('--final', action='store_true')
    ap.add_argument('--cover', action='store_true',
                    help='fail unless every key of keys.py is in a filter '
                    'both kernels accepted')
    ap.add_argument('--min-verdicts', type=int, default=1, metavar='N',
                    help='fail unless at least N verdicts were compared '
                    '(default 1)')
    a = ap.parse_args()
    cases, ours, stock = load(a.cases), load(a.ours), load(a.stock)
    compared, divs = analyse(cases, ours, stock)
    seed = cases['seed']
    if a.shrink_out:
        # a chain 1 (ct) filter's divergence needs its flow before it and
        # the ct action: the shrinker's lone frames have neither
        reps = pick_reps([d for d in divs if d['filter'] is None or not
                          cases['batches'][d['batch']]['filters']
                          [d['filter']].get('chain')])
        if reps:
            doc = shrink_cases(cases, reps, seed)
            with open(a.shrink_out, 'w') as fp:
                json.dump(doc, fp)
            print('difftest: %d divergences, %d to shrink' % (len(divs), len(reps)))
        else:
            open(a.shrink_out, 'w').close()
        if not a.final:
            return 0
    shrunk = []
    if a.shrink:
        sh = load(a.shrink)
        base = a.shrink[:-len('.json')]
        shrunk = shrink_pick(sh, load(base + '-ours.json'), load(base + '-stock.json'))
    now = {(d['batch'], d['filter'], d['packet']): d['cls'] for d in divs}
    for r in shrunk:
        r['cls'] = now.get((r['batch'], r['filter'], r['packet']), r['cls'])
        b = cases['batches'][r['batch']]
        r['filter_obj'] = b['filters'][r['filter']]
        r['packet_obj'] = b['packets'][r['packet']] if r['packet'] is not None else None

    # --- print every divergence with its class (grouped by filter) ---
    by_class = {}
    lines = []
    groups = {}
    for d in divs:
        c = d['cls'] or 'UNEXPLAINED'
        by_class[c] = by_class.get(c, 0) + 1
        groups.setdefault((c, d['batch'], d['filter'], d['what']), []).append(d['packet'])
    for (c, bi, fi, what), pkts in sorted(groups.items(), key=lambda x: (x[0][0], x[0][1], x[0][2] or 0)):
        desc = cases['batches'][bi]['filters'][fi]['desc'] if fi is not None else '-'
        pk = [p for p in pkts if p is not None]
        lines.append('divergence [%s] batch %d filter %s: %s: %s%s' % (
            class_title(c), bi, fi, desc, what,
            (' on %d frame(s): %s' % (len(pk), ' '.join(
                '%d(%s)' % (p, cases['batches'][bi]['packets'][p]['kind'])
                for p in pk[:6]) + (' ...' if len(pk) > 6 else ''))) if pk else ''))
    for ln in lines:
        print(ln)
    tdc = [tdc_case(r, seed) for r in shrunk]
    # ids must stay unique over the corpus: rehash on a collision
    used = corpus_ids()
    for case in tdc:
        while case['id'] in used:
            case['id'] = hashlib.sha1(case['id'].encode()).hexdigest()[:4]
        used.add(case['id'])
    if a.tdc_out:
        with open(a.tdc_out, 'w') as fp:
            json.dump(tdc, fp, indent=4)
    for r, case in zip(shrunk, tdc):
        print('reproducer [%s] (shrunk from batch %d filter %d%s):' % (
            class_title(r['cls'] or 'UNEXPLAINED'), r['batch'], r['filter'],
            '' if r['packet'] is None else ' frame %d' % r['packet']))
        print(json.dumps(case, indent=4))
    unexplained = by_class.get('UNEXPLAINED', 0)
    nv = {v: sum(len(b['packets']) * len(b['filters']) for b in cases['batches'])
          for v in ('ours', 'stock')}
    print('difftest: seed %s: %d filters, %d frames, %d (filter, frame) pairs '
          'per kernel; %d verdicts compared (both kernels accepted the filter)'
          % (seed, sum(len(b['filters']) for b in cases['batches']),
             sum(len(b['packets']) for b in cases['batches']), nv['ours'], compared))
    for v, doc in (('ours', ours), ('stock', stock)):
        ts = sum(b['t_send'] for b in doc['batches'])
        print('difftest: %s (%s): runner %.1f s, send+read %.1f s = %.3f s per '
              '1,000 verdicts' % (v, doc['kernel'], doc['seconds'], ts,
                                  1000 * doc['seconds'] / max(1, nv[v])))
    tn, tv, tm, tr = tunnel_counts(cases, ours, stock)
    print('difftest: tunnel devices: %d filters, %d verdicts compared (%d '
          'matches on both kernels); frames decapsulated to them: ours %d, '
          'stock %d' % (tn, tv, tm, tr[0], tr[1]))
    cn, cv, cf, cm, cr = ct_counts(cases, ours, stock)
    print('difftest: conntrack (chain 1): %d filters, %d verdicts compared, '
          '%d of them on the flows\' frames (%d matches on both kernels); '
          'flow frames that reached chain 1 on both: %d'
          % (cn, cv, cf, cm, cr))
    missing = uncovered(cases, ours, stock)
    print('difftest: keys in a filter both kernels accepted: %d of %d%s' % (
        len(K.KEYS) - len(missing), len(K.KEYS),
        ' (none has %s)' % ', '.join(missing) if missing else ''))
    print('difftest: divergences by class: ' + (', '.join(
        '%s %d' % (class_title(c), n) for c, n in sorted(by_class.items())) or 'none'))
    problems = run_problems(ours, stock, compared, a.min_verdicts,
                            cases if a.cover else None)
    if a.doc and not problems:
        write_doc(a.doc, cases, ours, stock, compared, nv, divs, by_class,
                  lines, shrunk, tdc, a.wall)
    for line in problems:
        print('difftest: FAIL: ' + line)
    if problems:
        if a.doc:
            print('difftest: %s not written' % a.doc)
        print('0 passed, %d failed' % (unexplained + len(problems)))
        return 1
    print('%d passed, %d failed' % (compared - unexplained, unexplained))
    return 1 if unexplained else 0


def write_doc(path, cases, ours, stock, compared, nv, divs, by_class, lines,
              shrunk, tdc, wall):
    w = []
    seed = cases['seed']
    w.append('# Differential oracle: ours vs the 6.1 tree\'s flower\n')
    w.append('Written by `make difftest` (difftest/difftest.mk, '
             'difftest/README.md) from one run: seed %s, %s.\n'
             % (seed, time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())))
    w.append('## Run\n')
    w.append('| | ours | stock |\n|---|---|---|')
    w.append('| kernel | %s | %s (pristine cls_flower.ko) |' % (ours['kernel'], stock['kernel']))
    w.append('| filters x frames (pairs) | %d | %d |' % (nv['ours'], nv['stock']))
    w.append('| filters accepted | %d | %d |' % tuple(
        sum(1 for b in d['batches'] for f in b['filters'] if not f['err'])
        for d in (ours, stock)))
    w.append('| runner seconds (in guest) | %.1f | %.1f |' % (ours['seconds'], stock['seconds']))
    w.append('| seconds per 1,000 verdicts (runner) | %.3f | %.3f |' % (
        1000 * ours['seconds'] / max(1, nv['ours']),
        1000 * stock['seconds'] / max(1, nv['stock'])))
    w.append('')
    w.append('Verdicts compared (pairs whose filter both kernels accepted): '
             '**%d**.  Whole `make difftest` wall time (generation, two '
             'boots, shrinking, two more boots, report): %s s.\n'
             % (compared, wall if wall is not None else '?'))
    tn, tv, tm, _tr = tunnel_counts(cases, ours, stock)
    cn, cv, cf, cm, _cr = ct_counts(cases, ours, stock)
    w.append('Of them on tunnel devices: %d filters, %d verdicts (%d matches '
             'on both); behind the ct action (chain 1): %d filters, %d '
             'verdicts, %d on the conntrack flows\' frames (%d matches on '
             'both).\n' % (tn, tv, tm, cn, cv, cf, cm))
    w.append('## Divergences by class\n')
    w.append('| class | divergences |\n|---|---|')
    for c, n in sorted(by_class.items()):
        w.append('| %s | %d |' % (class_title(c), n))
    if not by_class:
        w.append('| none | 0 |')
    w.append('\nA refused filter counts once; a (filter, frame) pair once.\n')
    for title, head, table in (
            ('## Declared differences (by design)\n', 'class | reason',
             DESIGN),
            ('\n## Known stock bugs\n', 'bug | what', STOCK_BUGS),
            ('\n## Bugs in ours found by the oracle\n', 'bug | what',
             OURS_BUGS)):
        w.append(title)
        w.append('| %s |\n|---|---|' % head)
        w.extend('| %s | %s |' % row for row in table.values())
    w.append('\n## Every divergence, grouped by filter\n')
    w.append('```')
    w.extend(lines[:400])
    if len(lines) > 400:
        w.append('... %d more lines' % (len(lines) - 400))
    w.append('```\n')
    w.append('## Reproducers (shrunk, upstream tdc format)\n')
    for r, case in zip(shrunk, tdc):
        p = r['min_packet'] if r['min_filter'] else r.get('packet_obj')
        w.append('### %s\n' % class_title(r['cls'] or 'UNEXPLAINED'))
        w.append('Filter: `%s`' % (r['min_filter'] or r['filter_obj'])['desc'])
        if p:
            w.append('; frame: `%s` (%s)' % (frame_summary(p['hex']), p['kind']))
        w.append('\n```json\n%s\n```\n' % json.dumps(case, indent=4))
    with open(path, 'w') as fp:
        fp.write('\n'.join(w) + '\n')


if __name__ == '__main__':
    sys.exit(main())
