# SPDX-License-Identifier: GPL-2.0
"""Stock-next (the pristine cls_flower.c + kernel/stock-series) against
stock: the runs of `make bench-stock-next` and `make bench VARIANT=stock`
(bench/bench.mk).

  python3 -m bench.stock_next STOCKDIR NEXTDIR [--out FILE.md]

Per M (masks in one prio, kind flower-masks-1prio, the packet matching
in the last mask): guest instructions per packet of each and
stock-next / stock; the cost of one more mask (least-squares slope over
the M points); the insert rate of `tc -b` into one flower instance (the
control part: one mask, guest time).  Then issue 32's targets for patch
11 (one dissection per prio): M = 64 <= 0.33x stock, M = 1 <= stock,
insert rate >= 0.95x stock.  Both runs must have been made on one time
base (icount: the numbers are instruction counts) for the ratios to
mean something; the report says which it has.
"""
import argparse
import json
import os
import sys

from bench.report_points import insns, lsq_slope, series

KIND = "flower-masks-1prio"
M64_MAX = 0.33          # stock-next / stock at M = 64
M1_MAX = 1.0            # ... at M = 1
INSERT_MIN = 0.95       # insert rate, stock-next / stock


def load(d):
    with open(os.path.join(d, "results.json")) as f:
        return json.load(f)


def by_m(res):
    return {p["rules"]: insns(res, p) for p in series(res, KIND, "last")[1]}


def insert_rates(res):
    return {r["filters"]: r["insert_per_s"] for r in res.get("control", [])
            if r["classifier"] == "flower"}


def report(stock, nxt):
    s, n = by_m(stock), by_m(nxt)
    ms = sorted(set(s) & set(n))
    unit = "guest insns/packet" if stock["meta"].get("ns_per_insn") and \
        nxt["meta"].get("ns_per_insn") else "ns/packet"
    out = ["Stock: commit %s, %s, %s.  Stock-next: commit %s, %s, %s."
           % (stock["meta"].get("commit"), stock["meta"].get("date"),
              stock["meta"].get("timebase", "wall clock"),
              nxt["meta"].get("commit"), nxt["meta"].get("date"),
              nxt["meta"].get("timebase", "wall clock")), "",
           "| masks M in one prio | stock: %s | stock-next: %s | "
           "stock-next / stock |" % (unit, unit), "|---|---|---|---|"]
    for m in ms:
        out.append("| %d | %.0f | %.0f | %.3fx |" % (m, s[m], n[m],
                                                   n[m] / s[m]))
    if len(ms) >= 2:
        out += ["", "One more mask (least-squares slope over M = %s): "
                "stock %.0f, stock-next %.0f %s."
                % (", ".join(map(str, ms)), lsq_slope(ms, [s[m] for m in ms]),
                   lsq_slope(ms, [n[m] for m in ms]), unit)]
    si, ni = insert_rates(stock), insert_rates(nxt)
    counts = sorted(set(si) & set(ni))
    if counts:
        out += ["", "| flower filters inserted (tc -b, one mask) | stock "
                "/s | stock-next /s | stock-next / stock |",
                "|---|---|---|---|"]
        for c in counts:
            out.append("| %d | %.0f | %.0f | %.3fx |"
                       % (c, si[c], ni[c], ni[c] / si[c]))
    checks = []
    if 64 in ms:
        checks.append(("M = 64 <= %.2fx stock" % M64_MAX,
                       n[64] / s[64], n[64] / s[64] <= M64_MAX))
    if 1 in ms:
        checks.append(("M = 1 <= %.2fx stock" % M1_MAX,
                       n[1] / s[1], n[1] / s[1] <= M1_MAX))
    for c in counts:
        checks.append(("insert rate (%d filters) >= %.2fx stock"
                       % (c, INSERT_MIN), ni[c] / si[c],
                       ni[c] / si[c] >= INSERT_MIN))
    out += ["", "| target | measured | verdict |", "|---|---|---|"]
    for name, val, ok in checks:
        out.append("| %s | %.3fx | %s |" % (name, val,
                                            "holds" if ok else "MISSED"))
    failed = sum(1 for c in checks if not c[2])
    return out, len(checks) - failed, failed


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("stock")
    p.add_argument("next")
    p.add_argument("--out")
    a = p.parse_args(argv)
    for d in (a.stock, a.next):
        if not os.path.exists(os.path.join(d, "results.json")):
            print("bench.stock_next: no %s/results.json" % d)
            print("0 passed, 1 failed")
            return 1
    lines, passed, failed = report(load(a.stock), load(a.next))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
