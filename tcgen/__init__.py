# SPDX-License-Identifier: GPL-2.0
"""tcgen - writes the flower tdc corpus, tc-tests/filters/flower/*.json.

Run it as `python3 -m tcgen [--check]` (tcgen/main.py).

It writes only the files it lists in filters/flower/generated.sha256
(which it writes too): it refuses to overwrite or delete any other file,
or one of its own that was changed by hand.  Regression cases are written
by hand in filters/flower/regressions.json (see tc-tests/README.md).

The corpus tests our cls_flower (kernel/net/sched/cls_flower.c)
through stock iproute2 6.1 `tc ... flower` and, for what tc refuses to
build, through tdc/flowernl.py ($FLNL, raw netlink via pyroute2).

Most cases come from KEYS, a catalogue of key variants ("dst_ip /24 over
IPv4", "vlan_id + vlan_prio over 802.1Q", ...).  Each variant says how
tc spells it, what `tc -j filter show` prints for it, which netlink
attributes the kernel dumps, another value with the same mask, and
packets that match and that do not.  From a variant come its cases in
keys-<family> (add it and a same-mask second filter: the whole dump is
exactly what was given), replace, delete, get, flush, dump-roundtrip
($FLNL show) and packets-<family> (scapy frames counted exactly).  The
other themes (masks: several on one prio, templates, errors, handles,
actions, classid, scale; lenient: requests the stock flower accepts and
partly ignores, and warnings: ours' words on them, tcgen/lenient.py) are
written out one by one below.  Several
masks per prio, mask order and templates behave as in the stock 6.1
flower, the oracle for those cases.

Every case is one upstream tdc.py can run (lint/corpus.py
upstream_problems(), checked by a unit test): one command per setup
entry, no &&, ;, || or $(...) that upstream's nsPlugin would run only in
part inside the case's namespace, matchJSON where the output is JSON.
And one that the tdc.py of linux-source-6.1 can run (sixone_problems()):
beside each matchJSON the matchPattern (matchCount 1) that checks the
same on the text, for 6.1's runner knows no matchJSON
(lint/jsonpattern.py); a case that uses $DUMMY makes it; what a setup
makes in the namespace, which 6.1 shares between the cases of a run, it
first removes (a case before it may have been cut short) and removes
again in its teardown (Corpus.case).
Where a dump must be exactly what is given (no other key, no other
filter), the case adds "matchJSONExact": our tdc.py then wants the
parsed output equal to matchJSON; upstream ignores the field and matches
as it always does.  The few cases that need $FLNL (raw netlink) are in
category "flowernl", with no dependsOn probe (upstream would run it in a
namespace not made yet: lint/corpus.py PROBE_IN_NAMESPACE).

Each case gets its seriesFamilies (tdc/corpus.py FAMILIES_FIELD): the
families of kernel/series/families its requests use, by
tdc.case_families.used_families(), which say from which step of the
series on it runs (Corpus.add_families).

The guest is slow (TCG): tdc.py runs a case's setup commands in one
shell, and raw netlink requests are sent many per $FLNL process
(pyroute2 takes ~10 s to import there).

Case ids are the first 4 hex digits of sha1(name), re-hashed on a
collision (with any case in tc-tests/, basic.json included), so that an
id stays with its case when others are added.  Output is deterministic;
tcgen/tests/test_corpus_generated.py fails when the committed files differ
from what this writes.
"""
