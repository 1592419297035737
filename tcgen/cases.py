# SPDX-License-Identifier: GPL-2.0
"""tcgen.cases - building cases: the Corpus, tc and $FLNL commands,
expected dumps and counters, and the refusal helpers the themes share.
"""

import collections
import hashlib
import json

from tcgen.common import (DUMMY_SETUP, FILTER_LINE, FLNL_TIMEOUT, INGRESS,
                          PROTO_NAME, compact, filters, quote, rx)
from lint import corpus, jsonpattern
from tdc import case_families
from tcgen.packets import (Layers, dot1q, ether, ingress_bytes, ip4, layer,
                           render)


class Corpus:
    def __init__(self):
        self.themes = collections.OrderedDict()     # theme -> [case]
        self.names = set()
        self.frames = []        # every frame a case sends, as its spec

    def case(self, theme, name, cmd, exp=0, setup=(), verify=None,
             pattern=None, count=1, match_json=None, exact=None, scapy=None,
             teardown=(), ingress=True, timeout=None, cid=None, tags=(),
             hidden_exit=None):
        """A case on $DEV1's ingress qdisc (ingress=False: the setup
        makes its own qdiscs), one command per setup entry.  exact: the
        parsed JSON output must be exactly this (matchJSON +
        matchJSONExact).  A JSON match comes with the matchPattern that
        checks the same (lint/jsonpattern.py) for 6.1's tdc.py, which
        reads only matchPattern.  6.1's tdc.py runs every case in one
        namespace, and its nsPlugin makes no $DUMMY: a case that uses
        $DUMMY makes it, and what the setup makes in the namespace
        (corpus.cleanups: qdiscs, links, addresses, actions) it first
        removes, in case a case before it was cut short, and removes
        again in its teardown; both with the exit codes of "nothing to
        remove" allowed.

        cid: the case's id, for a case whose name changed while its
        request stayed (the id names the request; assign_ids).  tags:
        categories after the theme's (LENIENCY: the request is one the
        stock flower accepts and the series accepts only from its
        leniency step on, tdc/series_cases.py).  hidden_exit: why a
        command that pipes $TC's output, which hides tc's exit status,
        cannot pass when tc fails (the case's exitHiddenByPipe: the
        corpus checker refuses such a pipe without it)."""
        assert name not in self.names, 'duplicate name: ' + name
        self.names.add(name)
        case = collections.OrderedDict()
        case['id'] = cid
        case['name'] = name
        base, _, family = theme.partition('-')
        if base in ('keys', 'packets'):         # keys-ipv4 -> keys, ipv4
            case['category'] = ['filter', 'flower', base, family]
        else:
            case['category'] = ['filter', 'flower', theme]
        case['category'] += list(tags)
        if scapy:
            case['category'].append('scapy')
        setup = ([INGRESS] if ingress else []) + list(setup)
        if any('$DUMMY' in x for x in [cmd, verify or ''] + setup +
               list(teardown)):
            setup = DUMMY_SETUP + setup
        made = corpus.cleanups(setup)
        setup = [[x] + list(corpus.CLEANUP_CODES) for x in made] + setup
        teardown = list(teardown) + [[x] + list(corpus.CLEANUP_CODES)
                                     for x in reversed(made)]
        flnl = any('$FLNL' in x if isinstance(x, str) else '$FLNL' in x[0]
                   for x in [cmd, verify or ''] + setup)
        if flnl:
            case['category'].append('flowernl')
        case['plugins'] = {'requires': ['nsPlugin', 'scapyPlugin']
                           if scapy else 'nsPlugin'}
        case['setup'] = setup
        case['cmdUnderTest'] = cmd
        case['expExitCode'] = str(exp)
        if hidden_exit:
            case[corpus.PIPE_OPT_OUT] = hidden_exit
        if scapy:
            assert all(isinstance(p, Layers) for p, _n in scapy), \
                'a frame is a tcgen.packets spec, not text'
            self.frames += [p for p, _n in scapy]
            case['scapy'] = [
                {'iface': '$DEV0', 'count': n, 'packet': render(p)}
                for p, n in scapy]
        if verify:
            case['verifyCmd'] = verify
            if exact is not None:
                case['matchJSON'] = exact
                case['matchJSONExact'] = True
                case['matchPattern'] = jsonpattern.pattern(
                    exact, True, jsonpattern.style_of(verify))
                case['matchCount'] = '1'
            elif match_json is not None:
                case['matchJSON'] = match_json
                case['matchPattern'] = jsonpattern.pattern(
                    match_json, False, jsonpattern.style_of(verify))
                case['matchCount'] = '1'
            else:
                case['matchPattern'] = pattern
                case['matchCount'] = str(count)
        case['teardown'] = list(teardown)
        if any('$FLNL' in x for x in (cmd, verify or '')):
            timeout = timeout or FLNL_TIMEOUT
        if timeout:
            case['timeout'] = timeout
        self.themes.setdefault(theme, []).append(case)
        return case

    def refused(self, theme, name, cmd, exp, message, setup=(), left=0,
                dev='$DEV1', **kw):
        """A command the kernel refuses: exit code `exp` (2 from tc, the
        errno from $FLNL), `message` on stderr, `left` filters remain on
        `dev` (the device cmd adds to).  For tc, the verify step sends the
        same request again and then dumps the filters, in one `tc -force
        -b` of a batch file the setup writes: its output has the message
        and exactly `left` filter lines after it.  A $FLNL request goes
        through `$FLNL batch` (refused_many), which checks the errno and
        the message itself."""
        if cmd.startswith('$FLNL '):
            return refused_many(self, theme, name, [(cmd, exp, message)],
                                setup=setup, left=left, dev=dev, **kw)
        assert cmd.startswith('$TC ') and "'" not in cmd, cmd
        batch = "printf '%%s\\n' '%s' 'filter show dev %s ingress' " \
                "> $BATCH_FILE" % (cmd[len('$TC '):], dev)
        pattern = r'^Error: %s\.$' % rx(message)
        if left:
            pattern += r'(?:.*?%s){%d}' % (FILTER_LINE, left)
        pattern += r'(?!.*?%s)' % FILTER_LINE
        return self.case(theme, name, cmd, exp=exp,
                         setup=list(setup) + [batch],
                         verify='$TC -force -b $BATCH_FILE 2>&1',
                         pattern=pattern, **kw)

    def add_families(self):
        """Each case's seriesFamilies (corpus.FAMILIES_FIELD), after its
        category: the families of kernel/series/families its requests
        use (case_families.used_families()), which say at which step of
        the series it runs; the case is complete (its commands final)."""
        for case in (c for cs in self.themes.values() for c in cs):
            items = [(k, v) for k, v in case.items()
                     if k != corpus.FAMILIES_FIELD]
            at = [k for k, _v in items].index('category') + 1
            families = sorted(case_families.used_families(case))
            case.clear()
            case.update(items[:at] + [(corpus.FAMILIES_FIELD, families)] +
                        items[at:])

    def assign_ids(self, reserved):
        """Ids from the names, in name order, avoiding `reserved`; a
        case given its id (Corpus.case's cid: a request whose expectation
        and so its name changed) keeps it."""
        taken = set(reserved)
        everything = [c for cs in self.themes.values() for c in cs]
        pinned = [c['id'] for c in everything if c['id'] is not None]
        assert len(pinned) == len(set(pinned)), 'an id pinned twice'
        assert not taken & set(pinned), 'a pinned id is reserved: %s' % (
            ' '.join(sorted(taken & set(pinned))))
        taken |= set(pinned)
        cases = sorted((c for c in everything if c['id'] is None),
                       key=lambda c: c['name'])
        for case in cases:
            salt = 0
            while True:
                text = case['name'] + ('#%d' % salt if salt else '')
                cid = hashlib.sha1(text.encode()).hexdigest()[:4]
                if cid not in taken:
                    break
                salt += 1
            taken.add(cid)
            case['id'] = cid


def tc_filter(op, proto, words='', prio=1, handle=None, dev='$DEV1',
              parent='ingress', tail=''):
    cmd = '$TC filter %s dev %s %s protocol %s prio %d' % (
        op, dev, parent, proto, prio)
    if handle is not None:
        cmd += ' handle %s' % handle
    cmd += ' flower'
    for part in (words, tail):
        if part:
            cmd += ' ' + part
    return cmd


def flnl(op, proto='ip', attrs=(), raw=(), prio=1, handle=None,
         eth_type=True, dev='$DEV1'):
    """A raw request through $FLNL; eth_type: also send
    TCA_FLOWER_KEY_ETH_TYPE for the protocol, as tc does."""
    cmd = '$FLNL %s --dev %s --prio %d --protocol %s' % (op, dev, prio,
                                                          proto)
    if handle is not None:
        cmd += ' --handle %s' % handle
    if eth_type and proto != 'all':
        cmd += ' --attr eth_type=%s' % proto
    for item in attrs:
        cmd += ' --attr ' + item
    for item in raw:
        cmd += ' --raw ' + item
    return cmd


def header(proto, prio=1):
    return {'protocol': PROTO_NAME[proto], 'pref': prio, 'kind': 'flower',
            'chain': 0}


def entry(proto, options, prio=1):
    return dict(header(proto, prio), options=options)


def dump(*instances):
    """The tc -j filter show output, parsed, for instances given as
    (proto, prio, [options of each filter])."""
    return json.loads(dump_text(*instances))


def dump_text(*instances):
    """The exact tc -j filter show output for instances given as
    (proto, prio, [options of each filter])."""
    out = []
    for proto, prio, flts in instances:
        out.append(header(proto, prio))
        out += [entry(proto, opts, prio) for opts in flts]
    return compact(out)


def stats_json(proto, packets, nbytes, prio=1, handle=1, extra=None):
    """matchJSON: the filter's (first) action counted packets/bytes."""
    stats = {'bytes': nbytes, 'packets': packets}
    stats.update(extra or {})
    return [{'kind': 'flower'},
            {'protocol': PROTO_NAME[proto], 'pref': prio, 'kind': 'flower',
             'options': {'handle': handle, 'actions': [{'stats': stats}]}}]


def counted(proto, per_handle, prio=1):
    """matchJSON: the filters of one prio in handle order (as tc dumps
    them), each given as (handle, [(packet, count)] its first action
    counted)."""
    out = [{'kind': 'flower'}]
    for handle, frames in sorted(per_handle):
        out.append({'protocol': PROTO_NAME[proto], 'pref': prio,
                    'kind': 'flower', 'options': {
                        'handle': handle, 'actions': [{'stats': {
                            'bytes': sum(n * ingress_bytes(p)
                                         for p, n in frames),
                            'packets': sum(n for _p, n in frames)}}]}})
    return out


def in_prio(n, prio=1, dev='$DEV1'):
    """verifyCmd and match: n filters on dev's ingress, all in `prio`."""
    return dict(verify='$TC filter show dev %s ingress' % dev,
                pattern=r'^filter [^\n]*\bpref %d [^\n]*\bhandle '
                        r'0x[0-9a-f]+\b' % prio, count=n)


def refused_rx(c, theme, name, cmd, line, setup=(), left=0, dev='$DEV1',
               **kw):
    """Like Corpus.refused, the error given as a regular expression for
    one line of tc's output (`line`, without ^ and $): tc exits 2, prints
    that line, and `left` filters remain on `dev`."""
    assert cmd.startswith('$TC ') and "'" not in cmd, cmd
    batch = "printf '%%s\\n' '%s' 'filter show dev %s ingress' " \
            "> $BATCH_FILE" % (cmd[len('$TC '):], dev)
    pattern = r'^%s$' % line
    if left:
        pattern += r'(?:.*?%s){%d}' % (FILTER_LINE, left)
    pattern += r'(?!.*?%s)' % FILTER_LINE
    return c.case(theme, name, cmd, exp=2, setup=list(setup) + [batch],
                  verify='$TC -force -b $BATCH_FILE 2>&1', pattern=pattern,
                  **kw)


def tcp(ip=None, **fields):
    """An IPv4/TCP frame: TCP fields, ip: IP fields."""
    return ip4(l4=layer('TCP', **dict(dict(sport=1000, dport=2000),
                                      **fields)), **(ip or {}))


def eth_ip4(**fields):
    return ip4(eth=ether(**fields))


def v6_in_tag(**tag):
    return dot1q(inner=layer('IPv6', src='2001:db8:2::1',
                             dst='2001:db8:1::1'), **tag)


STRERROR = {17: 'File exists', 19: 'No such device', 22: 'Invalid argument',
            95: 'Operation not supported'}


def refused_many(c, theme, name, requests, setup=(), left=0, dev='$DEV1',
                 check=None, **kw):
    """requests: [($FLNL command, errno, extack message)], sent from one
    python process by `$FLNL batch` (importing pyroute2 takes ~10 s in the
    emulated guest), which checks each one's exit status and message and
    names, by number and arguments, every request that was not refused as
    expected; the verify step counts the filters left (check: the verify
    step's Corpus.case arguments instead, a dump of the filters left)."""
    return c.case(theme, name, '$FLNL batch ' + batch_words(requests),
                  setup=setup, **(check or filters(left, dev)), **kw)


def batch_words(requests):
    """The arguments of `$FLNL batch` for requests given as ($FLNL
    command, errno, extack message): errno 0 and message '' for one that
    must succeed, message '' to check the errno only."""
    return ' '.join('--expect %d %s %s' % (code, quote(msg),
                                           quote(r[len('$FLNL '):]))
                    for r, code, msg in requests)
