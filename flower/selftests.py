# SPDX-License-Identifier: GPL-2.0
"""flower.selftests - what a forwarding selftest of the tree printed.

selftests/in-guest runs one script of tools/testing/selftests/net/
forwarding under `bash -x`, the trace merged into its output; parse()
cuts that output into one Segment per call of a test function (the
`+ <function>` trace lines), each with its lib.sh `TEST: ... [ OK ]`
lines, and rows_of() makes the results of it: one row per TEST line, and
one per test function that printed none or was never called.
selftests/run (make selftests) and tdc/series_cases.py (make
series-corpus: the scripts at every step of the patch series) read them.
"""
import re

TEST_RE = re.compile(r"^TEST: (.*?)\s+\[\s*(OK|FAIL|SKIP)\s*\]\s*$")
TRACE_RE = re.compile(r"^\++ ")
CALL_RE = re.compile(r"^\++ (\w+)$")
CMD_RE = re.compile(r"^\++ (tc|ip|bridge|mausezahn|ncat|ping6?|sysctl) ")
# Calls that end a test function's output: what follows is script-level.
TOP_LEVEL = {"cleanup": "(cleanup)", "tests_run": "(top)",
             "tc_offload_check": "(top)"}
HEAD_RE = re.compile(r"^### selftests: \S+ kernel (\S+) variant \S+ "
                     r"cls_flower srcversion (\S+)")
END_RE = re.compile(r"^### selftests: exit (\d+) after ([\d.]+) s")
FLTEST_RE = re.compile(r"^### fltest: (.*)$")


def all_tests(path):
    """The ALL_TESTS of the script at path, in order."""
    with open(path) as f:
        text = f.read()
    m = re.search(r'^ALL_TESTS="(.*?)"', text, re.S | re.M)
    return [t for t in m.group(1).split() if re.match(r"^\w+$", t)] \
        if m else []


class Segment:
    """Output of one test function call (or of setup / cleanup)."""

    def __init__(self, fn):
        self.fn = fn
        self.tests = []      # [name, status, [detail lines]]
        self.notes = []      # SKIP:/INFO:/errors (with their command)


def parse(raw, tests):
    """Split bash -x output into segments, one per call of a test function."""
    names = set(tests)
    segs = [Segment(None)]   # setup
    last_cmd = None
    after_fail = None
    exit_rc = None
    inner_s = None
    in_trace = False          # inside a trace line's multi-line quote
    head = None
    driver = []
    for line in raw.splitlines():
        if in_trace:
            in_trace = line.count("'") % 2 == 0
            continue
        m = END_RE.match(line)
        if m:
            exit_rc, inner_s = int(m.group(1)), float(m.group(2))
            continue
        m = HEAD_RE.match(line)
        if m:
            head = "%s, cls_flower srcversion %s" % m.groups()
            continue
        m = FLTEST_RE.match(line)
        if m:
            d = m.group(1).rstrip()
            driver.append(d + " no call" if d.endswith(":") else d)
            continue
        if line.startswith("### guest/run stderr"):
            segs.append(Segment("(guest/run)"))
            last_cmd = None
            continue
        if line.startswith("### "):
            continue
        if TRACE_RE.match(line):
            in_trace = line.count("'") % 2 == 1
            m = CALL_RE.match(line)
            if m and m.group(1) in names:
                segs.append(Segment(m.group(1)))
                last_cmd = None
            elif m and m.group(1) in TOP_LEVEL:
                segs.append(Segment(TOP_LEVEL[m.group(1)]))
                last_cmd = None
            if CMD_RE.match(line):
                last_cmd = line.lstrip("+ ")
            continue
        if line.startswith("We have an error talking to the kernel"):
            continue
        seg = segs[-1]
        m = TEST_RE.match(line)
        if m:
            seg.tests.append([m.group(1).strip(), m.group(2), []])
            after_fail = seg.tests[-1] if m.group(2) == "FAIL" else None
            continue
        if line.startswith("\t") and after_fail is not None:
            after_fail[2].append(line.strip())
            continue
        after_fail = None
        if not line.strip():
            continue
        if re.match(r"^(SKIP|INFO):", line):
            seg.notes.append(line.strip())
        else:
            seg.notes.append("%s  <- %s" % (line.strip(), last_cmd)
                             if last_cmd else line.strip())
    return segs, exit_rc, inner_s, head, driver


def rows_of(segs, tests, silent=None, cause=None):
    """(key, test label, status, reasons) per result, in order; a test
    function that was called but printed no TEST line gives status
    'none', one never called gives 'not run'.  key: (function, TEST
    label, how many TEST lines of that label came before), or
    (function, "") for a function without a TEST line.  silent(fn),
    cause(fn): what to say (or None) under a function without a result,
    under a result that is not OK."""
    rows, seen, called = [], {}, set()
    for seg in segs:
        if seg.fn is None or seg.fn.startswith("("):
            continue
        called.add(seg.fn)
        if not seg.tests:
            key = (seg.fn, "")
            why = silent and silent(seg.fn)
            rows.append((key, "%s (no TEST line)" % seg.fn, "none",
                         seg.notes or [why or "returned without a result"]))
            continue
        for name, status, detail in seg.tests:
            n = seen.get(name, 0)
            seen[name] = n + 1
            key = (seg.fn, name, n)
            why = cause and cause(seg.fn)
            rows.append((key, name, status,
                         detail + ((["likely cause: " + why] if why
                                    else []) + seg.notes
                                   if status != "OK" else [])))
    for fn in tests:
        if fn not in called:
            rows.append(((fn, ""), "%s (no TEST line)" % fn, "not run",
                         ["never called by the script"]))
    return rows
