#!/usr/bin/python3
"""docs/ovs.md from one run of ovs/scenarios.py per kernel (make ovs).

usage: report.py --ours JSON --stock JSON --out FILE [--wall KERNEL=SEC]...
A JSON that is missing (the guest never wrote it) shows as "no result".
"""
import argparse
import json
import os
import re
import time

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


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cell(text):
    return str(text).replace('|', '\\|').replace('\n', ' ')


def failed_checks(sc):
    return [c for c in sc['checks'] if not c['ok']]


def why(sc):
    """One sentence per scenario: why its flows were offloaded or not."""
    i = sc['info']
    bad = failed_checks(sc)
    if sc['name'] == 'start':
        return ('upcalls work, the ports get the linux_tc flow API, the '
                'probes ran' if not bad else
                '; '.join('%s (%s)' % (c['check'], c['detail'])
                          for c in bad))
    skip = [c['detail'] for c in bad if c['detail'].startswith('SKIP')]
    if skip:
        return '; '.join(skip)
    prios = sorted({f[0] for fl in i.get('tc', {}).values() for f in fl})
    kdp = i.get('kernel_dp', [])
    if not bad:
        return ('every datapath flow went to flower (%d tc prio(s) used '
                'across the ports)' % len(prios))
    parts = []
    found = set()
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
    nbad = len(i.get('log_errors', []))
    fails = len(failed_checks(sc))
    if sc['name'] == 'start':
        return '| %s | %s | | | | | | | %s | %s |' % (
            sc['title'], kernel, 'PASS' if not fails else
            'FAIL (%d)' % fails, cell(why(sc)))
    return '| %s | %s | %d | %d | %s | %d / %d | %s | %d | %s | %s |' % (
        sc['title'], kernel, len(off), len(kdp), i.get('tc_packets', '-'),
        filters, prios,
        '%d/%d' % (t_ok, len(traffic)) if traffic else '-', nbad,
        'PASS' if not fails else 'FAIL (%d of %d checks)'
        % (fails, len(sc['checks'])), cell(why(sc)))


def scenario_names(runs):
    seen = []
    for r in runs.values():
        for sc in (r or {}).get('scenarios', []):
            if sc['name'] not in seen:
                seen.append(sc['name'])
    return seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ours', required=True)
    ap.add_argument('--stock', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--wall', action='append', default=[])
    a = ap.parse_args()
    runs = {'ours': load(a.ours), 'stock': load(a.stock)}
    wall = dict(w.split('=', 1) for w in a.wall)
    o = []
    w = o.append
    w('# Open vSwitch tc offload on ours and on the stock flower')
    w('')
    w('Written by `make ovs` (`ovs/scenarios.py` in the guest, once per '
      'kernel; this file by `ovs/report.py`), %s.'
      % time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))
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
      'and in `type=ovs` (the openvswitch kernel datapath, where a flow '
      'stays when its flower add fails) after the traffic; packets the '
      'flower filters counted (`tc -s filter show dev PORT ingress`, all '
      'ports of the scenario); flower filters / distinct prios on those '
      'ports; traffic checks passed; vswitchd log lines that fail a '
      'scenario (acknowledgment mismatch, failed to offload, ERR).')
    w('')
    w('| scenario | kernel | flows offloaded (tc) | flows in kernel '
      'datapath | packets counted by tc | filters / prios | traffic ok | '
      'log errors | verdict | why |')
    w('|---|---|---|---|---|---|---|---|---|---|')
    for name in scenario_names(runs):
        for k, r in runs.items():
            for sc in (r or {}).get('scenarios', []):
                if sc['name'] == name:
                    w(row(k, sc))
    w('')
    w('## What OVS probed at start')
    w('')
    w('OVS 3.1 probes the tc features it relies on when the first port '
      'gets the tc flow API.  When one prio refuses a second mask it '
      'gives every distinct (mask, ethertype) its own prio, which is what '
      'our one-mask-per-prio flower wants (hence the higher prio counts '
      'on ours above).  `kernel:` lines are the kernel\'s answer (errno, '
      'extack) to a refused probe filter, from netlink_socket\'s debug '
      'log.')
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
    w('')
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, 'w') as f:
        f.write('\n'.join(o))
    print('report: wrote %s' % a.out)


if __name__ == '__main__':
    main()
