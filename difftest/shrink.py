# SPDX-License-Identifier: GPL-2.0
"""Shrinking for compare.py: candidate reductions (key subsets x frame
simplifications) of a few divergences per class, and the smallest that
still diverges the same way.
"""

from difftest import model as M
from flower import packets as P
from difftest.classes import refusal_class
from difftest.filters import describe, encode_filter
from difftest.tunnel import tunnel_reach


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
        # a dump differs on the filter alone: its line says both dumps
        if d['filter'] is None or d.get('dump'):
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
            g['attrs'] = encode_filter(g)
            g['desc'] = describe(g)
            p = M.predict(g)
            g['refusal'], g['warnings'] = p['refusal'], p['warnings']
            fidx.append(len(cur['filters']))
            cur['filters'].append(g)
        for name, spec in pk:
            b_ = P.build(spec)
            pidx.append(len(cur['packets']))
            cur['packets'].append(dict(owner=None, kind='shrink:' + name,
                                       spec=spec, hex=b_[:1514].hex(),
                                       tunnel=tunnel_reach(spec)))
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


def shrink_pick(sh, so, ss, strict=False):
    """For each rep, the smallest (filter, frame) still diverging alike
    (strict: refusals classed as compare.py's strict mode does)."""
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
                        refusal_class(f, o, s, strict) == d['cls']:
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
