"""The building of mutants: each one's cls_flower.c as an external module
(kbuild M=) against a kernel tree of build/obj, under that tree's build
lock; one that does not compile is stillborn (mutate/README.md).
"""
import concurrent.futures
import fcntl
import os
import subprocess
import sys
import time

from mutate import gen
from mutate.common import BUILD, CONTROL, DEBUG_OBJ, OURS_OBJ, OURS_SRC, log


# The debug kernel, like Debian's, fills every stack variable with zeroes
# (INIT_STACK_ALL_ZERO): a read of a stack byte nobody wrote then reads 0,
# which is what the code meant to write (m0306: the classify key's tail
# never cleared).  The debug pass builds the module with a pattern fill
# instead, so that such a read changes what a filter matches.
DEBUG_CFLAGS = '-ftrivial-auto-var-init=pattern'


def kbuild(obj):
    return 'obj-m := cls_flower.o\n' + (
        'ccflags-y += %s\n' % DEBUG_CFLAGS if obj == DEBUG_OBJ else '')


def kernel_lock(obj):
    """The lock of builds against obj (the Makefile's kernel_lock)."""
    return os.path.join(BUILD, '.kernel-%s.lock' % os.path.basename(obj))


def build_one(work, mid, text, obj=OURS_OBJ):
    d = os.path.join(work, mid)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'cls_flower.c'), 'w') as f:
        f.write(text)
    with open(os.path.join(d, 'Kbuild'), 'w') as f:
        f.write(kbuild(obj))
    p = subprocess.run(['make', '-s', '-C', OURS_SRC, 'O=' + obj, 'M=' + d,
                        'modules'], capture_output=True, text=True)
    if p.returncode == 0 and os.path.exists(os.path.join(d, 'cls_flower.ko')):
        return None
    errs = [ln for ln in (p.stdout + p.stderr).splitlines() if 'error' in ln]
    return (errs or [(p.stdout + p.stderr).strip()[-300:]])[0]


def built(work, mid, text, obj=OURS_OBJ):
    """The module in work/mid is of this text and these flags (a plan for
    another commit may have used the same id)."""
    d = os.path.join(work, mid)
    try:
        with open(os.path.join(d, 'cls_flower.c')) as f, \
                open(os.path.join(d, 'Kbuild')) as k:
            same = f.read() == text and k.read() == kbuild(obj)
    except OSError:
        return False
    return same and os.path.exists(os.path.join(d, 'cls_flower.ko'))


def build(work, doc, ids, obj=OURS_OBJ):
    """Build each id (m0000 first) against the kernel tree obj; {id: first
    error line} of the stillborn."""
    src = gen.source_at(doc['commit'])
    by_id = {m['id']: m for m in doc['mutants']}
    texts = {i: src if i == CONTROL else gen.apply(src, by_id[i]) for i in ids}
    todo = [i for i in ids if not built(work, i, texts[i], obj)]
    if not todo:
        return {}
    with open(kernel_lock(obj), 'a') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)       # not while obj's kernel is rebuilt
        if CONTROL in todo:
            err = build_one(work, CONTROL, src, obj)
            if err:
                sys.exit('mutate: the unmutated source does not build: ' + err)
            todo.remove(CONTROL)
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            errs = dict(zip(todo, ex.map(lambda i: build_one(work, i, texts[i], obj),
                                         todo)))
    dead = {i: e for i, e in errs.items() if e}
    log('built %d modules in %.0f s, %d stillborn' % (len(todo), time.time() - t0, len(dead)))
    return dead
