# SPDX-License-Identifier: GPL-2.0
"""The offload oracle's requests: what the guest runner (offload/replay.py)
does on ours and on stock, one item at a time.

Three sources, each filter request taken three times (as given, with
skip_sw, with skip_hw; a request that already names skip_sw or skip_hw
only as given), on the direct binding (A = ofd0, a device of the test
driver's own; offload/common.py):

corpus     every `tc filter add|replace ... flower ...` the flower corpus
           (tc-tests/filters/flower/*.json, read with tdc/corpus.py) runs
           in a case's setup or cmdUnderTest, also inside the
           `printf '...' > $BATCH_FILE` lines that write a batch file
           (awk loops that print thousands of lines are not read),
           expected failures included: the comparison covers refusals.
           The case's variables are substituted as tdc.py does (NAMES
           below) and the filter moved to device A: its own `dev X`,
           `block N`, `parent P`/`root` become `dev A ingress` (egress
           stays egress), other devices the line names (mirred's, indev)
           become B or C.  Deduplicated on the command that results.
           `tc chain add ... flower ...` (a chain template) likewise, as
           a template item (chain add, chain show, chain del).  --indirect
           N of the lines (spread evenly) once more on the indirect
           binding (A = ofa, a veth the driver takes through
           flow_indr_dev_register(); ids end with @veth).
difftest   difftest's generated filters for a seed (difftest/gen.py's
           gen_batch(), `--cover`: every key it knows in some filter),
           sent pre-encoded as RTM_NEWTFILTER by the runner with one gact
           drop action; a tunnel filter's enc_* keys on A as well (the
           driver sees them as a tunnel device's driver would), a chain 1
           filter in chain 1, indev dtr as indev A.
scenario   offload/scenarios.py, on both bindings: stats, playback on a
           shared block, templates, refusals, replace, delete, qdisc
           removal, offload turned off on a device; with --stock-series
           also one item per patch of kernel/stock-series (the stock-next
           pair: make offload-stock-next).

usage: python3 -m offload.sources --out FILE [--seed N] [--dt-filters N]
           [--sample N] [--indirect N] [--no-corpus] [--no-difftest]
           [--no-scenarios] [--stock-series]

--sample N keeps N of the corpus' filter lines (spread evenly over them)
and every template and scenario: the smoke.
"""
import argparse
import hashlib
import json
import os
import random
import shlex
import string
import sys

sys.dont_write_bytecode = True

from offload.common import (BINDINGS, DEV_C, FLAGS,  # noqa: E402
                            INDIRECT_SUFFIX)

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)
CORPUS_DIR = os.path.join(REPO, 'tc-tests', 'filters', 'flower')

# The runner's devices A, B, C (offload/common.py) as placeholders until
# an item picks its binding (direct or indirect)
PA, PB, PC = '@A@', '@B@', '@C@'
# tdc.py's names (tdc/tdc.py BASE_NAMES, nsPlugin's devices) as the
# runner's devices: $DEV1 (the case's device) is A, $DEV0 (its veth
# peer) B, $DEV2/$DUMMY C
NAMES = {'TC': 'tc', 'IP': 'ip', 'DEV1': PA, 'DEV0': PB, 'DEV2': PC,
         'DUMMY': PC, 'ETH': PC}
# devices the corpus makes itself and names inside a filter (mirred's
# target, indev): the runner's other devices
DEVMAP = {'fla': PB, 'flb': PC, 'flin0': PC}
HOOKS = ('ingress', 'egress')
SEPARATORS = ('&&', '||', ';', '|')
FLAG_VALUE = {'': 0, 'skip_hw': 1, 'skip_sw': 2}   # TCA_CLS_FLAGS_SKIP_*


def short_hash(text):
    return hashlib.sha1(text.encode()).hexdigest()[:8]


# --- the corpus -------------------------------------------------------------
def tc_words(command):
    """The tc command lines (word lists after `tc` and its options) that
    one corpus command line runs or writes into a batch file."""
    command = string.Template(command).safe_substitute(NAMES)
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    found, segment = [], []
    for w in words + [';']:
        if w in SEPARATORS:
            found += _segment_lines(segment)
            segment = []
        else:
            segment.append(w)
    return found


def _segment_lines(words):
    for i, w in enumerate(words):           # redirections end the command
        if w.startswith(('>', '<', '2>')):
            words = words[:i]
            break
    if not words:
        return []
    if words[0] == 'tc':
        i = 1
        while i < len(words) and words[i].startswith('-'):
            i += 1
        return [words[i:]] if i < len(words) else []
    if words[0] == 'printf':                # printf '%s\n' 'filter ...' ...
        out = []
        for w in words[2:]:
            if w.startswith(('filter ', 'chain ')):
                try:
                    out.append(shlex.split(w))
                except ValueError:
                    pass
        return out
    return []


def normalize(words):
    """A tc `filter add|replace ... flower ...` or `chain add ... flower
    ...` as the runner gives it: (kind 'filter'|'chain', hook, head words
    before `flower`, option words after it), or None for anything else."""
    if len(words) < 3 or 'flower' not in words:
        return None
    verb, op = words[0], words[1]
    if not ((verb == 'filter' and op in ('add', 'replace')) or
            (verb == 'chain' and op == 'add')):
        return None
    fi = words.index('flower')
    head, tail = words[2:fi], list(words[fi + 1:])
    hook, kept, i = 'ingress', [], 0
    while i < len(head):
        w = head[i]
        if w in ('dev', 'block', 'parent') and i + 1 < len(head):
            if w == 'parent' and head[i + 1] in ('ffff:fff3',):
                hook = 'egress'
            i += 2
            continue
        if w == 'root':
            i += 1
            continue
        if w in HOOKS:
            hook = w
            i += 1
            continue
        kept.append(w)
        i += 1
    for i, w in enumerate(tail[:-1]):
        if w in ('dev', 'indev'):
            tail[i + 1] = DEVMAP.get(tail[i + 1], tail[i + 1])
    return verb, hook, [verb, op, 'dev', PA, hook] + kept, tail


def corpus_commands(root=CORPUS_DIR):
    """[(kind, hook, head, tail, [case ids])] in corpus order, deduplicated
    on the normalized command."""
    from tdc import corpus
    seen, order = {}, []
    for path in corpus.case_files([root]):
        for case in corpus.load_file(path):
            commands = [e[0] if isinstance(e, list) else e
                        for e in case.get('setup', [])]
            commands.append(case.get('cmdUnderTest', ''))
            for command in commands:
                if not isinstance(command, str) or 'flower' not in command:
                    continue
                for words in tc_words(command):
                    n = normalize(words)
                    if n is None:
                        continue
                    key = ' '.join(n[2] + ['flower'] + n[3])
                    if key not in seen:
                        seen[key] = list(n) + [[]]
                        order.append(key)
                    ids = seen[key][4]
                    if case.get('id') not in ids:
                        ids.append(case.get('id'))
    return [tuple(seen[k]) for k in order]


def with_flag(tail, flag):
    return ([flag] if flag else []) + tail


def devices(text, binding):
    """The placeholders of text as the binding's devices."""
    a, b = BINDINGS[binding]
    return text.replace(PA, a).replace(PB, b).replace(PC, DEV_C)


def own_indexes(tail, base):
    """An action's `index N` as index base + N: each item has action
    indexes of its own.  An action of the item before may still be there
    (a filter's actions go in an RCU work after its delete), on one kernel
    and not on the other, and a filter asking for that index would share
    it (stock: "Mismatch between action and filter offload flags" when its
    flags differ)."""
    out = list(tail)
    for i, w in enumerate(out[:-1]):
        if w == 'index' and out[i + 1].isdigit():
            out[i + 1] = str(base + int(out[i + 1]))
    return out


def suffix(binding):
    return INDIRECT_SUFFIX if binding == 'indirect' else ''


def filter_steps(add, hook, binding):
    a = BINDINGS[binding][0]
    where = 'dev %s %s' % (a, hook)
    return [dict(op='tc', args='qdisc add dev %s clsact' % a),
            add,
            dict(op='show', args=where),
            dict(op='flush', args=where),
            dict(op='tc', args='qdisc del dev %s clsact' % a)]


def corpus_items(commands, binding='direct', templates=True):
    items = []
    a = BINDINGS[binding][0]
    for kind, hook, head, tail, ids in commands:
        key = ' '.join(head + ['flower'] + tail)
        base = devices(key, binding)
        if kind == 'chain':
            if not templates:
                continue
            chain = head[head.index('chain', 1) + 1] \
                if 'chain' in head[1:] else '0'
            where = 'dev %s %s' % (a, hook)
            items.append(dict(
                id='t-' + short_hash(key) + suffix(binding),
                source='template', binding=binding, what=base, origin=ids,
                flags='', steps=[
                    dict(op='tc', args='qdisc add dev %s clsact' % a),
                    dict(op='tc', args=base),
                    dict(op='tc', args='chain show %s' % where, json=True),
                    dict(op='tc', args='chain del %s chain %s' % (where,
                                                                  chain)),
                    dict(op='tc', args='qdisc del dev %s clsact' % a)]))
            continue
        given = {w for w in tail if w in ('skip_sw', 'skip_hw')}
        for flag in FLAGS:
            if flag and given:
                continue
            base = 100000 + 1000 * len(items)
            cmd = devices(' '.join(head + ['flower'] + with_flag(
                own_indexes(tail, base), flag)), binding)
            items.append(dict(
                id='c-' + short_hash(key) + ('+' + flag if flag else '') +
                suffix(binding),
                source='corpus', binding=binding, what=cmd, origin=ids,
                flags=flag,
                steps=filter_steps(dict(op='tc', args=cmd), hook, binding)))
    return items


def sample(commands, n):
    """n of the filter commands, spread evenly; every template."""
    filters = [c for c in commands if c[0] == 'filter']
    keep = set()
    if n and filters:
        step = len(filters) / min(n, len(filters))
        keep = {int(i * step) for i in range(min(n, len(filters)))}
    out, fi = [], 0
    for c in commands:
        if c[0] == 'filter':
            if fi in keep:
                out.append(c)
            fi += 1
        else:
            out.append(c)
    return out


# --- difftest's generated filters --------------------------------------------
def difftest_items(seed, nfilters, binding='direct'):
    from difftest import gen
    from difftest.filters import RX_DEV, encode_filter
    from difftest.keys import PROTOS
    a = BINDINGS[binding][0]
    batch = gen.gen_batch(random.Random(seed), nfilters, cover=True)
    items = []
    for i, f in enumerate(batch['filters']):
        if f.get('indev') == RX_DEV:
            f = dict(f, indev=a)
            attrs = encode_filter(f)
        else:
            attrs = f['attrs']
        chain = f.get('chain', 0)
        for flag in FLAGS:
            what = 'dev %s ingress %s%s%s' % (
                a, f['desc'].split(' [prio ')[0].replace('dev dtvx0 ', '')
                .replace('dev dtgnv0 ', '').replace('indev dtr',
                                                    'indev ' + a),
                ' ' + flag if flag else '', ' action drop')
            if f.get('dev'):
                what += ' (a tunnel device\'s filter)'
            add = dict(op='nl_add', dev=a, hook='ingress',
                       proto=PROTOS[f['proto']], prio=1, handle=1,
                       chain=chain, attrs=attrs, flags=FLAG_VALUE[flag],
                       act='drop')
            items.append(dict(
                id='g%d-%03d%s%s' % (seed, i, '+' + flag if flag else '',
                                     suffix(binding)),
                source='difftest', binding=binding, what=what,
                origin=[f['desc']], flags=flag,
                steps=filter_steps(add, 'ingress', binding)))
    return items


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', required=True)
    ap.add_argument('--seed', type=int, default=1,
                    help='difftest generator seed (default 1)')
    ap.add_argument('--dt-filters', type=int, default=150,
                    help="difftest's filters (before --cover's), default "
                    '150')
    ap.add_argument('--sample', type=int, default=0,
                    help='only N of the corpus filter lines (0: all)')
    ap.add_argument('--indirect', type=int, default=60,
                    help='N of the corpus filter lines (of those kept) on '
                    'the indirect binding too (default 60)')
    ap.add_argument('--no-corpus', action='store_true')
    ap.add_argument('--no-difftest', action='store_true')
    ap.add_argument('--no-scenarios', action='store_true')
    ap.add_argument('--stock-series', action='store_true',
                    help="the stock series' scenarios too (one per patch "
                    'of kernel/stock-series: the stock-next pair)')
    a = ap.parse_args(argv)
    items = []
    commands = []
    if not a.no_corpus:
        commands = corpus_commands()
        if a.sample:
            commands = sample(commands, a.sample)
        items += corpus_items(commands)
        if a.indirect:
            items += corpus_items(sample(commands, a.indirect), 'indirect',
                                  templates=False)
    if not a.no_difftest:
        items += difftest_items(a.seed, a.dt_filters)
    if not a.no_scenarios:
        from offload import scenarios
        items += scenarios.items('direct', a.stock_series) + \
            scenarios.items('indirect', a.stock_series)
    ids = [it['id'] for it in items]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        sys.exit('offload.sources: duplicate ids %s' % dup[:5])
    meta = dict(seed=a.seed, dt_filters=a.dt_filters, sample=a.sample,
                indirect=a.indirect, corpus_commands=len(commands))
    if a.stock_series:
        meta['stock_series'] = True
    with open(a.out, 'w') as f:
        json.dump(dict(meta=meta, items=items), f, indent=0)
    count = {}
    for it in items:
        count[it['source']] = count.get(it['source'], 0) + 1
    print('offload.sources: %d items (%s) -> %s' % (
        len(items), ', '.join('%s %d' % kv for kv in sorted(count.items())),
        a.out))


if __name__ == '__main__':
    main()
