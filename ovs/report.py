#!/usr/bin/python3
"""docs/ovs.md from one run of ovs/scenarios.py per kernel (make ovs).

usage: python3 -m ovs.report --ours JSON --stock JSON --out FILE [--wall KERNEL=SEC]...
A JSON that is missing (the guest never wrote it) shows as "no result".
"""
import argparse
import os
import re
import time

from flower.report import cell, load

# Causes worked out once, recognised by a vswitchd log line (scenarios.py's
# "why" lines) of a later run: (pattern, explanation).
KNOWN_CAUSES = [
    (re.compile(r'mismatch on the flow: .*eth_type\(0x(8100|88a8)\)'),
     'a VLAN filter\'s echo: ours dumps TCA_FLOWER_KEY_ETH_TYPE as the TPID '
     '(0x8100, fl_dump_key_vlans()); OVS (tc.c nl_parse_flower_vlan()) '
     'reads that attribute of a VLAN filter as the inner ethertype and '
     'compares it with its request (inner 0x0800/0x0806), so it logs the '
     'mismatch and dumps the flow as `encap()`; stock echoes the inner '
     'ethertype there (key->basic.n_proto), as OVS expects'),
    (re.compile(r'skip_sw needs hardware offload'),
     'tc-policy=skip_sw: ours has no hardware offload'),
]

# Causes of a failed check, recognised by its name: (pattern, explanation).
CHECK_CAUSES = [
    (re.compile(r'counted: an echo request first-fragment flow'),
     'the stock flower dissects no L4 header of a first fragment: its '
     'fl_classify() calls skb_flow_dissect() without '
     'FLOW_DISSECTOR_F_PARSE_1ST_FRAG, so the ICMP type in its key is 0 '
     'and the filter OVS 3.1 installs for `ipv4(proto=1,frag=first),'
     'icmp(type=8/0xf8)` never matches: every such first fragment takes '
     'the upcall and OVS\'s slow path (the ping still passes).  The echo '
     'reply\'s first-fragment flow, `icmp(type=0/0xf8)`, counts because 0 '
     'is what it asks for.  Ours passes the flag (README, by design; case '
     'e6dc)'),
]


def flow_packets(flow):
    """packets:N of a dump-flows line (for a tc flow, its filter's
    counter)."""
    m = re.search(r'packets:(\d+)', flow)
    return int(m.group(1)) if m else 0


def failed_checks(sc):
    return [c for c in sc['checks'] if not c['ok']]


def why(sc):
    """One sentence per scenario: why its flows were offloaded or not."""
    i = sc['info']
    bad = failed_checks(sc)
    if sc['name'] == 'start':
        return ('upcalls work, the ports get the linux_tc flow API, the '
                'block probe passed, one prio takes several masks (OVS '
                'logged the multi-mask line)' if not bad else
                '; '.join('%s (%s)' % (c['check'], c['detail'])
                          for c in bad))
    skip = [c['detail'] for c in bad if c['detail'].startswith('SKIP')]
    if skip:
        return '; '.join(skip)
    prios = sorted({f[0] for fl in i.get('tc', {}).values() for f in fl})
    kdp = i.get('kernel_dp', [])
    if not bad:
        return ('every datapath flow went to flower, and the filter of '
                'every flow kind the traffic crosses counted packets; '
                '%d tc prio(s) for %d ethertype(s), one per ethertype as '
                'OVS allocates them when a prio takes several masks'
                % (len(prios), len(set(i.get('ethertypes', [])))))
    parts = []
    found = set()
    for c in bad:
        for pat, text in CHECK_CAUSES:
            if pat.search(c['check']) and text not in found:
                found.add(text)
                parts.append('cause: ' + text)
    for line in i.get('why', []):
        for pat, text in KNOWN_CAUSES:
            if pat.search(line) and text not in found:
                found.add(text)
                parts.append('cause: ' + text)
    if kdp:
        parts.append('%d flow(s) stayed in the kernel datapath, e.g. `%s`'
                     % (len(kdp), re.sub(r', packets:.*?actions:',
                                         ' actions:', kdp[0])[:240]))
    reasons = list(dict.fromkeys(i.get('why', [])))
    if reasons:
        parts.append('vswitchd: ' + '; '.join('`%s`' % r[:200]
                                              for r in reasons[:3]))
    others = [c for c in bad if not c['check'].startswith('kernel-dp')]
    if others:
        parts.append('failed: ' + '; '.join(c['check'] for c in others))
    return '. '.join(parts)


def row(kernel, sc):
    i = sc['info']
    traffic = i.get('traffic', [])
    t_ok = sum(1 for _, ok in traffic if ok)
    off = i.get('offloaded', [])
    kdp = i.get('kernel_dp', [])
    filters = sum(len(fl) for fl in i.get('tc', {}).values())
    prios = len({f[0] for fl in i.get('tc', {}).values() for f in fl})
    etypes = len(set(i.get('ethertypes', [])))
    counted = sum(1 for f in off if flow_packets(f))
    nbad = len(i.get('log_errors', []))
    fails = len(failed_checks(sc))
    if sc['name'] == 'start':
        return '| %s | %s | | | | | | | %s | %s |' % (
            sc['title'], kernel, 'PASS' if not fails else
            'FAIL (%d)' % fails, cell(why(sc)))
    verdict = ('PASS' if not fails else 'FAIL (%d of %d checks)'
               % (fails, len(sc['checks'])))
    return ('| %s | %s | %d / %d | %d | %s | %d / %d / %d | %s | %d | %s '
            '| %s |' % (sc['title'], kernel, len(off), counted, len(kdp),
                        i.get('tc_packets', '-'), filters, prios, etypes,
                        '%d/%d' % (t_ok, len(traffic)) if traffic else '-',
                        nbad, verdict, cell(why(sc))))


def scenario_names(runs):
    seen = []
    for r in runs.values():
        for sc in (r or {}).get('scenarios', []):
            if sc['name'] not in seen:
                seen.append(sc['name'])
    return seen


def intro(runs, wall, commit=None):
    """The title, how the runs were made (commit: the one measured, as
    make ovs recorded it before the runs), one line per kernel, the
    columns."""
    o = []
    w = o.append
    w('# Open vSwitch tc offload on ours and on the stock flower')
    w('')
    w('Written by `make ovs` (`ovs/scenarios.py` in the guest, once per '
      'kernel; this file by `ovs/report.py`), %s.  Commit measured: %s.'
      % (time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
         '`%s`' % commit if commit else 'not recorded'))
    w('`ovsdb-server` and `ovs-vswitchd` are the host\'s Debian packages, '
      'run in the guest with their state in its `/tmp` and `/run`; '
      '`other_config:hw-offload=true`, `tc-policy=skip_hw`, '
      '`max-idle=120000`.  Per scenario a bridge whose ports are veths '
      'into two namespaces (scenario 4: two bridges joined by a tunnel '
      'port each), OpenFlow rules, traffic, then the checks of '
      '`ovs/README.md`.  `ours` = our cls_flower, `stock` = the 6.1 '
      'tree\'s (`make stock-ext`: same bzImage, stock module).')
    w('')
    for k, r in runs.items():
        if r is None:
            w('- %s: no result (the guest run wrote no JSON)' % k)
            continue
        n_ok = sum(1 for sc in r['scenarios'] for c in sc['checks']
                   if c['ok'])
        n_bad = sum(1 for sc in r['scenarios'] for c in sc['checks']
                    if not c['ok'])
        w('- %s: kernel %s, %s; %d checks passed, %d failed; %s s in the '
          'guest%s' % (k, r.get('kernel'), r.get('ovs'), n_ok, n_bad,
                       r.get('seconds'),
                       ', %s s wall with boot' % wall[k] if k in wall
                       else ''))
    w('')
    w('Columns: datapath flows in `dpctl/dump-flows type=tc,offloaded` '
      '/ how many of them counted packets (a tc flow\'s `packets:` is its '
      'flower filter\'s own counter), and flows in `type=ovs` (the '
      'openvswitch kernel datapath, where a flow stays when its flower add '
      'fails) after the traffic; packets the flower filters counted (`tc '
      '-s filter show dev PORT ingress`, all ports of the scenario); '
      'flower filters / distinct prios on those ports / distinct '
      'ethertypes of the offloaded flows; traffic checks passed; vswitchd '
      'log lines that fail a scenario (acknowledgment mismatch, failed to '
      'offload, ERR).')
    w('')
    w('Each flow kind a scenario looks for is checked twice: offloaded, and '
      '(where the scenario sends traffic that such a flow must carry after '
      'OVS installed it) counted: one flow of the kind shows packets in '
      'its filter.  A flow installed in flower that flower never matches '
      'leaves its packets to the upcall and OVS\'s slow path, where every '
      'traffic check still passes; only the counter tells.  A flow kind '
      'that no packet legitimately crosses once installed (the first ARP '
      'exchange installs the ARP flows) is made to see traffic again (a '
      'neighbour flush in the L2 scenario) or is not looked for.')
    w('')
    return o


def flow_table(runs):
    """One row per scenario and kernel."""
    o = []
    w = o.append
    w('| scenario | kernel | flows offloaded (tc) / that counted packets '
      '| flows in kernel datapath | packets counted by tc | filters / prios '
      '/ ethertypes | traffic ok | log errors | verdict | why |')
    w('|---|---|---|---|---|---|---|---|---|---|')
    for name in scenario_names(runs):
        for k, r in runs.items():
            for sc in (r or {}).get('scenarios', []):
                if sc['name'] == name:
                    w(row(k, sc))
    w('')
    return o


def probes(runs):
    """What OVS probed at start, per kernel."""
    o = []
    w = o.append
    w('## What OVS probed at start')
    w('')
    w('OVS 3.1 probes the tc features it relies on when the first port '
      'gets the tc flow API.  Its multi-mask probe '
      '(netdev-offload-tc.c, probe_multi_mask_per_prio()) adds two flower '
      'filters in prio 1, the second with one more mask (src_mac): when '
      'the kernel takes both, OVS logs `probe tc: multiple masks on single '
      'tc prio is supported.` and from then on keys its prio map on the '
      'ethertype alone (get_prio_for_tc_flower(): one prio per ethertype, '
      'shared by all ports); when the second add is refused it gives every '
      'distinct (mask, ethertype) its own prio.  Both flowers here take '
      'several masks per prio, so the start scenario checks for that line '
      'and every other scenario checks one prio per ethertype (the '
      '"prios" check; the third number of the filters column is the '
      'ethertypes of the offloaded flows).  `kernel:` lines are the '
      'kernel\'s answer (errno, extack) to a refused probe filter (the '
      'ct_state probe tries flag sets the kernel refuses), from '
      'netlink_socket\'s debug log.')
    w('')
    for k, r in runs.items():
        if not r:
            continue
        w('- %s:' % k)
        for line in r.get('probes', []):
            w('  - `%s`' % line)
    w('')
    w('OVS 3.1.0 (Debian 12) counts 0 CPUs during the first 10 s after '
      'boot (upstream fix b354cee2e, "ovs-thread: Fix cpus not read for '
      'the first 10s", in 3.2), so with per-CPU upcall dispatch a '
      'vswitchd started that early gets 0 handler threads: every miss is '
      'lost and no flow is installed anywhere.  The guest reaches its '
      'command ~3 s after boot, so scenarios.py starts ovs-vswitchd once '
      '/proc/uptime passes 11 s (the "start" row checks the handler '
      'count).')
    w('')
    return o


def per_scenario(runs):
    """Each scenario: its rules, failed checks, flows and what vswitchd
    said."""
    o = []
    w = o.append
    w('## Per scenario')
    for name in scenario_names(runs):
        first = True
        for k, r in runs.items():
            for sc in (r or {}).get('scenarios', []):
                if sc['name'] != name:
                    continue
                if first:
                    w('')
                    w('### %s' % sc['title'])
                    of = sc['info'].get('openflow')
                    if of:
                        w('')
                        w('OpenFlow rules:')
                        w('')
                        w('```')
                        w('\n'.join(of))
                        w('```')
                    first = False
                w('')
                bad = failed_checks(sc)
                w('%s: %d of %d checks passed%s' % (
                    k, len(sc['checks']) - len(bad), len(sc['checks']),
                    '' if not bad else '; failed:'))
                for c in bad:
                    w('- %s -- %s' % (c['check'], cell(c['detail'])[:600]))
                off = sc['info'].get('offloaded', [])
                kdp = sc['info'].get('kernel_dp', [])
                for label, flows in (('offloaded (tc)', off),
                                     ('kernel datapath', kdp)):
                    if not flows:
                        continue
                    w('')
                    w('<details><summary>%s: %d flow(s) %s</summary>'
                      % (k, len(flows), label))
                    w('')
                    w('```')
                    w('\n'.join(flows))
                    w('```')
                    w('</details>')
                reasons = list(dict.fromkeys(sc['info'].get('why', [])))
                if reasons:
                    w('')
                    w('vswitchd said:')
                    w('')
                    w('```')
                    w('\n'.join(reasons[:20]))
                    w('```')
    return o


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ours', required=True)
    ap.add_argument('--stock', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--wall', action='append', default=[])
    ap.add_argument('--commit', metavar='FILE', help='the commit the runs '
                    'measured (make ovs writes it before them)')
    a = ap.parse_args()
    commit = None
    if a.commit and os.path.exists(a.commit):
        with open(a.commit) as f:
            commit = f.read().strip()
    runs = {'ours': load(a.ours), 'stock': load(a.stock)}
    wall = dict(w.split('=', 1) for w in a.wall)
    o = intro(runs, wall, commit) + flow_table(runs) + probes(runs) + \
        per_scenario(runs)
    w = o.append
    w('')
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, 'w') as f:
        f.write('\n'.join(o))
    print('report: wrote %s' % a.out)


if __name__ == '__main__':
    main()
