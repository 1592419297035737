# SPDX-License-Identifier: GPL-2.0
"""What every part of bench/classify.py does in the guest: run tc and ip,
make a fresh dummy device with a clsact qdisc, record a check, and read
or set ours' cls_flower module parameters.

CHECKS is the one list of (name, passed) that classify.py's main()
counts into `N passed, N failed`, whichever part made the check.
"""
import os
import subprocess
import time

FLOW_CACHE_PARAM = "/sys/module/cls_flower/parameters/flow_cache"
RANGE_INDEX_PARAM = "/sys/module/cls_flower/parameters/range_index"
L3L4_PARAM = "/sys/module/cls_flower/parameters/l3l4_dissect"
CHECKS = []


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def tc_batch(lines):
    path = "/tmp/bench.batch"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    t0 = time.monotonic()
    sh("tc", "-b", path)
    return time.monotonic() - t0


def check(name, ok, detail=""):
    CHECKS.append((name, bool(ok)))
    print("%s  %s%s" % ("ok  " if ok else "FAIL", name,
                        (": " + detail) if detail else ""), flush=True)


def fresh_dev(dev):
    subprocess.run(["ip", "link", "del", dev], stderr=subprocess.DEVNULL)
    sh("ip", "link", "add", dev, "type", "dummy")
    sh("ip", "link", "set", dev, "up")
    sh("tc", "qdisc", "add", "dev", dev, "clsact")


def set_param(path, value):
    """One of ours' bench-only module parameters (flow_cache,
    range_index, l3l4_dissect): "on" or "off" for instances changed after (stock has
    none: nothing to set)."""
    if os.path.exists(path):
        with open(path, "w") as f:
            f.write("Y\n" if value == "on" else "N\n")


def read_param(path):
    """Y or N, or None where the module has no such parameter (stock)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().strip()


def set_flow_cache(value):
    set_param(FLOW_CACHE_PARAM, value)


def module_file(name):
    """/sys/module/cls_flower/NAME (srcversion, version), or None."""
    try:
        with open("/sys/module/cls_flower/" + name) as f:
            return f.read().strip()
    except OSError:
        return None
