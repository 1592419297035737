# SPDX-License-Identifier: GPL-2.0
"""What the model of fl_change() predicts for a large deterministic
sample, pinned (issue 34 item 7: the two models became one; the pins were
written by the two models before, and the one model must give them all):

  difftest   every filter of difftest/gen.py's batches for SEEDS (with
             and without --cover): refusal, warnings, applied keys
  refusals   every request of difftest/refusals.json, the same
  fuzz       FUZZ_COUNT requests of stress/fuzz.py's loop (Gen.next_op(), its
             mix, offline) for each of FUZZ_SEEDS: the predicted errno
             and extack, or the ack's warning; and every DUMP_EVERY
             requests a digest of the dump the model expects

    /usr/bin/python3 -m flower.tests.model_pins --write   # re-pin
"""

import gzip
import hashlib
import json
import os
import random
import sys

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    'model_pins.json.gz')
SEEDS = range(1, 21)
FUZZ_SEEDS = range(1, 9)
FUZZ_COUNT = 1500
DUMP_EVERY = 100
MAX_FILTERS = 400


def difftest_pins():
    from difftest import gen, model
    out = []
    for seed in SEEDS:
        rng = random.Random(seed)
        for cover in (False, True):
            b = gen.gen_batch(rng, 60, cover=cover)
            for f in b['filters']:
                p = model.predict(f)
                out.append([p['refusal'], p['warnings'],
                            sorted(p['applied'])])
    return out


def refusal_pins():
    from difftest import model, refusals
    out = []
    for r in refusals.load():
        p = model.predict(refusals.to_filter(r))
        out.append([r['id'], p['refusal'], p['warnings'],
                    sorted(p['applied'])])
    return out


def dump_digest(model):
    h = hashlib.sha256()
    for key in sorted(model.tps):
        tp = model.tps[key]
        h.update(repr((key, tp.proto, list(tp.masks))).encode())
        for handle in sorted(tp.filters):
            f = tp.filters[handle]
            h.update(repr((handle, [(t, v.hex()) for t, v in
                                    model.expected_opts(tp, f)])).encode())
    return h.hexdigest()[:16]


def fuzz_pins():
    from stress.flowerfuzz.attrs import Err
    from stress.flowerfuzz.gen import Gen
    from stress.flowerfuzz.model import Model
    devs = {'fz0': 4, 'fz1': 5, 'lo': 1}
    out = []
    for seed in FUZZ_SEEDS:
        rng = random.Random(seed)
        model = Model(devs)
        gen = Gen(rng, model, devs['fz0'])
        for i in range(FUZZ_COUNT):
            op = gen.next_op(MAX_FILTERS)
            op.encode()
            try:
                commit = getattr(model, 'predict_' + op.what)(op)
            except Err as e:
                out.append([op.what, sorted(e.codes), repr(e.msg)])
            else:
                out.append([op.what, 0, getattr(commit, 'warning', None)])
                commit()
            if (i + 1) % DUMP_EVERY == 0:
                out.append(['dump', dump_digest(model)])
    return out


def compute():
    return dict(difftest=difftest_pins(), refusals=refusal_pins(),
                fuzz=fuzz_pins())


def canon(x):
    """x as the pin file holds it (JSON: tuples are lists)."""
    return json.loads(json.dumps(x))


def load():
    with gzip.open(PATH, 'rt') as fp:
        return json.load(fp)


def main(argv):
    if argv[1:] != ['--write']:
        print(__doc__)
        return 2
    pins = compute()
    with gzip.open(PATH, 'wt') as fp:
        json.dump(pins, fp, separators=(',', ':'))
    print(', '.join('%s: %d' % (k, len(v)) for k, v in pins.items()))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
