# SPDX-License-Identifier: GPL-2.0
"""Part 2 of bench/classify.py, the control plane: insert C filters of a
kind with one `tc -b`, dump them, delete them, with /proc/meminfo and
/proc/slabinfo before and after (control_part); and P `tc -b` processes
inserting at once, on a prio each or all into prio 1 (parallel_part,
parallel_insert, which bench/insert_ab.py uses too).
"""
import os
import statistics
import subprocess
import time

from bench.classify_guest import check, fresh_dev, sh, tc_batch
from bench.classify_rules import PAR_LAYOUTS, parallel_rules, rules

CTL_DEV = "benchc"


def meminfo():
    m = {}
    for line in open("/proc/meminfo"):
        k, v = line.split(":")
        m[k] = int(v.split()[0]) * 1024
    return m


def slabinfo():
    s = {}
    try:
        for line in open("/proc/slabinfo").readlines()[2:]:
            f = line.split()
            s[f[0]] = int(f[2]) * int(f[3])     # num_objs * objsize
    except OSError:
        pass
    return s


# seconds settle() waits; a list so that classify.py's --smoke can
# shorten it for every part
SETTLE = [1.5]


def settle():
    time.sleep(SETTLE[0])   # let call_rcu / rcu_work frees run
    return meminfo(), slabinfo()


def count_filters(kind, text):
    if kind == "flower":
        return sum(1 for ln in text.splitlines()
                   if ln.startswith("filter ") and " handle " in ln)
    return sum(1 for ln in text.splitlines()
               if " key ht " in ln and " link " not in ln)


def control_part(a):
    rows = []
    for kind in ("flower", "u32"):
        for c in a.insert_counts:
            fresh_dev(CTL_DEV)
            lines = rules(kind, c, CTL_DEV)
            m0, s0 = settle()
            t_ins = tc_batch(lines)
            m1, s1 = settle()
            t0 = time.monotonic()
            out = sh("tc", "filter", "show", "dev", CTL_DEV, "ingress",
                     stdout=subprocess.PIPE).stdout
            t_dump = time.monotonic() - t0
            dumped = count_filters(kind, out)
            del out
            t0 = time.monotonic()
            sh("tc", "filter", "del", "dev", CTL_DEV, "ingress",
               "protocol", "ip", "prio", "1")
            t_del = time.monotonic() - t0
            left = count_filters(kind, sh(
                "tc", "filter", "show", "dev", CTL_DEV, "ingress",
                stdout=subprocess.PIPE).stdout)
            m2, _ = settle()
            d = lambda k, x=m1: (x[k] - m0[k]) / c          # noqa: E731
            grown = sorted(((s1.get(k, 0) - s0.get(k, 0), k) for k in s1),
                           reverse=True)[:4]
            r = dict(classifier=kind, filters=c,
                     insert_s=round(t_ins, 3),
                     insert_per_s=round(c / t_ins, 1),
                     dump_s=round(t_dump, 3), delete_s=round(t_del, 3),
                     dumped=dumped,
                     slab_B_per_filter=round(d("Slab"), 1),
                     percpu_B_per_filter=round(d("Percpu"), 1)
                     if "Percpu" in m0 else None,
                     vmalloc_B_per_filter=round(d("VmallocUsed"), 1),
                     memfree_B_per_filter=round(-d("MemFree"), 1),
                     slab_B_left_after_delete=round(d("Slab", m2) * c),
                     slab_caches_grown={k: v for v, k in grown if v > 0})
            rows.append(r)
            print("# control %-6s %6d filters: insert %.1f s (%.0f/s), "
                  "dump %.1f s, delete %.2f s, slab %.0f B/filter, "
                  "MemFree %.0f B/filter" % (
                      kind, c, t_ins, r["insert_per_s"], t_dump, t_del,
                      r["slab_B_per_filter"], r["memfree_B_per_filter"]),
                  flush=True)
            check("control %s %d: dump shows all filters" % (kind, c),
                  dumped == c, "%d dumped" % dumped)
            check("control %s %d: none left after delete" % (kind, c),
                  left == 0, "%d left" % left)
            check("control %s %d: insert rate > 0" % (kind, c),
                  r["insert_per_s"] > 0)
    subprocess.run(["ip", "link", "del", CTL_DEV])
    return rows


def parallel_insert(paths):
    """Start one `tc -b PATH` per path at once; wait for all of them.
    Returns (seconds until the last exited, [(seconds, exit code, stderr
    tail)] per process, each from its own start)."""
    errs = [open(p + ".err", "w+") for p in paths]
    t0 = time.monotonic()
    procs, start = {}, {}
    for k, path in enumerate(paths):
        start[k] = time.monotonic()
        p = subprocess.Popen(["tc", "-b", path], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=errs[k])
        procs[p.pid] = (k, p)
    done = [None] * len(paths)
    while procs:
        pid, status = os.wait()
        if pid not in procs:
            continue
        k, p = procs.pop(pid)
        p.returncode = os.waitstatus_to_exitcode(status)
        done[k] = [time.monotonic() - start[k], p.returncode]
    wall = time.monotonic() - t0
    for k, f in enumerate(errs):
        f.seek(0)
        done[k].append(" ".join(f.read().split())[-300:])
        f.close()
    return wall, done


def parallel_part(a):
    rows = []
    procs, per = a.parallel
    total = procs * per
    for layout in PAR_LAYOUTS:
        fresh_dev(CTL_DEV)
        paths = []
        for k in range(procs):
            paths.append("/tmp/bench-par-%d.batch" % k)
            with open(paths[-1], "w") as f:
                f.write("\n".join(parallel_rules(layout, k, per, CTL_DEV))
                        + "\n")
        m0, s0 = settle()
        wall, done = parallel_insert(paths)
        m1, _ = settle()
        failed = [(k, d) for k, d in enumerate(done) if d[1] != 0]
        t0 = time.monotonic()
        out = sh("tc", "filter", "show", "dev", CTL_DEV, "ingress",
                 stdout=subprocess.PIPE).stdout
        t_dump = time.monotonic() - t0
        dumped = count_filters("flower", out)
        prios = len({ln.split(" pref ")[1].split()[0]
                     for ln in out.splitlines()
                     if ln.startswith("filter ") and " pref " in ln})
        del out
        t0 = time.monotonic()
        sh("tc", "filter", "del", "dev", CTL_DEV, "ingress")
        t_del = time.monotonic() - t0
        left = count_filters("flower", sh(
            "tc", "filter", "show", "dev", CTL_DEV, "ingress",
            stdout=subprocess.PIPE).stdout)
        for path in paths:
            os.unlink(path)
            os.unlink(path + ".err")
        own = sorted(d[0] for d in done)
        r = dict(classifier="flower", layout=layout, processes=procs,
                 filters_per_process=per, filters=total,
                 wall_s=round(wall, 3), insert_per_s=round(total / wall, 1),
                 process_s_min=round(own[0], 3),
                 process_s_median=round(statistics.median(own), 3),
                 process_s_max=round(own[-1], 3),
                 process_s=[round(d[0], 3) for d in done],
                 dump_s=round(t_dump, 3), delete_s=round(t_del, 3),
                 dumped=dumped, prios=prios,
                 slab_B_per_filter=round((m1["Slab"] - m0["Slab"]) / total,
                                         1),
                 memfree_B_per_filter=round(
                     (m0["MemFree"] - m1["MemFree"]) / total, 1))
        rows.append(r)
        print("# control parallel %s: %d x tc -b of %d filters: %.1f s "
              "until the last exited (%.0f/s), each %.1f-%.1f s, dump "
              "%.1f s, delete %.2f s" % (
                  layout, procs, per, wall, r["insert_per_s"], own[0],
                  own[-1], t_dump, t_del), flush=True)
        label = "control parallel %s %dx%d" % (layout, procs, per)
        check(label + ": every tc -b exited 0", not failed,
              "; ".join("process %d exit %d: %s" % (k, d[1], d[2])
                        for k, d in failed[:2]))
        check(label + ": dump shows all filters in %d prio(s)" % (
            procs if layout == "prio-per-process" else 1),
            dumped == total and prios == (
                procs if layout == "prio-per-process" else 1),
            "%d dumped in %d prio(s)" % (dumped, prios))
        check(label + ": none left after delete", left == 0,
              "%d left" % left)
    subprocess.run(["ip", "link", "del", CTL_DEV])
    return rows
