#!/usr/bin/python3
"""Runs in the guest (guest/run --no-load-flower): mutants one after another.

usage: python3 -m mutate.inguest --out DIR [--oracles a,b,...] [--exclude ID,...] ID...

For each ID: insmod build/mutate/<ID>/cls_flower.ko (the directory given by
--mods), check /sys/module/cls_flower/srcversion is the mutant's, run the
oracles in order and stop at the first failure, check the module is still
the mutant (nothing reloaded ours behind our back), rmmod.  DIR/<ID>.start
is written before, DIR/<ID>.json after: a start without a result tells the
host the guest died on that mutant.  A kernel splat (guest/run's pattern,
read from dmesg) fails the oracle that was running.  DIR/<ID>.start holds the name of the oracle running (the host's
"crash" names it).  After a splat, a
failed rmmod or an oracle timeout the kernel is not trusted for the next
mutant: exit 99, the host starts a new guest for the rest.
"""
import argparse
import json
import os
import re
import select
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.dont_write_bytecode = True
# guest/run's splat pattern, so "a kernel splat" means the same here
from flower.guest import is_splat  # noqa: E402 (after dont_write_bytecode)
from flower.guest import file_srcversion, loaded_srcversion  # noqa: E402
from mutate.report import ORACLES  # noqa: E402
from flower.results import summary_line  # noqa: E402

PY = '/usr/bin/python3'
FWD = os.path.join(REPO, 'build/src/pristine/tools/testing/selftests/net/forwarding')
DT = os.path.join(REPO, 'build/mutate/difftest')
# the gate profile's difftest (mutate.run --oracles gate): the batch of
# make difftest-smoke and stock-next's verdicts on it (mutate.run
# gate_difftest_ref())
DT_GATE = os.path.join(REPO, 'build/mutate/gate/difftest')
DT_GATE_MIN_VERDICTS = 10000    # difftest.mk's DT_SMOKE_MIN_VERDICTS
RESTART = 99


def tdc_ok(rc, out):
    """tdc.py: exit 0 and a summary with nothing failed or skipped (the
    gate counts a skip as a failure)."""
    counts = summary_line(out)
    if counts is None:
        return False, 'no tdc summary'
    p, f, s = counts
    if rc or f or s or not p:
        return False, 'tdc: %d passed, %d failed, %d skipped' % (p, f, s)
    return True, 'tdc: %d passed' % p


def summary_ok(rc, out):
    """A stress part (stress/flow_cache.py): exit 0 and a last line "N
    passed, 0 failed" with N > 0."""
    last = re.findall(r'^(\d+) passed, (\d+) failed$', out, re.M)
    if rc or not last or last[-1][1] != '0' or last[-1][0] == '0':
        fails = re.findall(r'^FAIL .*$', out, re.M)
        return False, 'exit %d, %s%s' % (
            rc, '%s passed, %s failed' % last[-1] if last else 'no summary',
            ': ' + fails[0][:200] if fails else '')
    return True, '%s passed' % last[-1][0]


def selftests_ok(rc, out):
    """tc_flower.sh: every TEST line OK, at least one, exit 0."""
    tests = re.findall(r'^TEST: (.*?)\s+\[\s*(\w+)\s*\]', out, re.M)
    bad = [t for t, v in tests if v != 'OK']
    if rc or bad or not tests:
        return False, 'tc_flower.sh: exit %d, %d tests, not OK: %s' % (
            rc, len(tests), '; '.join(bad[:5]))
    return True, 'tc_flower.sh: %d OK' % len(tests)


def difftest_same(ref, got):
    """None if the mutant's verdict matrix (difftest/runner.py's output) is
    the unmutated module's, else the first difference: which filters were
    accepted (and with what message), which frames each counted, which
    frames reached tc at all."""
    if len(ref['batches']) != len(got['batches']):
        return 'batches: %d, want %d' % (len(got['batches']), len(ref['batches']))
    for bi, (rb, gb) in enumerate(zip(ref['batches'], got['batches'])):
        for fi, (rf, gf) in enumerate(zip(rb['filters'], gb['filters'])):
            for k in ('err', 'msg', 'bits'):
                if rf.get(k) != gf.get(k):
                    return 'batch %d filter %d: %s differs' % (bi, fi, k)
        if len(rb['filters']) != len(gb['filters']) or rb['reached'] != gb['reached']:
            return 'batch %d: filters or frames reaching tc differ' % bi
    return None


def difftest_ok(rc, out, ref_path, got_path):
    if rc:
        return False, 'difftest runner: exit %d' % rc
    with open(ref_path) as f:
        ref = json.load(f)
    with open(got_path) as f:
        got = json.load(f)
    diff = difftest_same(ref, got)
    if diff:
        return False, 'difftest: ' + diff
    return True, 'difftest: %d filters, same verdicts' % sum(
        len(b['filters']) for b in ref['batches'])


def compare_ok(rc, out):
    """difftest/compare.py --final against stock-next (strict mode), as
    make difftest-smoke DT_STOCK=stock-next judges: exit 0 and a last
    line "N passed, 0 failed"."""
    last = [ln for ln in out.splitlines() if re.match(r'^\d+ passed, \d+ failed$', ln)]
    fails = [ln for ln in out.splitlines()
             if ln.startswith(('divergence [', 'difftest: FAIL'))]
    if rc or not last or not last[-1].endswith(' 0 failed'):
        return False, 'difftest vs stock-next: exit %d, %s%s' % (
            rc, last[-1] if last else 'no summary',
            ': ' + fails[0][:200] if fails else '')
    return True, 'difftest vs stock-next: ' + last[-1]


def debug_ok(rc, out):
    """leakcheck.py found no leak, then the packet cases passed; rc and
    out are those of the last command run (run_oracle stops at the first
    that fails)."""
    leak = re.findall(r'^leakcheck: .*$', out, re.M)
    if not leak or leak[-1] != 'leakcheck: 0 unreferenced objects':
        return False, (leak or ['exit %d: %s' % (rc, out.strip()[-300:])])[-1]
    ok, why = tdc_ok(rc, out)
    return ok, '%s; packets (stack pattern-filled): %s' % (leak[-1], why)


def case_files():
    """(packets, rest): the packets-*.json case files, and the other flower
    case files, regressions.json first (each was written against a bug)."""
    flower = 'tc-tests/filters/flower'
    files = sorted(os.path.join(flower, f)
                   for f in os.listdir(os.path.join(REPO, flower))
                   if f.endswith('.json'))
    packets = [f for f in files if os.path.basename(f).startswith('packets-')]
    rest = sorted((f for f in files if f not in packets),
                  key=lambda f: not f.endswith('/regressions.json'))
    return packets, rest


# The packet files of the oracle packets-sample: each sample mutant of
# mutate.run dies on one of them (an arp_sip row, the dissection, an exact
# key's mask), and m0000 must pass all of them in the same run.  Two files
# of 23 cases: the third that the dst_ip row once died on cost the gate
# stage a minute and proved nothing the arp row does not.
SAMPLE_FILES = ('packets-arp.json', 'packets-ct.json')


def oracles(out_dir, mid, exclude=()):
    """{name: ([command...], judge, seconds)}; exclude: case ids the tdc
    oracles leave out (they fail on the unmutated source too)."""
    dt_out = os.path.join(out_dir, '%s-difftest.json' % mid)
    dtg_out = os.path.join(out_dir, '%s-difftest-gate.json' % mid)
    # the packet cases have passed by then: the corpus oracle runs the rest
    packets, rest = case_files()
    x = ['--exclude'] + list(exclude) if exclude else []
    sample = [f for f in packets if os.path.basename(f) in SAMPLE_FILES]
    return {
        'packets': ([[PY, '-m', 'tdc.tdc', '-J', '2'] + x + ['-f'] + packets], tdc_ok, 900),
        # mutate.run --sample (the gate stage): the same judge on a few
        # files, for the three sample mutants and m0000 alike
        'packets-sample': ([[PY, '-m', 'tdc.tdc', '-J', '2'] + x + ['-f'] + sample],
                           tdc_ok, 300),
        # the smoke batch; verdicts compared with the unmutated module's
        'difftest': ([[PY, 'difftest/runner.py', '--rounds-k', '4',
                       DT + '/smoke1.json', dt_out]],
                     lambda rc, out: difftest_ok(rc, out, DT + '/smoke1-ours.json', dt_out),
                     # 5-10 s when it works: a stuck runner is a hung kernel
                     120),
        # the gate profile (mutate.run --oracles gate): the mutant as ours
        # against stock-next, judged by difftest/compare.py's classes in
        # strict mode, exactly as the gate's make difftest-smoke
        # DT_STOCK=stock-next (no shrink pass: it only makes reproducers)
        'difftest-gate': ([[PY, '-m', 'difftest.runner', '--rounds-k', '4',
                            DT_GATE + '/smoke.json', dtg_out],
                           [PY, '-m', 'difftest.compare', '--cases', DT_GATE + '/smoke.json',
                            '--ours', dtg_out, '--stock', DT_GATE + '/smoke-stock-next.json',
                            '--stock-name', 'stock-next', '--cover', '--final',
                            '--min-verdicts', str(DT_GATE_MIN_VERDICTS)]],
                          compare_ok, 600),
        # the flow cache between changes (stress-smoke's cache part,
        # fewer steps): a bump left out, an entry kept past its filter
        'cache': ([[PY, '-m', 'stress.flow_cache', '--steps', '40']],
                  summary_ok, 300),
        'selftests': ([['bash', 'selftests/in-guest', FWD, 'tc_flower.sh']],
                      selftests_ok, 900),
        'corpus': ([[PY, '-m', 'tdc.tdc', '-J', '2', '-c', 'flower'] + x + ['-f'] + rest],
                   tdc_ok, 3600),
        # the debug kernel's guest only (mutate.run --debug): leaks and
        # error paths, then the packets with the stack pattern-filled
        'debug': ([[PY, '-m', 'mutate.leakcheck'],
                   [PY, '-m', 'tdc.tdc', '-J', '2'] + x + ['-f'] + packets],
                  debug_ok, 2400),
    }


def splats():
    out = subprocess.run(['dmesg'], capture_output=True, text=True).stdout
    return [ln for ln in out.splitlines() if is_splat(ln)]


# A line that already says the oracle failed: the rest of its run is not
# needed (a failing tdc case may wait for its timeouts), so it is stopped
# there and what it left behind is cleaned up (cleanup()).
FAIL_LINE = {'packets': r'^not ok ', 'packets-sample': r'^not ok ',
             'corpus': r'^not ok ', 'debug': r'^not ok ', 'cache': r'^FAIL ',
             'selftests': r'^TEST: .*\[\s*(FAIL|SKIP)\s*\]'}


def cleanup():
    """Namespaces and links an interrupted oracle left (their filters hold
    the module)."""
    subprocess.run(['ip', '-all', 'netns', 'delete'], capture_output=True)
    for dev in os.listdir('/sys/class/net'):
        # virtual links only (no device/ behind them), never lo
        if dev != 'lo' and not os.path.exists('/sys/class/net/%s/device' % dev):
            subprocess.run(['ip', 'link', 'del', dev], capture_output=True)


def run_cmd(cmd, limit, fail_re):
    """(rc, output, why stopped or None) of one command, stopped at the
    first line fail_re matches or after limit seconds."""
    p = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         start_new_session=True,
                         # difftest/runner.py imports the repository's packages
                         env=dict(os.environ, PYTHONPATH=REPO))
    t0, out, stopped = time.time(), [], None
    while True:
        r, _, _ = select.select([p.stdout], [], [], 5)
        if r:
            line = p.stdout.readline()
            if not line:
                break
            out.append(line)
            if fail_re and re.search(fail_re, line):
                stopped = 'first failure: ' + line.strip()[:200]
        if not stopped and time.time() - t0 > limit:
            stopped = 'timeout after %d s' % limit
        if stopped:
            os.killpg(p.pid, signal.SIGKILL)
            break
    p.wait()
    return p.returncode, ''.join(out), stopped


def run_oracle(name, spec):
    cmds, judge, limit = spec
    t0, out, rc = time.time(), '', 0
    for cmd in cmds:
        rc, o, stopped = run_cmd(cmd, limit, FAIL_LINE.get(name))
        out += o
        if stopped:
            cleanup()
            return {'name': name, 'ok': False, 'rc': rc, 'timeout': stopped.startswith('timeout'),
                    'seconds': round(time.time() - t0, 1),
                    'why': '%s: %s' % (name, stopped), 'tail': out[-1500:]}
        if rc:
            break
    ok, why = judge(rc, out)
    return {'name': name, 'ok': ok, 'rc': rc, 'seconds': round(time.time() - t0, 1),
            'why': why, 'tail': '' if ok else out[-1500:]}


def one(mid, mods, out_dir, order, exclude=(), mark=None):
    res = {'id': mid, 'oracles': [], 'verdict': 'survived', 'killer': None,
           'order': order}
    ko = os.path.join(mods, mid, 'cls_flower.ko')
    want = file_srcversion(ko)
    subprocess.run(['dmesg', '-C'])
    p = subprocess.run(['insmod', ko], capture_output=True, text=True)
    if p.returncode or loaded_srcversion() != want:
        res.update(verdict='killed', killer='insmod',
                   why='insmod: %s (srcversion %s, want %s)' % (
                       p.stderr.strip(), loaded_srcversion(), want))
        return res, bool(splats())
    if exclude:
        res['exclude'] = sorted(exclude)
    specs = oracles(out_dir, mid, exclude)
    restart = False
    for name in order:
        if mark:
            mark(name)      # the host's crash names the oracle running
        r = run_oracle(name, specs[name])
        sp = splats()
        if sp:
            r.update(ok=False, why='kernel splat: ' + sp[0][:200],
                     splat=[ln[:200] for ln in sp[:8]])
            restart = True
        if loaded_srcversion() != want:
            r.update(ok=False, why='cls_flower is no longer the mutant (%s)' % loaded_srcversion())
            restart = True
        res['oracles'].append(r)
        if not r['ok']:
            res.update(verdict='killed', killer=name, why=r['why'])
            restart = restart or r.get('timeout', False)
            break
    cleanup()
    for _ in range(5):      # filters are freed after a grace period
        p = subprocess.run(['rmmod', 'cls_flower'], capture_output=True, text=True)
        if not p.returncode:
            break
        time.sleep(1)
    if p.returncode:
        if res['verdict'] == 'survived':
            res.update(verdict='killed', killer='rmmod', why='rmmod: ' + p.stderr.strip())
        restart = True
    return res, restart


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--mods', default=os.path.join(REPO, 'build/mutate'))
    ap.add_argument('--oracles', default=','.join(ORACLES))
    ap.add_argument('--exclude', default='', metavar='ID,...',
                    help='case ids the packets and corpus oracles leave out: '
                    'those that fail on the unmutated source (mutate.run.baseline)')
    ap.add_argument('ids', nargs='+')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    # empty: insmod and rmmod only (a confirmation of an insmod kill)
    order = [o for o in a.oracles.split(',') if o]
    for mid in a.ids:
        start = os.path.join(a.out, mid + '.start')
        open(start, 'w').close()

        def mark(name, start=start):
            with open(start, 'w') as f:
                f.write(name + '\n')
        t0 = time.time()
        res, restart = one(mid, a.mods, a.out, order,
                           [i for i in a.exclude.split(',') if i], mark)
        res['seconds'] = round(time.time() - t0, 1)
        with open(os.path.join(a.out, mid + '.json'), 'w') as f:
            json.dump(res, f, indent=1)
        print('mutate: %s %s%s (%.0f s)' % (mid, res['verdict'],
              ' by ' + res['killer'] if res['killer'] else '', res['seconds']), flush=True)
        if restart:
            return RESTART
    return 0


if __name__ == '__main__':
    sys.exit(main())
