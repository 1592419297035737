#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stress/fuzz.py - seeded netlink fuzzer for the flower classifier.

Runs in the test guest (guest/run ... -- /usr/bin/python3 -m stress.fuzz).
Sends raw RTM_NEWTFILTER / RTM_DELTFILTER / RTM_GETTFILTER requests to an
ingress qdisc on a dummy device: valid adds, replaces, changes, deletes
and gets mixed with broken ones (wrong attribute lengths, masks without
their keys, unknown attribute types, nested garbage in TCA_FLOWER_ACT,
malformed attribute streams, huge and zero handles, conflicting
protocols, random and automatic prios, bad flags, bad devices, wrong
parents, chains, kinds...), with tunnel (enc_*, Geneve, vxlan, erspan
and gtp options), conntrack (ct_*), ip_flags, QinQ (cvlan_*,
num_of_vlans), PPPoE, MPLS (flat and nested options), L2TPv3, port range
and hash keys among the others, valid and not.

A model of the tc core (tc_new_tfilter & co. in net/sched/cls_api.c) and
of this classifier (several masks per prio, kept in the order they were
first added, a mask going with its last filter; the masked key unique
within its mask; handle IDR) predicts the answer to every request: the
errno (0 = accepted) and the extack message, compared exactly (a message
the model does not predict is said so, Err(code, ANY)); for an accepted
new filter the message is ours' warning (series step 22: what stock
accepts silently -- a key without its protocol, a lone mask, an unknown
attribute type... -- ours accepts the same way and says so; the first
warning of the request) or none.  Every request
must be answered within --reply-timeout; a different answer is a
failure.  Every
--check-every requests and at the end the dumped filter set (chains,
prios, protocols, handles, byte-exact keys and masks, flags, classid,
actions) is compared with the model.

Reproducible: the same --seed and --count give the same messages (the
kernel's answers to them are deterministic too).  --time-limit stops
early (the run is then a prefix of the full one).

Output: counts (messages, accepted, refused by errno, lost/timeouts) and
a last line "N passed, N failed" (one check per message, one per dump
comparison; a dumped filter that the model cannot rebuild when it
resynchronises after a difference is a failure too).  Exit status 0 when
nothing failed.
"""

import argparse
import collections
import errno
import json
import random
import struct
import subprocess
import sys
import time

from flower.nl import NLSock, RTM_NEWTFILTER, Timeout, decode_filter

from stress.flowerfuzz.attrs import ANY, Err
from stress.flowerfuzz.compare import (Stock, compare_dump, compare_filter,
                                       resync)
from stress.flowerfuzz.gen import Gen
from stress.flowerfuzz.model import Model
from stress.flowerfuzz.run import (KINDS, MASK_LABELS, answer_matches,
                                   meta_kinds, outcome_text, setup, teardown)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--seed', type=int, default=None,
                   help='random seed (default: from the time; printed)')
    p.add_argument('--count', type=int, default=2000,
                   help='messages to send (default 2000)')
    p.add_argument('--time-limit', type=float, default=0,
                   help='stop after this many seconds (0: no limit)')
    p.add_argument('--check-every', type=int, default=250,
                   help='compare a dump with the model every N messages')
    p.add_argument('--reply-timeout', type=float, default=30)
    p.add_argument('--max-filters', type=int, default=400,
                   help='prefer deletes above this many filters')
    p.add_argument('--verbose', '-v', action='store_true',
                   help='print every message and its answer')
    p.add_argument('--show-failures', type=int, default=20)
    p.add_argument('--json', metavar='FILE', help='write the counts here')
    p.add_argument('--stock', action='store_true',
                   help='against the stock module (guest/run --variant '
                   'stock): dumps compared as sets of attributes, filters '
                   'the model cannot rebuild kept opaque, warnings not '
                   'checked; every other difference counts')
    return p.parse_args(argv)


class Run:
    """One fuzzing run: the model, the generator, the socket and the
    counts; one check per message and per dump comparison."""

    def __init__(self, a, seed):
        self.a = a
        self.seed = seed
        self.rng = random.Random(seed)
        self.devs = setup()
        self.model = Model(self.devs)
        self.gen = Gen(self.rng, self.model, self.devs['fz0'])
        self.nl = NLSock(timeout=a.reply_timeout)
        self.counts = collections.Counter()
        self.by_errno = collections.Counter()
        self.by_label = collections.Counter()
        self.by_warning = collections.Counter()
        self.passed = self.failed = 0
        self.failures = []
        self.t0 = time.monotonic()
        self.elapsed = 0

    def fail(self, text):
        self.failed += 1
        if len(self.failures) < self.a.show_failures:
            self.failures.append(text)
            print('FAIL: ' + text)

    def check_dump(self, where):
        try:
            bodies = self.nl.dump_filters(self.devs['fz0'])
        except (Timeout, OSError) as e:
            self.fail('%s: dump failed: %s' % (where, e))
            return
        problems = compare_dump(self.model, bodies)
        self.counts['dumps'] += 1
        self.counts['dumped filters'] += sum(
            1 for b in bodies if struct.unpack_from('<I', b, 8)[0])
        if problems:
            self.fail('%s: dumped filter set differs from the model (%d '
                      'differences):\n  %s' % (where, len(problems),
                                               '\n  '.join(problems[:15])))
            self.do_resync(where, bodies)
        else:
            self.passed += 1

    def do_resync(self, where, bodies):
        for why in resync(self.model, bodies):
            self.counts['unrebuilt filters'] += 1
            self.fail('%s: resync: %s' % (where, why))

    def mask_counts(self, commit):
        """commit(), counting what it did to its prio's masks."""
        counts = self.counts
        tp = getattr(commit, 'tp', None)
        before = list(tp.masks) if tp is not None else []
        commit()
        if tp is None:
            return
        after = list(tp.masks)
        if before and any(c not in before for c in after):
            counts['masks added beside others'] += 1
        if after and any(c not in after for c in before):
            counts['masks dropped, others left'] += 1
        counts['most masks in a prio'] = max(counts['most masks in a prio'],
                                             len(after))

    def pick_op(self):
        """The next request (Gen.next_op())."""
        return self.gen.next_op(self.a.max_filters)

    def predict(self, op):
        """(commit or None, the predicted Err or None for an ack)."""
        try:
            if op.what == 'new':
                return self.model.predict_new(op), None
            if op.what == 'del':
                return self.model.predict_del(op), None
            return self.model.predict_get(op), None
        except Err as e:
            return None, e

    def count_answer(self, i, op, rep):
        counts = self.counts
        counts['messages'] += 1
        meta = meta_kinds(op)
        for k in meta:
            counts['with %s keys' % k] += 1
        if rep.lost:
            counts['lost'] += 1
        elif rep.err == 0:
            counts['accepted'] += 1
            if rep.msg is not None:
                self.by_warning[rep.msg] += 1
            for k in meta:
                counts['accepted with %s keys' % k] += 1
        else:
            self.by_errno[errno.errorcode.get(rep.err, str(rep.err))] += 1
        if self.a.verbose:
            print('%5d %s -> %s' % (i, op.describe(), outcome_text(rep)))

    def check_get(self, i, commit, rep):
        """A get the model expected to succeed: the one filter it returns
        is the model's (True), another (None, failed here) or not one."""
        tp, f = commit.filter
        bodies = [b for t, _f, b in rep.msgs if t == RTM_NEWTFILTER]
        if len(bodies) != 1:
            return False
        _fl, _tca, opts, entry = decode_filter(bodies[0])
        why = compare_filter(self.model, tp, f, opts or [], entry)
        if why:
            self.fail('message %d (get): %s' % (i, why))
            return None
        return True

    def step(self, i):
        """Send message i and check its answer; False: stop the run."""
        op = self.pick_op()
        self.by_label[op.label.split('-')[0].split(':')[0]] += 1
        mask_label = '-'.join(op.label.split(':')[0].split('-')[:2])
        if mask_label not in MASK_LABELS:
            mask_label = None
        commit, want = self.predict(op)
        # an accepted new filter's extack: the model's warning (not on
        # --stock: stock says nothing)
        warning = getattr(commit, 'warning', ANY) \
            if op.what == 'new' and not self.a.stock else ANY
        data = op.encode()
        try:
            rep = self.nl.request(data)
        except Timeout as e:
            self.counts['timeouts'] += 1
            self.fail('message %d: %s: %s' % (i, e, op.describe()))
            return False
        self.count_answer(i, op, rep)
        ok = answer_matches(want, rep, warning)
        if ok and want is None and op.what == 'get':
            ok = self.check_get(i, commit, rep)
        if mask_label:
            self.counts[mask_label] += 1
            self.counts['%s %s' % (mask_label,
                                   outcome_text(rep).split()[0])] += 1
        if ok:
            self.passed += 1
            if commit is not None:
                self.mask_counts(commit)
        elif ok is False:
            self.unexpected(i, op, want, rep, warning)
        if self.a.check_every and (i + 1) % self.a.check_every == 0:
            self.check_dump('after message %d' % i)
        return True

    def unexpected(self, i, op, want, rep, warning=ANY):
        expected = ('ack' if warning in (None, ANY) else 'ack %r' % warning) \
            if want is None else '%s %r' % (
            '/'.join(errno.errorcode.get(c, str(c))
                     for c in sorted(want.codes)), want.msg)
        self.fail('message %d: expected %s, got %s: %s'
                  % (i, expected, outcome_text(rep), op.describe()))
        # find out what the kernel holds now and go on from there
        try:
            bodies = self.nl.dump_filters(self.devs['fz0'])
        except (Timeout, OSError) as e:
            self.fail('message %d: dump for the resync failed: %s' % (i, e))
        else:
            self.do_resync('after message %d' % i, bodies)

    def run(self):
        for i in range(self.a.count):
            if self.a.time_limit and \
                    time.monotonic() - self.t0 > self.a.time_limit:
                print('fuzz: time limit reached after %d messages' % i)
                break
            if not self.step(i):
                break
        self.check_dump('at the end')
        self.elapsed = time.monotonic() - self.t0
        # the qdisc (and every filter with it) goes away cleanly
        rc = subprocess.run('tc qdisc del dev fz0 ingress',
                            shell=True).returncode
        if rc:
            self.fail('tc qdisc del dev fz0 ingress failed (%d)' % rc)
        else:
            self.passed += 1
        teardown()

    def report(self):
        counts, elapsed = self.counts, self.elapsed
        print('fuzz: %d messages in %.1f s (%.0f/s): %d accepted, %d '
              'refused, %d lost, %d timeouts; %d dumps compared (%d filters)'
              % (counts['messages'], elapsed,
                 counts['messages'] / max(elapsed, 1e-9),
                 counts['accepted'], sum(self.by_errno.values()),
                 counts['lost'], counts['timeouts'], counts['dumps'],
                 counts['dumped filters']))
        print('fuzz: refused by errno: ' + ', '.join(
            '%s %d' % kv for kv in sorted(self.by_errno.items(),
                                          key=lambda kv: -kv[1])))
        print('fuzz: accepted with a warning: %d (%s)' % (
            sum(self.by_warning.values()), '; '.join(
                '%r %d' % kv for kv in sorted(self.by_warning.items(),
                                              key=lambda kv: -kv[1]))))
        print('fuzz: kinds of message: ' + ', '.join(
            '%s %d' % kv for kv in sorted(self.by_label.items())))
        print('fuzz: sent with tunnel keys %d (%d accepted), with conntrack '
              'keys %d (%d accepted); resync: %d dumped filters not rebuilt'
              % (counts['with tunnel keys'],
                 counts['accepted with tunnel keys'],
                 counts['with ct keys'], counts['accepted with ct keys'],
                 counts['unrebuilt filters']))
        print('fuzz: masks: %d added to a prio beside others, %d dropped '
              'with others left, at most %d in one prio'
              % (counts['masks added beside others'],
                 counts['masks dropped, others left'],
                 counts['most masks in a prio']))
        print('fuzz: sent (answers): ' + '; '.join(
            '%s %d (%s)' % (lb, counts[lb], ', '.join(
                '%s %d' % (k[len(lb) + 1:], n)
                for k, n in sorted(counts.items())
                if k.startswith(lb + ' '))) for lb in MASK_LABELS))
        if self.a.stock:
            print('fuzz: --stock: %d dumped filters kept opaque (the model '
                  'cannot rebuild them)' % self.model.opaque)
        print('fuzz: sent with ' + ', '.join(
            '%s keys %d (%d accepted)' % (k, counts['with %s keys' % k],
                                          counts['accepted with %s keys' % k])
            for k, _p in KINDS[2:]))

    def summary(self):
        """The counts --json writes."""
        counts = self.counts
        return {'seed': self.seed, 'count': self.a.count,
                'messages': counts['messages'],
                'accepted': counts['accepted'],
                'refused': dict(self.by_errno), 'lost': counts['lost'],
                'warned': dict(self.by_warning),
                'timeouts': counts['timeouts'],
                'dumps': counts['dumps'],
                'dumped_filters': counts['dumped filters'],
                'tunnel': counts['with tunnel keys'],
                'tunnel_accepted': counts['accepted with tunnel keys'],
                'ct': counts['with ct keys'],
                'ct_accepted': counts['accepted with ct keys'],
                'unrebuilt': counts['unrebuilt filters'],
                'masks_added': counts['masks added beside others'],
                'masks_dropped': counts['masks dropped, others left'],
                'most_masks': counts['most masks in a prio'],
                'kinds': {k: [counts['with %s keys' % k],
                              counts['accepted with %s keys' % k]]
                          for k, _p in KINDS},
                'seconds': round(self.elapsed, 1),
                'passed': self.passed, 'failed': self.failed}


def main(argv=None):
    a = parse_args(argv)
    if a.stock:
        Stock.on = True
    seed = a.seed if a.seed is not None else int(time.time()) % 1000000
    print('fuzz: seed %d, count %d, time limit %s' % (
        seed, a.count, a.time_limit or 'none'))
    run = Run(a, seed)
    run.run()
    run.report()
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(run.summary(), f, indent=1)
    print('%d passed, %d failed' % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == '__main__':
    sys.exit(main())
