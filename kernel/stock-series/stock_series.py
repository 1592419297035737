# SPDX-License-Identifier: GPL-2.0
"""The stock series: fixes for the pristine tree's net/sched/cls_flower.c
(kernel/stock-series/series, docs/stock-series.md).  kernel/stock-series.mk
runs it.

  stock_series.py gate [--i386]
      Every patch of the series in order, on a copy of the pristine file
      (build/src/stock-next/tree): it applies (git apply: no fuzz, no
      whitespace error, net/sched/cls_flower.c only), has a well-formed
      Fixes: tag (a fix) or says RFC in its subject prefix and has no
      Fixes: tag (a behaviour change offered for comment, "[RFC PATCH
      ...]"), is clean under checkpatch --strict at 80 columns, and
      the file then builds as cls_flower.ko with W=1 and sparse (C=1)
      without a warning, as an external module (kbuild M=) against
      build/obj/ours, the way `make stock-ext` builds the stock module.
      With --i386, the file then also compiles with W=1 for i386 without
      a warning (cls_flower.o, M= against build/obj/i386, make walk32's
      32-bit kernel: unsigned long and pointers are 32 bits wide there),
      into step-K/i386/.  make stock-series-gate gives --i386; make
      stock-next-ext, which needs the module only, does not.
      Step K's module goes to build/stock-next/step-K/ (step-0: the
      pristine file, built the same way); the last step's is
      build/stock-next/cls_flower.ko (stock-next) once every patch
      passed.  One "ok N/M subject" or "not ok N/M subject: why" line a
      patch, then "N passed, N failed".  A patch that does not apply
      stops the run; the ones after it count as failed.

  stock_series.py guest OUT LABEL=KO...          (in the guest)
      For each LABEL in turn: cls_flower := KO (rmmod, insmod, and a
      check that the module answering is KO), then the cases of
      tc-tests/filters/flower/stock-fixes.json into OUT/LABEL.tap.
      Exits 2 if a module could not be loaded, else 0 (which cases
      failed is for report to judge).

  stock_series.py report OUT LABEL...
      What the guest run should show: the cases of patch N fail on the
      steps before N (step-0 is stock) and pass from step N on; every
      case passes on "ours".  One line a case and label that differs,
      then "N passed, N failed" over the (case, label) pairs.

checkpatch runs from the pristine tree's root with two checks left out:
UNKNOWN_COMMIT_ID (6.1's checkpatch asks `git log` about every commit id
it reads, and no upstream history is at hand: the ids were checked
against torvalds/linux instead, docs/stock-series.md), and, for a
backport only (a "commit <sha> upstream." line, the stable tree's form),
GIT_COMMIT_ID, which that very line trips.
"""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
from flower.results import parse_tap as read_tap  # noqa: E402
from flower.guest import file_srcversion, loaded_srcversion  # noqa: E402

BUILD = os.path.join(REPO, 'build')
PRISTINE = os.path.join(BUILD, 'src', 'pristine')
OURS_SRC = os.path.join(BUILD, 'src', 'ours')
OURS_OBJ = os.path.join(BUILD, 'obj', 'ours')
TREE = os.path.join(BUILD, 'src', 'stock-next', 'tree')
OUT = os.path.join(BUILD, 'stock-next')
# make walk32's kernel (tinyconfig + guest/i386/walk32.config, no modules)
I386_OBJ = os.path.join(BUILD, 'obj', 'i386')
# the Makefile's kernel_lock, for ours and for make walk32's i386 kernel
KERNEL_LOCK = os.path.join(BUILD, '.kernel-ours.lock')
I386_LOCK = os.path.join(BUILD, '.kernel-i386.lock')
FILE = 'net/sched/cls_flower.c'
CASES = os.path.join(REPO, 'tc-tests', 'filters', 'flower',
                     'stock-fixes.json')
CHECKPATCH = [os.path.join(PRISTINE, 'scripts', 'checkpatch.pl'),
              '--strict', '--max-line-length=80', '--ignore',
              'UNKNOWN_COMMIT_ID']
BACKPORT_RE = re.compile(r'^commit [0-9a-f]{40} upstream\.$', re.M)
PREFIX_RE = re.compile(r'^\[[^\]]*\bPATCH\b[^\]]*\]\s*')
FIXES_RE = re.compile(r'^Fixes: [0-9a-f]{12} \("[^"\n]+"\)$', re.M)
CASE_PATCH_RE = re.compile(r'^\[stock-series (\d+)/(\d+)\] ')


def series():
    """The patch files of kernel/stock-series/series (or of the series
    file in $STOCK_SERIES_DIR: a copy to try the gate on), in order."""
    where = os.environ.get('STOCK_SERIES_DIR') or HERE
    with open(os.path.join(where, 'series')) as f:
        names = [line.strip() for line in f
                 if line.strip() and not line.startswith('#')]
    return [os.path.join(where, n) for n in names]


def full_subject(path):
    """A patch's Subject: line, unfolded, its "[PATCH ...]" prefix in."""
    with open(path) as f:
        text = f.read()
    m = re.search(r'^Subject: (.*(?:\n [^\n]*)*)', text, re.M)
    return re.sub(r'\s*\n\s*', ' ', m.group(1)) if m else \
        os.path.basename(path)


def subject(path):
    """A patch's subject, its "[PATCH ...]" or "[RFC PATCH ...]" prefix
    left out."""
    return PREFIX_RE.sub('', full_subject(path))


def is_rfc(path):
    """The patch is an RFC: its subject prefix says so ("[RFC PATCH
    ...]")."""
    m = PREFIX_RE.match(full_subject(path))
    return bool(m and re.search(r'\bRFC\b', m.group(0)))


def message(path):
    """The commit message of a format-patch file (after the headers, up to
    the --- line)."""
    with open(path) as f:
        text = f.read()
    body = text.split('\n\n', 1)[1] if '\n\n' in text else ''
    return body.split('\n---\n', 1)[0]


def run(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def git_apply(args, path):
    """git apply ARGS PATH in TREE, as outside any repository: TREE is
    under this repository's (ignored) build/, where git would apply only
    the paths below the current directory."""
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(TREE))
    r = subprocess.run(['git', 'apply'] + args + [path], cwd=TREE, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return r.returncode, r.stdout


def build(step_dir, src, jobs):
    """cls_flower.ko of src in step_dir, W=1 C=1, against ours' objects;
    (ok, problems)."""
    return kbuild(step_dir, src, ['O=' + OURS_OBJ, '-j%d' % jobs, 'W=1',
                                  'C=1', 'modules'], 'cls_flower.ko')


def build32(step_dir, src):
    """cls_flower.o of src for i386 in step_dir/i386, W=1, against make
    walk32's kernel (which has no modules: the object is what can be
    checked); (ok, problems)."""
    return kbuild(os.path.join(step_dir, 'i386'), src,
                  ['ARCH=i386', 'O=' + I386_OBJ, 'W=1', 'cls_flower.o'],
                  'cls_flower.o')


def kbuild(out_dir, src, args, product):
    """src as cls_flower.c in a fresh out_dir, built M= with make ARGS:
    (ok, problems), ok when PRODUCT is there and make said nothing."""
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    shutil.copy(src, os.path.join(out_dir, 'cls_flower.c'))
    with open(os.path.join(out_dir, 'Kbuild'), 'w') as f:
        f.write('obj-m := cls_flower.o\n')
    rc, out = run(['make', '-s', '-C', OURS_SRC, 'M=' + out_dir] + args)
    noise = [line for line in out.splitlines() if line.strip()]
    if rc or not os.path.exists(os.path.join(out_dir, product)):
        return False, ['build failed (exit %d)' % rc] + noise[-20:]
    if noise:
        return False, ['compiler/sparse output:'] + noise[:20]
    return True, []


def gate(jobs, i386=False):
    patches = series()
    total = len(patches)
    if not gate_can_start(total, i386):
        return 1
    lock = lock_kernel_builds(i386)
    try:
        ok, problems = start_from_pristine(jobs, i386)
        if not ok:
            print('stock-series-gate: the pristine file does not build '
                  'cleanly:')
            print('\n'.join('  ' + p for p in problems))
            print('0 passed, %d failed' % total)
            return 1
        passed = apply_series(patches, jobs, i386)
        if passed == total:
            shutil.copy(os.path.join(OUT, 'step-%d' % total, 'cls_flower.ko'),
                        os.path.join(OUT, 'cls_flower.ko'))
    finally:
        for f in lock:
            fcntl.flock(f, fcntl.LOCK_UN)
            f.close()
    print('%d passed, %d failed' % (passed, total - passed))
    return 0 if passed == total else 1


def gate_can_start(total, i386):
    """A series to check and what the builds need: if not, say so and
    count every patch as failed."""
    if not total:
        print('stock-series-gate: no patches in kernel/stock-series/series')
        print('0 passed, 1 failed')
        return False
    needs = [(os.path.join(OURS_OBJ, 'Module.symvers'), 'make kernel'),
             (CHECKPATCH[0], 'make tree-pristine')]
    if i386:
        needs.append((os.path.join(I386_OBJ, 'arch', 'x86', 'boot',
                                    'bzImage'), 'make walk32-kernel'))
    for need, how in needs:
        if not os.path.exists(need):
            print('stock-series-gate: %s is missing (%s)'
                  % (os.path.relpath(need, REPO), how))
            print('0 passed, %d failed' % total)
            return False
    return True


def lock_kernel_builds(i386):
    """The open lock files, locked: ours' kernel's, then (i386) make
    walk32's.  Taken before anything is cleared: a second gate (make
    stock-next-ext runs one) waits instead of clearing this one's tree
    and steps, make stock-next-ext installs cls_flower.ko under ours',
    and no i386 kernel build changes the objects compiled against."""
    locks = []
    for path in [KERNEL_LOCK] + ([I386_LOCK] if i386 else []):
        lock = open(path, 'a')
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print('stock-series-gate: waiting for a kernel build (%s)'
                  % os.path.relpath(path, REPO), flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        locks.append(lock)
    return locks


def start_from_pristine(jobs, i386):
    """TREE holds the pristine file again, OUT no step and no
    stock-next module of an earlier run; step-0 built from the pristine
    file (and for i386): (ok, problems)."""
    shutil.rmtree(TREE, ignore_errors=True)
    os.makedirs(os.path.dirname(os.path.join(TREE, FILE)))
    shutil.copy(os.path.join(PRISTINE, FILE), os.path.join(TREE, FILE))
    os.makedirs(OUT, exist_ok=True)
    final = os.path.join(OUT, 'cls_flower.ko')
    if os.path.exists(final):
        os.remove(final)
    for stale in os.listdir(OUT):
        if stale.startswith('step-'):
            shutil.rmtree(os.path.join(OUT, stale), ignore_errors=True)
    problems = step_builds(os.path.join(OUT, 'step-0'), jobs, i386)
    return not problems, problems


def apply_series(patches, jobs, i386):
    """Each patch in turn applied to TREE and checked, one ok / not ok
    line each; -> how many passed."""
    total = len(patches)
    passed = 0
    for n, path in enumerate(patches, 1):
        name = subject(path)
        problems = apply_problems(path)
        if problems:
            print('not ok %d/%d %s: %s' % (n, total, name,
                                           '; '.join(problems)))
            # the later patches were written against this one's result
            for rest in range(n + 1, total + 1):
                print('not ok %d/%d %s: not tried (an earlier patch '
                      'does not apply)' % (rest, total,
                                           subject(patches[rest - 1])))
            break
        git_apply(['--whitespace=error'], path)
        problems = step_problems(n, total, path, jobs, i386)
        if problems:
            print('not ok %d/%d %s: %s' % (n, total, name,
                                           '; '.join(problems)))
        else:
            passed += 1
            print('ok %d/%d %s (%s)' % (n, total, name, checks(i386)),
                  flush=True)
    return passed


def apply_problems(path):
    """Why the patch cannot go onto TREE as it is: a file other than FILE,
    fuzz, a whitespace error."""
    problems = []
    rc, out = git_apply(['--numstat'], path)
    files = [line.split('\t')[2] for line in out.splitlines()
             if line.count('\t') >= 2]
    if rc or files != [FILE]:
        problems.append('touches %s, not %s only' %
                        (', '.join(files) or out.strip(), FILE))
    if not problems:
        rc, out = git_apply(['--check', '--whitespace=error'], path)
        if rc:
            problems.append('does not apply: ' +
                            out.strip().replace('\n', '; '))
    return problems


def checks(i386):
    """What an "ok" line has checked."""
    return ('git apply, Fixes:/RFC, checkpatch --strict, W=1 + sparse' +
            (', i386' if i386 else ''))


def step_builds(step_dir, jobs, i386):
    """TREE's file built into step_dir: the module, then (i386) the
    32-bit object; one problem per build that failed."""
    src = os.path.join(TREE, FILE)
    builds = [('cls_flower.ko (W=1 C=1)', lambda: build(step_dir, src, jobs))]
    if i386:
        builds.append(('cls_flower.o (W=1, i386)',
                       lambda: build32(step_dir, src)))
    problems = []
    for what, run_build in builds:
        ok, why = run_build()
        if not ok:
            problems.append('\n'.join([what + ':'] +
                                      ['    ' + w for w in why]))
    return problems


def step_problems(n, total, path, jobs, i386):
    """The checks of patch n once applied (its tags, checkpatch, the
    step's builds); prints the line of its size and kind first."""
    adds, dels = patch_size(path)
    msg = message(path)
    problems = (tag_problems(path, msg) + checkpatch_problems(path, msg) +
                step_builds(os.path.join(OUT, 'step-%d' % n), jobs, i386))
    print('  %d/%d: +%d -%d lines, %s' % (
        n, total, adds, dels, 'rfc' if is_rfc(path) else
        'backport' if BACKPORT_RE.search(msg) else 'fix'),
        flush=True)
    return problems


def patch_size(path):
    """(lines added, lines deleted) by the patch."""
    adds = dels = 0
    rc, out = git_apply(['--numstat'], path)
    for line in out.splitlines():
        a, d = line.split('\t')[:2]
        adds, dels = adds + int(a), dels + int(d)
    return adds, dels


def tag_problems(path, msg):
    """A fix names what it fixes; a behaviour change says RFC instead and
    has nothing to name."""
    if is_rfc(path):
        if re.search(r'^Fixes:', msg, re.M):
            return ['an RFC patch (a behaviour change) has no Fixes: tag']
    elif not FIXES_RE.search(msg):
        return ['no Fixes: <12 hex> ("subject") tag, '
                'nor RFC in the subject prefix']
    return []


def checkpatch_problems(path, msg):
    # a backport's "commit <sha> upstream." line trips GIT_COMMIT_ID
    cmd = CHECKPATCH + (['--ignore', 'GIT_COMMIT_ID']
                        if BACKPORT_RE.search(msg) else []) + [path]
    rc, out = run(cmd, cwd=PRISTINE)
    if rc or not re.search(r'^total: 0 errors, 0 warnings, 0 checks',
                           out, re.M):
        return ['checkpatch:\n' + '\n'.join(
            '    ' + line for line in out.splitlines()
            if re.match(r'(ERROR|WARNING|CHECK|#|\+)', line))]
    return []


# --- in the guest -----------------------------------------------------------
def load(ko):
    """cls_flower := ko, or why not."""
    deadline = time.monotonic() + 60
    while os.path.exists('/sys/module/cls_flower'):
        if run(['rmmod', 'cls_flower'])[0] == 0:
            break
        if time.monotonic() > deadline:
            return 'rmmod cls_flower still fails after 60 s'
        time.sleep(0.5)
    rc, out = run(['insmod', ko])
    if rc:
        return 'insmod %s: %s' % (ko, out.strip())
    loaded = loaded_srcversion()
    if loaded != file_srcversion(ko):
        return 'the cls_flower loaded (%s) is not %s' % (loaded, ko)
    return None


def guest(out, pairs):
    os.makedirs(out, exist_ok=True)
    rc = 0
    for pair in pairs:
        label, ko = pair.split('=', 1)
        tap = os.path.join(out, label + '.tap')
        if os.path.exists(tap):
            os.remove(tap)
        error = load(ko)
        if error:
            print('stock-series: %s: %s' % (label, error), flush=True)
            rc = 2
            continue
        print('stock-series: %s: %s' % (label, ko), flush=True)
        # failing cases are expected on the early steps: report judges
        subprocess.run([sys.executable, '-m', 'tdc.tdc', '-f', CASES,
                        '--tap', tap], cwd=REPO)
    return rc


# --- on the host ------------------------------------------------------------
def tap_results(path):
    """{case id: True (ok) / False (not ok or skipped)}."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {r.id: r.ok and r.skip is None for r in read_tap(f).results}


def report(out, labels):
    with open(CASES) as f:
        cases = json.load(f)
    failed = passed = 0
    table = []
    for case in cases:
        m = CASE_PATCH_RE.match(case['name'])
        patch = int(m.group(1)) if m else None
        row = [case['id'], str(patch)]
        for label in labels:
            res = tap_results(os.path.join(out, label + '.tap'))
            got = res.get(case['id'])
            if label == 'ours' or label == 'stock-next':
                want = True
            else:
                step = int(label.split('-')[1])
                want = patch is not None and step >= patch
            mark = {True: 'pass', False: 'fail', None: 'none'}[got]
            row.append(mark)
            if got is want:
                passed += 1
            else:
                failed += 1
                print('unexpected: case %s (patch %s) %s on %s, expected %s'
                      % (case['id'], patch, mark, label,
                         'pass' if want else 'fail'))
        table.append(row)
    print('| case | patch | ' + ' | '.join(labels) + ' |')
    print('|---|---|' + '---|' * len(labels))
    for row in table:
        print('| ' + ' | '.join(row) + ' |')
    print('%d passed, %d failed' % (passed, failed))
    return 0 if not failed else 1


def main(argv):
    if argv[:1] == ['gate'] and argv[1:] in ([], ['--i386']):
        jobs = int(os.environ.get('JOBS') or os.cpu_count() or 1)
        return gate(jobs, i386=argv[1:] == ['--i386'])
    if argv[:1] == ['guest'] and len(argv) >= 3:
        return guest(argv[1], argv[2:])
    if argv[:1] == ['report'] and len(argv) >= 3:
        return report(argv[1], argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
