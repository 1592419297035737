#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the verdict matrices of ours and stock, classify divergences.

Every divergence ends in exactly one class:
  (a) ours-bug     a bug in our flower (OURS_BUGS: a rule is added when
                   the lead confirms one; until then it shows as
                   unexplained); it fails the run as an unexplained one
                   does: it is named, not excused
  (b) stock-bug    a documented bug of the 6.1 tree's flower, where ours
                   does what the request asked (STOCK_BUGS)
  (c) by-design    a declared difference (DESIGN; none is left in what
                   the oracle generates since series step 22)
A divergence no rule explains is "unexplained" and fails the run.  A
divergence is a filter one kernel refuses, a filter whose dump differs
(both accepted it: its TCA_OPTIONS but the actions, as sets), a frame
one kernel classifies otherwise, or ours' answer unlike its model
(model.predict(): a refusal's errno and extack, an acceptance's
warning).

Two passes (difftest/difftest.mk):
  1. --shrink-out FILE: write candidate reductions (key subsets x packet
     simplifications) of up to a few divergences per class to FILE, a
     cases file the runner takes (empty if no divergence).
  2. --final [--shrink FILE]: pick, for each shrunk divergence, the
     smallest filter and frame that still diverge the same way, print
     every divergence with its class and the reproducers as tdc cases,
     write --doc, exit 1 if anything is unexplained or of class (a).
     Last line: "N passed, N failed" (N = compared verdicts / unexplained
     and class (a) divergences).
The report also fails (its last line "0 passed, N failed", N counting
each reason below and the unexplained divergences) when the run proves
nothing (run_problems): both result files come from one module (the same
srcversion of cls_flower, which runner.py records, or the same guest
variant; results without a srcversion are refused too), either kernel
accepted no filter, or fewer than --min-verdicts (default 1) verdicts
were compared.  Before any of that it refuses (one FAIL line for each
two files that differ, "0 passed, N failed") a cases file and result
files that are not the same (filter, frame) pairs: another seed, batch
count, or filter or frame count in a batch (pairing_problems(); the
--shrink files likewise).

--stock-name NAME (default stock) names the kernel compared with ours,
the guest variant its results come from (make difftest DT_STOCK=NAME):
the output and --doc say NAME where they say stock, and --shrink's
results are <shrink>-ours.json and <shrink>-NAME.json.  NAME stock-next
(the pristine file with kernel/stock-series, which fixes the stock bugs
above; issue 32 item 3) is strict mode: every divergence fails the run,
whatever class explains it (stock bugs and by-design ones too), but a
request ours accepts and stock-next refuses, which is printed as
declared (classes.STRICT_DECLARED) and counts as no failure; ours'
answer to it is still checked against its model.  Results whose
recorded guest variant is not NAME (stock-next's compared as stock's
included) fail the run as proving nothing.
"""
import argparse
import hashlib
import json
import sys

sys.dont_write_bytecode = True

from difftest import keys as K
from difftest.classes import (OURS_BUGS, STRICT_DECLARED, STRICT_VARIANTS,
                              class_title, dump_class, dump_diff,
                              mismatch_class, model_mismatch, pair_class,
                              refusal_class)
from flower import uapi
from difftest.checks import (ct_counts, dump_counts, lenient_counts, load,
                             run_problems, tunnel_counts, uncovered)
from difftest.shrink import pick_reps, shrink_cases, shrink_pick
from difftest.tdc_cases import corpus_ids, tdc_case
from difftest.report import write_doc
# used through compare by difftest/tests
from difftest.classes import (DESIGN, addr_header,  # noqa: F401
                              range_or_hash, seen_hex, stock_zero_mask_enc)
from difftest.checks import ct_expected, ct_model_misses  # noqa: F401


def analyse(cases, ours, stock, name='stock', strict=False):
    """-> (compared verdicts, [divergence dicts]).  name: the kernel
    compared with ours, as the divergences' 'what' names it; strict: a
    request ours accepts and that kernel refuses is the declared
    'stock-next-refuses' (refusal_class()), and ours' answer to it is
    checked against its model."""
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
                                     'kernel only (ours %s, %s %s)'
                                     % (where, x, name, y)))
        sent = [i for i, x in enumerate(ob['sent']) if x and sb['sent'][i]]
        for fi, f in enumerate(filters):
            o, s = ob['filters'][fi], sb['filters'][fi]
            if bool(o['err']) != bool(s['err']):
                c = refusal_class(f, o, s, strict)
                divs.append(dict(batch=bi, filter=fi, packet=None, cls=c,
                                 what='ours %s, %s %s' % (
                                     'refuses (%d: %s)' % (o['err'], o['msg'])
                                     if o['err'] else 'accepts', name,
                                     'refuses (%d: %s)' % (s['err'], s['msg'])
                                     if s['err'] else 'accepts')))
                # declared in strict mode: ours' acceptance still answers
                # to its model
                miss = c in STRICT_DECLARED and model_mismatch(f, o)
                if miss:
                    divs.append(dict(batch=bi, filter=fi, packet=None,
                                     cls=mismatch_class(f, o),
                                     what=miss, model=f['refusal']))
                continue
            miss = model_mismatch(f, o)
            if miss:
                divs.append(dict(batch=bi, filter=fi, packet=None,
                                 cls=mismatch_class(f, o),
                                 what=miss, model=f['refusal']))
            if o['err']:
                continue
            # what each kernel holds: its dump (the lenient requests keep
            # stock's key and mask: docs/leniency.md)
            if 'dump' in o and 'dump' in s:
                oo, so = dump_diff(o['dump'], s['dump'])
                if oo or so:
                    divs.append(dict(batch=bi, filter=fi, packet=None,
                                     cls=dump_class(f, oo, so), dump=True,
                                     what='dump differs: ours only %s, '
                                     '%s only %s' % (fmt_attrs(oo), name,
                                                     fmt_attrs(so))))
            compared += len(sent)
            for who, r in (('ours', o), (name, s)):
                n, found = again_divergences(r, sent, who)
                compared += n
                divs += [dict(d, batch=bi, filter=fi) for d in found]
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
                                     what='ours %s, %s %s' % (
                                         'matches' if ov[fi] else 'misses',
                                         name,
                                         'matches' if sv[fi] else 'misses')))
    return compared, divs


def again_divergences(r, sent, who):
    """A kernel against itself: each frame sent again (runner.py's
    second pass, with the flow cache warm) must be counted as it was the
    first time.  -> (verdicts compared, [divergences]); none of them has
    a class: no rule explains a kernel that disagrees with itself."""
    again = r.get('bits_again', '')
    pairs = [j for j in sent if j < len(again) and again[j] != '-']
    return len(pairs), [
        dict(packet=j, cls=None, again=True,
             what='%s %s the frame sent again (a warm flow cache), %s it '
             'the first time' % (who, 'matches' if again[j] == '1'
                                 else 'misses',
                                 'matched' if r['bits'][j] == '1'
                                 else 'missed'))
        for j in pairs if again[j] != r['bits'][j]]


def frames(b):
    """A batch's frames: the cases' packets, or a result's 'sent' flags
    (one per frame)."""
    return len(b['packets'] if 'packets' in b else b.get('sent', ()))


def differences(a, b):
    """What makes two of a run's files, (what, path, doc) (its cases, a
    kernel's results), not the same (filter, frame) pairs, as phrases:
    analyse() pairs them by position, so another seed or a batch, filter
    or frame more on one side would be compared as if it were the
    other's."""
    out = []
    seeds = [d.get('seed', 'none recorded') for _, _, d in (a, b)]
    if seeds[0] != seeds[1]:
        out.append('seed %s vs %s' % tuple(seeds))
    ba, bb = a[2].get('batches', []), b[2].get('batches', [])
    if len(ba) != len(bb):
        ids = range(min(len(ba), len(bb)), max(len(ba), len(bb)))
        out.append('%d batches vs %d (batch%s %s only in %s)' % (
            len(ba), len(bb), 'es' if len(ids) > 1 else '',
            ' '.join(map(str, ids)), (a if len(ba) > len(bb) else b)[0]))
    for bi, (x, y) in enumerate(zip(ba, bb)):
        for what, n in (('filters', lambda d: len(d['filters'])),
                        ('frames', frames)):
            if n(x) != n(y):
                out.append('batch %d: %d %s vs %d' % (bi, n(x), what, n(y)))
    return out


def pairing_problems(cases, ours, stock):
    """cases, ours, stock: (what, path, doc).  A line for each two of
    them that are not the same (filter, frame) pairs (differences())."""
    out = []
    for a, b in ((ours, stock), (ours, cases), (stock, cases)):
        diff = differences(a, b)
        if diff:
            out.append('not the same (filter, frame) pairs: %s %s, %s %s: '
                       '%s' % (a[0], a[1], b[0], b[1], '; '.join(diff)))
    return out


def fmt_attrs(attrs):
    """[(type, hex)] as NAME=hex, ..."""
    return '[' + ', '.join('%s=%s' % (
        uapi.BY_NUMBER[t].name if t in uapi.BY_NUMBER else t, h)
        for t, h in attrs) + ']'


def fails(c, strict=False):
    """A divergence of class c (None or 'UNEXPLAINED': no rule explains
    it) fails the run: an unexplained one or one of ours' bugs; in strict
    mode any but the declared refusal (STRICT_DECLARED)."""
    if strict:
        return c not in STRICT_DECLARED
    return c in (None, 'UNEXPLAINED') or c in OURS_BUGS


def line_title(c, strict=False):
    """class_title(), and in strict mode "strict, fails: " before the
    title of a class that fails only there (a stock bug, by design)."""
    title = class_title(c or 'UNEXPLAINED')
    if strict and fails(c, strict) and not fails(c):
        return 'strict, fails: ' + title
    return title


def divergence_lines(cases, divs, strict=False):
    """(divergences per class, one line per class, filter and what
    diverges) of divs."""
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
            line_title(c, strict), bi, fi, desc, what,
            (' on %d frame(s): %s' % (len(pk), ' '.join(
                '%d(%s)' % (p, cases['batches'][bi]['packets'][p]['kind'])
                for p in pk[:6]) + (' ...' if len(pk) > 6 else ''))) if pk else ''))
    return by_class, lines


# --- report -------------------------------------------------------------------
def parse_args():
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
    ap.add_argument('--stock-name', default='stock', metavar='NAME',
                    help='the guest variant of --stock\'s results, as the '
                    'output names it (default stock); %s: strict mode, '
                    'every divergence fails but a request ours accepts '
                    'and it refuses' % ', '.join(STRICT_VARIANTS))
    a = ap.parse_args()
    a.strict = a.stock_name in STRICT_VARIANTS
    return a


def named_inputs(a):
    """[(what, path, doc)]: cases, ours and stock results, then (with
    --shrink) the shrink cases and their two results."""
    name = a.stock_name
    named = [('cases', a.cases, load(a.cases)),
             ('ours results', a.ours, load(a.ours)),
             ('%s results' % name, a.stock, load(a.stock))]
    if a.shrink:
        base = a.shrink[:-len('.json')]
        named += [(w, p, load(p)) for w, p in (
            ('shrink cases', a.shrink),
            ('ours shrink results', base + '-ours.json'),
            ('%s shrink results' % name, base + '-%s.json' % name))]
    return named


def refuse_unpaired(a, named):
    """Exit status 1 after a FAIL line per two files that are not the
    same (filter, frame) pairs; None when all are."""
    problems = pairing_problems(*named[:3]) + (
        pairing_problems(*named[3:]) if a.shrink else [])
    if not problems:
        return None
    # analyse() would pair other filters and frames by position (or
    # fail on an index): nothing of such a comparison counts
    for line in problems:
        print('difftest: FAIL: ' + line)
    if a.doc:
        print('difftest: %s not written' % a.doc)
    print('0 passed, %d failed' % len(problems))
    return 1


def write_shrink_candidates(path, cases, divs, seed):
    """Pass 1: the shrinker's candidates for a few divergences per class
    to path (an empty file when there is none to shrink)."""
    # a chain 1 (ct) filter's divergence needs its flow before it and
    # the ct action: the shrinker's lone frames have neither
    reps = pick_reps([d for d in divs if d['filter'] is None or not
                      cases['batches'][d['batch']]['filters']
                      [d['filter']].get('chain')])
    if reps:
        doc = shrink_cases(cases, reps, seed)
        with open(path, 'w') as fp:
            json.dump(doc, fp)
        print('difftest: %d divergences, %d to shrink' % (len(divs),
                                                          len(reps)))
    else:
        open(path, 'w').close()


def shrunk_reproducers(a, named, cases, divs):
    """Pass 2: the smallest diverging filter and frame of each shrunk
    divergence, with the class analyse() gave it now and the filter and
    frame themselves."""
    if not a.shrink:
        return []
    shrunk = shrink_pick(*[doc for _, _, doc in named[3:]],
                         strict=a.strict)
    now = {(d['batch'], d['filter'], d['packet']): d['cls'] for d in divs}
    for r in shrunk:
        r['cls'] = now.get((r['batch'], r['filter'], r['packet']), r['cls'])
        b = cases['batches'][r['batch']]
        r['filter_obj'] = b['filters'][r['filter']]
        r['packet_obj'] = (b['packets'][r['packet']]
                           if r['packet'] is not None else None)
    return shrunk


def tdc_reproducers(shrunk, seed):
    """The reproducers as tdc cases whose ids no corpus case has."""
    tdc = [tdc_case(r, seed) for r in shrunk]
    # ids must stay unique over the corpus: rehash on a collision
    used = corpus_ids()
    for case in tdc:
        while case['id'] in used:
            case['id'] = hashlib.sha1(case['id'].encode()).hexdigest()[:4]
        used.add(case['id'])
    return tdc


def print_reproducers(shrunk, tdc, strict=False):
    for r, case in zip(shrunk, tdc):
        print('reproducer [%s] (shrunk from batch %d filter %d%s):' % (
            line_title(r['cls'], strict), r['batch'], r['filter'],
            '' if r['packet'] is None else ' frame %d' % r['packet']))
        print(json.dumps(case, indent=4))


def verdicts_per_kernel(cases):
    """{kernel: its (filter, frame) pairs}, the same for both."""
    pairs = sum(len(b['packets']) * len(b['filters'])
                for b in cases['batches'])
    return {v: pairs for v in ('ours', 'stock')}


def print_run_lines(cases, ours, stock, compared, nv, name='stock'):
    """What was compared and how long each kernel took."""
    print('difftest: seed %s: %d filters, %d frames, %d (filter, frame) '
          'pairs per kernel; %d verdicts compared (both kernels accepted '
          'the filter)'
          % (cases['seed'], sum(len(b['filters']) for b in cases['batches']),
             sum(len(b['packets']) for b in cases['batches']), nv['ours'],
             compared))
    for v, doc, n in (('ours', ours, 'ours'), (name, stock, 'stock')):
        ts = sum(b['t_send'] for b in doc['batches'])
        print('difftest: %s (%s): runner %.1f s, send+read %.1f s = %.3f s '
              'per 1,000 verdicts' % (v, doc['kernel'], doc['seconds'], ts,
                                      1000 * doc['seconds'] / max(1, nv[n])))


def print_coverage_lines(cases, ours, stock, name='stock'):
    """The counts of checks.py: tunnels, conntrack, keys, leniency and
    dumps."""
    tn, tv, tm, tr = tunnel_counts(cases, ours, stock)
    print('difftest: tunnel devices: %d filters, %d verdicts compared (%d '
          'matches on both kernels); frames decapsulated to them: ours %d, '
          '%s %d' % (tn, tv, tm, tr[0], name, tr[1]))
    cn, cv, cf, cm, cr = ct_counts(cases, ours, stock)
    print('difftest: conntrack (chain 1): %d filters, %d verdicts compared, '
          '%d of them on the flows\' frames (%d matches on both kernels); '
          'flow frames that reached chain 1 on both: %d'
          % (cn, cv, cf, cm, cr))
    missing = uncovered(cases, ours, stock)
    print('difftest: keys in a filter both kernels accepted: %d of %d%s' % (
        len(K.KEYS) - len(missing), len(K.KEYS),
        ' (none has %s)' % ', '.join(missing) if missing else ''))
    ln, lst, lou, lw = lenient_counts(cases, ours, stock)
    dn, dl = dump_counts(cases, ours, stock)
    print('difftest: lenient requests (docs/leniency.md): %d, accepted by '
          '%s %d, by ours %d, %d of them with the warning its model '
          'gives; dumps compared: %d filters (%d lenient)'
          % (ln, name, lst, lou, lw, dn, dl))


def final_pass(a, named, compared, divs):
    """Pass 2: print the divergences, reproducers and counts, write
    --tdc-out and --doc; the exit status."""
    cases, ours, stock = (doc for _, _, doc in named[:3])
    name, strict = a.stock_name, a.strict
    shrunk = shrunk_reproducers(a, named, cases, divs)
    # print every divergence with its class (grouped by filter)
    by_class, lines = divergence_lines(cases, divs, strict)
    for ln in lines:
        print(ln)
    tdc = tdc_reproducers(shrunk, cases['seed'])
    if a.tdc_out:
        with open(a.tdc_out, 'w') as fp:
            json.dump(tdc, fp, indent=4)
    print_reproducers(shrunk, tdc, strict)
    # an open bug of ours fails the run as an unexplained divergence does
    # (named, not excused); in strict mode every class but the declared
    # refusal does
    failed = sum(n for c, n in by_class.items() if fails(c, strict))
    nv = verdicts_per_kernel(cases)
    print_run_lines(cases, ours, stock, compared, nv, name)
    print_coverage_lines(cases, ours, stock, name)
    if strict:
        print('difftest: strict (ours against %s): every divergence fails '
              'the run, stock bugs included, but a request ours accepts '
              'and %s refuses: %d failing, %d declared' % (
                  name, name, failed, sum(by_class.get(c, 0)
                                          for c in STRICT_DECLARED)))
    print('difftest: divergences by class: ' + (', '.join(
        '%s %d' % (line_title(c, strict), n)
        for c, n in sorted(by_class.items())) or 'none'))
    problems = run_problems(ours, stock, compared, a.min_verdicts,
                            cases if a.cover else None, name)
    if a.doc and not problems:
        write_doc(a.doc, cases, ours, stock, compared, nv, divs, by_class,
                  lines, shrunk, tdc, a.wall, name=name, strict=strict)
    for line in problems:
        print('difftest: FAIL: ' + line)
    if problems:
        if a.doc:
            print('difftest: %s not written' % a.doc)
        print('0 passed, %d failed' % (failed + len(problems)))
        return 1
    print('%d passed, %d failed' % (compared - failed, failed))
    return 1 if failed else 0


def main():
    a = parse_args()
    named = named_inputs(a)
    refused = refuse_unpaired(a, named)
    if refused is not None:
        return refused
    cases, ours, stock = (doc for _, _, doc in named[:3])
    compared, divs = analyse(cases, ours, stock, a.stock_name, a.strict)
    if a.shrink_out:
        write_shrink_candidates(a.shrink_out, cases, divs, cases['seed'])
        if not a.final:
            return 0
    return final_pass(a, named, compared, divs)


if __name__ == '__main__':
    sys.exit(main())
