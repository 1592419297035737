# SPDX-License-Identifier: GPL-2.0
"""The requests the harness sends to the kernel, built without a kernel:
the fuzz generator with fixed seeds (its model standing in for the
kernel's answers), churn's and lifecycle's builders, leakcheck's faulted
requests, the difftest runner's and the offload replay's filters (gact
actions included), and the dump requests.

requests() -> [(label, bytes)], each request exactly as it would go to
the kernel (sequence number 0).  golden_requests.json holds the sha256 of
each as the code before the one netlink codec (issue 34 item 7) built
it; test_codec_bytes.py checks today's code against it.

    /usr/bin/python3 -m stress.tests.golden_requests  # rewrite the file
"""

import hashlib
import json
import os
import random
import struct
import sys
import types
from unittest import mock

from flower import nl

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, 'golden_requests.json')

FUZZ_SEEDS = (1, 2, 3)
FUZZ_COUNT = 400


class Capture(nl.NLSock):
    """A socket that records what it would send and acknowledges it."""

    def __init__(self, timeout=30.0, rcvbuf=0):
        self.timeout = timeout
        self.sent = []
        self.seq = 0
        self.requests = 0

    def request(self, data, timeout=None):
        self.sent.append(bytes(data))
        return nl.Reply()

    def close(self):
        pass


def fuzz_requests():
    """Run.pick_op()'s requests for FUZZ_COUNT steps per seed, the model
    taking its own predictions as the kernel's answers."""
    from stress import fuzz
    from stress.flowerfuzz.attrs import Err
    from stress.flowerfuzz.gen import Gen
    from stress.flowerfuzz.model import Model
    devs = {'fz0': 4, 'fz1': 5, 'lo': 1}
    out = []
    for seed in FUZZ_SEEDS:
        rng = random.Random(seed)
        model = Model(devs)
        run = types.SimpleNamespace(
            rng=rng, model=model, gen=Gen(rng, model, devs['fz0']),
            a=types.SimpleNamespace(max_filters=60))
        for i in range(FUZZ_COUNT):
            op = fuzz.Run.pick_op(run)
            out.append(('fuzz seed %d #%d %s' % (seed, i, op.label),
                        op.encode()))
            try:
                if op.what == 'new':
                    commit = model.predict_new(op)
                elif op.what == 'del':
                    commit = model.predict_del(op)
                else:
                    commit = model.predict_get(op)
            except Err:
                continue
            commit()
    return out


def churn_requests():
    from stress import churn
    cap = Capture()
    ch = churn.Churn(cap, 7, random.Random(0))
    labels = []
    for prio in (10, 20):
        for k in (0, 1, 254, 300):
            for idx in churn.pool(k) + [churn.catchall(k)]:
                for flags in (nl.NLM_F_CREATE | nl.NLM_F_EXCL,
                              nl.NLM_F_CREATE | nl.NLM_F_REPLACE, 0):
                    ch.request('new', prio, 1 + k % 3, k, idx, flags)
                    labels.append('churn new prio %d k %d idx %d flags %#x'
                                  % (prio, k, idx, flags))
        for handle in (1, 2, 3):
            ch.request('del', prio, handle)
            labels.append('churn del prio %d handle %d' % (prio, handle))
    return list(zip(labels, cap.sent))


def lifecycle_requests():
    from stress import lifecycle as lc
    out = []
    for idx in (2, 9):
        for prio in (1, 2, 300):
            for handle in (1, 7, 0x10001):
                for flags in (nl.NLM_F_CREATE | nl.NLM_F_EXCL,
                              nl.NLM_F_CREATE | nl.NLM_F_REPLACE):
                    for verdict in (0, 2):
                        out.append((
                            'lifecycle new %d %d %d %#x %d' % (
                                idx, prio, handle, flags, verdict),
                            lc.new_msg(idx, prio, handle, [10, 0, 0, handle
                                                           & 0xFF], flags,
                                       verdict)))
                    out.append(('lifecycle new src %d %d %d' % (
                        idx, prio, handle), lc.new_msg(
                            idx, prio, handle, None, flags,
                            src=[10, 9, 0, 7])))
                out.append(('lifecycle del %d %d %d' % (idx, prio, handle),
                            lc.del_msg(idx, prio, handle)))
    return out


def leakcheck_requests():
    """faulted_requests()'s three requests (the tc commands around them
    not run)."""
    sys.path.insert(0, os.path.join(HERE, '..', '..', 'mutate'))
    from mutate import leakcheck
    sent = []

    class Inj:
        def nth_request(self, data, n):
            sent.append(bytes(data))
            return None, None, False

    with mock.patch.object(leakcheck, 'sh'), \
            mock.patch.object(leakcheck, 'ifindex', lambda dev: 11), \
            mock.patch.object(leakcheck, 'Injector', Inj), \
            mock.patch.object(leakcheck.subprocess, 'run'):
        leakcheck.faulted_requests()
    return [('leakcheck %d' % i, d) for i, d in enumerate(sent)]


def dump_requests():
    """The filter dumps stress and difftest send."""
    cap = Capture()
    for idx, parent, chain in ((4, nl.TC_H_INGRESS, None), (9, 0x10000, 5),
                               (1, nl.TC_H_CLSACT_INGRESS, 0)):
        cap.dump_filters(idx, parent, chain)
    return [('dump %d' % i, d) for i, d in enumerate(cap.sent)]


def difftest_requests():
    """The runner's filters (with gact actions by index), its matchall
    guards, its dumps of filters and of gact actions."""
    from difftest import runner
    rig = runner.Rig.__new__(runner.Rig)
    rig.nl = Capture()
    rig.rx, rig.tx = 'drx', 'dtx'
    rig.hooks = {None: (3, nl.TC_H_CLSACT_INGRESS),
                 'vxlan': (8, nl.TC_H_CLSACT_INGRESS)}
    rig.next_index = 40
    batch = {'filters': [
        {'proto': 'ip', 'attrs': [[8, '0800'], [12, '0a000001'],
                                  [13, 'ffffff00']]},
        {'proto': 'ipv6', 'tc_proto': 'all', 'attrs': [[8, '86dd'],
                                                       [9, '06'],
                                                       [19, '0050']]},
        {'proto': 'ip', 'chain': 1, 'attrs': [[8, '0800'], [95, '01000000']]},
        {'proto': 'ip', 'dev': 'vxlan', 'attrs': [[8, '0800'],
                                                  [26, '0000002a']]}],
        'packets': [], 'prio': [1, 2, 3, 4]}
    br = runner.BatchRun(rig, batch, None)
    br.base = rig.next_index
    br.install_filters()
    br.ct = None
    br.install_guards()
    rig.dump_filters()
    try:
        rig.counters()
    except (KeyError, IndexError):
        pass
    rig.add_filter(5, 0x86dd, 'flower', b'', handle=9, chain=3)
    return [('difftest %d' % i, d) for i, d in enumerate(rig.nl.sent)]


def offload_requests():
    sys.path.insert(0, os.path.join(HERE, '..', '..', 'offload'))
    from offload import replay
    cap = Capture()
    steps = [
        dict(dev='fc0', hook='ingress', prio=1, handle=1, proto=0x0800,
             attrs=[[8, '0800'], [12, '0a000001']], act='drop'),
        dict(dev='fc0', hook='egress', prio=2, handle=5, proto=0x86dd,
             attrs=[[8, '86dd']], flags=2, act='pass', chain=4),
        dict(dev='fc1', hook='ffff:', prio=3, handle=9, proto=0x0003,
             attrs=[], flags=1),
    ]
    with mock.patch.object(replay, 'NL', cap), \
            mock.patch.object(replay.socket, 'if_nametoindex',
                              lambda dev: 20 + int(dev[-1])):
        for step in steps:
            replay.step_nl_add(step)
    return [('offload %d' % i, d) for i, d in enumerate(cap.sent)]


def zero_seq(data):
    buf = bytearray(data)
    struct.pack_into('=I', buf, 8, 0)
    return bytes(buf)


SOURCES = (fuzz_requests, churn_requests, lifecycle_requests,
           leakcheck_requests, dump_requests, difftest_requests,
           offload_requests)


def requests():
    out = []
    for source in SOURCES:
        out += [(label, zero_seq(data)) for label, data in source()]
    return out


def digest(data):
    return hashlib.sha256(data).hexdigest()[:32]


def main():
    reqs = requests()
    with open(GOLDEN, 'w') as f:
        json.dump({'comment': 'sha256[:32] of each request the harness '
                   'built before the one netlink codec (stress/tests/'
                   'golden_requests.py)',
                   'requests': [[label, digest(data)]
                                for label, data in reqs]}, f, indent=0)
        f.write('\n')
    print('%d requests, %d bytes -> %s' % (
        len(reqs), sum(len(d) for _l, d in reqs), GOLDEN))


if __name__ == '__main__':
    main()
