# SPDX-License-Identifier: GPL-2.0
"""Reading compare.py's result files, and the checks of what a run proves:
keys covered, tunnel and conntrack verdicts, the conntrack model
(ct_expected()), run_problems().
"""
import json

from difftest import model as M
from difftest import keys as K
from flower import packets as P
from flower.report import module_problems
from difftest.classes import STRICT_VARIANTS


def load(path):
    with open(path) as fp:
        return json.load(fp)


def uncovered(cases, ours, stock):
    """Keys of keys.py in no filter both kernels accepted (under a
    non-zero mask, and kept: their prerequisite met, model.applied()):
    keys the run compared no verdict of."""
    seen = set()
    for b, ob, sb in zip(cases['batches'], ours['batches'], stock['batches']):
        for f, o, s in zip(b['filters'], ob['filters'], sb['filters']):
            if not o['err'] and not s['err']:
                kept = M.applied(f)
                seen.update(name for name, _v, m in f['keys']
                            if name in kept and
                            M.full_mask(K.KEY[name], m))
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


def dump_counts(cases, ours, stock):
    """Filters both kernels accepted whose dumps were compared, and of
    them the lenient requests'."""
    n = nl = 0
    for b, ob, sb in zip(cases['batches'], ours['batches'], stock['batches']):
        for f, o, s in zip(b['filters'], ob['filters'], sb['filters']):
            if not o['err'] and not s['err'] and 'dump' in o and 'dump' in s:
                n += 1
                nl += bool(f.get('lenient'))
    return n, nl


def lenient_counts(cases, ours, stock):
    """Lenient requests (twins not counted): how many, accepted by stock,
    by ours, and by ours with the warning its model gives (or none where
    it gives none: IPv4 addresses under protocol all)."""
    n = st = ou = warned = 0
    for b, ob, sb in zip(cases['batches'], ours['batches'], stock['batches']):
        for f, o, s in zip(b['filters'], ob['filters'], sb['filters']):
            if not f.get('lenient') or 'twin_of' in f:
                continue
            n += 1
            st += not s['err']
            ou += not o['err']
            ws = f.get('warnings', ())
            warned += not o['err'] and (o['msg'] in ws if ws
                                        else not o['msg'])
    return n, st, ou, warned


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


def hash_value(f):
    """(value, mask) of f's hash key, or None."""
    for name, v, m in f['keys']:
        if name == 'hash':
            return v, M.full_mask(K.KEY['hash'], m)
    return None


def hash_problems(cases, doc, who='stock'):
    """Frames with a non-zero skb hash, as a kernel's (stock's) hash
    filters tell: the probe (hash 0/0xffffffff) must count every frame
    that reached tc, a filter whose hash value under its mask is not 0
    none.  The rig gives every frame hash 0 (keys.py, runner.py): where it
    does not, the two boots' hashes (random per boot) cannot be
    compared."""
    out = []
    for bi, (b, rb) in enumerate(zip(cases['batches'], doc['batches'])):
        sent = [j for j, x in enumerate(rb.get('sent', [])) if x]
        for fi, f in enumerate(b['filters']):
            hv, r = hash_value(f), rb['filters'][fi]
            if hv is None or r['err'] or f.get('dev') or f.get('chain'):
                continue
            if f.get('probe') == 'hash':
                bad = [j for j in sent if r['bits'][j] != rb['reached'][j]]
                what = 'not counted by the probe %s' % f['desc']
            elif hv[0] & hv[1]:
                bad = [j for j in sent if r['bits'][j] == '1']
                what = 'matched by %s' % f['desc']
            else:
                continue
            if bad:
                out.append('skb hash: batch %d: %d frame(s) (%s) %s on %s: '
                           'a frame had a non-zero hash' % (
                               bi, len(bad), ' '.join(map(str, bad[:6])),
                               what, who))
    return out


def run_problems(ours, stock, compared, min_verdicts, cases=None,
                 name='stock'):
    """Why a comparison of these two result files proves nothing, as lines
    (none: it counts).  cases: also every key must have been compared.
    name: the kernel compared with ours (compare.py --stock-name); its
    results must come from that guest variant when it is not stock, and
    stock-next's must not be compared as stock's (not strict)."""
    problems = module_problems(ours, stock, 'results', ('ours', name))
    if ours.get('variant') == stock.get('variant') and \
            ours.get('variant') not in (None, '?'):
        problems.append('ours and %s results come from the same guest '
                        'variant (%s)' % (name, ours['variant']))
    got = stock.get('variant')
    if got not in (None, '?', name) and \
            (name != 'stock' or got in STRICT_VARIANTS):
        problems.append('the %s results come from guest variant %s, not '
                        '%s (compare.py --stock-name)' % (name, got, name))
    for v, doc in (('ours', ours), (name, stock)):
        if not any(not f['err'] for b in doc['batches'] for f in b['filters']):
            problems.append('%s accepted no filter' % v)
    if compared < min_verdicts:
        problems.append('%d verdicts compared, fewer than the %d asked '
                        '(--min-verdicts)' % (compared, min_verdicts))
    for bi, fi, j, o, s in (ct_model_misses(cases, ours, stock)
                            if cases else [])[:10]:
        b = cases['batches'][bi]
        problems.append('conntrack model: batch %d filter %d (%s) on flow '
                        'frame %d (%s, modelled %s): ours %s, %s %s' % (
                            bi, fi, b['filters'][fi]['desc'], j,
                            b['packets'][j]['kind'],
                            b['packets'][j]['spec']['ct'], o, name, s))
    problems += hash_problems(cases, stock, name) if cases else []
    missing = uncovered(cases, ours, stock) if cases else []
    if missing:
        problems.append('no filter both kernels accepted has key %s '
                        '(--cover)' % ', '.join(missing))
    return problems
