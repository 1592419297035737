"""Instructions one packet costs in a classifier, by function (make bench-insns).

The icount bench (classify.py) gives the cost of a whole packet; this says
where a classifier's part of it goes.  The guest runs with QEMU's gdb stub
and without KASLR (bench/insns_guest.sh: a flower and a u32 filter, each
on its own veth, pinged); gdb stops at the entry of the classify function
and single-steps to its return, counting every instruction by the function
it is in (the callees too: the lookup, the action).  QEMU single-steps
with interrupts and timers off, so the count is of that one call.

    python3 -m bench.insns run OUT KO    # host: boot, count, write OUT/insns.md
    gdb -batch -x bench/insns.py ...     # what `run` starts (INSNS_* env)
"""
import collections
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCS = ("fl_classify", "u32_classify")


def gdb_count():
    """In gdb: the counts of INSNS_HITS calls of INSNS_FN, printed."""
    import gdb  # only inside gdb
    fn = os.environ["INSNS_FN"]
    gdb.execute("set pagination off")
    gdb.execute("target remote :%s" % os.environ["INSNS_PORT"])
    text = open(os.environ["INSNS_TEXT"]).read().strip()
    gdb.execute("add-symbol-file %s %s" % (os.environ["INSNS_KO"], text),
                to_string=True)
    gdb.execute("break *%s" % fn, to_string=True)
    for hit in range(int(os.environ.get("INSNS_HITS", "3"))):
        gdb.execute("continue", to_string=True)
        sp = int(gdb.parse_and_eval("$sp"))
        ret = int(gdb.parse_and_eval("*(unsigned long *)$sp"))
        by_fn = collections.Counter()
        while True:
            pc = int(gdb.parse_and_eval("$pc"))
            if pc == ret and int(gdb.parse_and_eval("$sp")) > sp:
                break
            block = gdb.block_for_pc(pc)
            name = block.function.name if block and block.function else None
            if name is None:
                sym = gdb.execute("info symbol %d" % pc, to_string=True)
                name = sym.split()[0] if not sym.startswith("No ") else hex(pc)
            by_fn[name] += 1
            gdb.execute("stepi", to_string=True)
        print("INSNS %s %d %s" % (fn, hit, " ".join(
            "%s=%d" % kv for kv in by_fn.most_common())))
    gdb.execute("delete")
    gdb.execute("detach")


def parse(lines):
    """{fn: [Counter per hit]} from gdb_count()'s INSNS lines."""
    out = collections.defaultdict(list)
    for line in lines:
        words = line.split()
        if len(words) < 3 or words[0] != "INSNS":
            continue
        out[words[1]].append(collections.Counter(
            {k: int(v) for k, v in (w.rsplit("=", 1) for w in words[3:])}))
    return out


def table(counts, module, kernel, commit):
    """Markdown: per classify function, its callees' instructions."""
    rows = ["# Instructions per classify call, by function", "",
            "Commit measured: %s (ours' cls_flower srcversion %s, kernel "
            "%s).  One ICMP echo request through a `protocol ip` filter "
            "on a veth's clsact ingress, in the guest; every instruction "
            "from the classify function's entry to its return, counted by "
            "gdb single-stepping the guest (`make bench-insns`, "
            "bench/insns.py)." % (commit, module, kernel), ""]
    for fn in FUNCS:
        hits = counts.get(fn)
        if not hits:
            rows += ["%s: no call counted" % fn, ""]
            continue
        totals = sorted(sum(h.values()) for h in hits)
        rows += ["## %s: %d instructions (%d calls: %s)" % (
            fn, totals[len(totals) // 2], len(totals),
            ", ".join(map(str, totals))), "",
            "| function | instructions (the median call) |", "|---|---:|"]
        median = sorted(hits, key=lambda h: sum(h.values()))[len(hits) // 2]
        rows += ["| %s | %d |" % kv for kv in median.most_common()]
        rows.append("")
    return "\n".join(rows)


def run(out, ko, port="12345", hits="3"):
    """Boot the guest with the gdb stub, count, write OUT/insns.md."""
    from flower import guest as guest_api   # not in gdb's own Python
    os.makedirs(out, exist_ok=True)
    ready = os.path.join(out, "guest")
    shutil.rmtree(ready, ignore_errors=True)    # no last run's "ready"
    env = dict(os.environ)
    env["TDC_QEMU_EXTRA"] = (env.get("TDC_QEMU_EXTRA", "") +
                             " -gdb tcp::%s" % port).strip()
    guest = subprocess.Popen(
        guest_api.command(["sh", "bench/insns_guest.sh", ready],
                          append="nokaslr", timeout=900,
                          console_log=os.path.join(out, "console.log")),
        env=env, cwd=REPO, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if os.path.exists(os.path.join(ready, "ready")):
                break
            if guest.poll() is not None:
                sys.exit("bench-insns: the guest exited %d before it was "
                         "ready (%s/console.log)" % (guest.returncode, out))
            time.sleep(1)
        else:
            sys.exit("bench-insns: the guest was not ready in 300 s")
        lines = []
        for fn in FUNCS:
            genv = dict(os.environ, INSNS_FN=fn, INSNS_PORT=port,
                        INSNS_KO=ko, INSNS_HITS=hits,
                        INSNS_TEXT=os.path.join(ready, "cls_flower.text"))
            res = subprocess.run(
                ["gdb", "-batch", "-nx",
                 os.path.join(REPO, "build/obj/ours/vmlinux"),
                 "-x", os.path.abspath(__file__)],
                env=genv, capture_output=True, text=True, timeout=600)
            lines += res.stdout.splitlines()
    finally:
        # SIGTERM: guest/run then stops its QEMU (a session of its own),
        # which would otherwise keep the stub's port until --timeout
        guest.terminate()
        try:
            guest.wait(timeout=60)
        except subprocess.TimeoutExpired:
            guest.kill()
            guest.wait()
    counts = parse(lines)
    module = subprocess.run(["modinfo", "-F", "srcversion", ko],
                            capture_output=True, text=True).stdout.strip()
    kernel = open(os.path.join(REPO, "build/obj/ours/include/config/"
                               "kernel.release")).read().strip()
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short",
                             "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    if subprocess.run(["git", "-C", REPO, "diff", "--quiet", "HEAD", "--",
                       "kernel/net"]).returncode:
        commit += " with uncommitted changes in kernel/net"
    with open(os.path.join(out, "insns.md"), "w") as f:
        f.write(table(counts, module, kernel, commit) + "\n")
    missing = [fn for fn in FUNCS if len(counts.get(fn, [])) < int(hits)]
    print(open(os.path.join(out, "insns.md")).read())
    print("%d passed, %d failed" % (len(FUNCS) - len(missing), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    if "INSNS_FN" in os.environ:
        gdb_count()
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        sys.exit(run(*sys.argv[2:]))
    else:
        sys.exit(__doc__)
