#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""flowernl.py - tc flower filters at the netlink level, through pyroute2.

Two things live here:

* FlowerOptions, a pyroute2 nla class for the TCA_OPTIONS of a kind
  "flower" filter (every 6.1 TCA_FLOWER_* attribute, numbered as in
  include/uapi/linux/pkt_cls.h).  Importing this module registers it with
  pyroute2, so IPRoute().tc('add-filter', 'flower', ...) can send flower
  filters and dumps of flower filters decode into named attributes.

* A command line tool for tdc cases.  It builds RTM_*TFILTER messages
  itself, so a case can send what stock tc refuses to build (a mask
  without its key, a wrong length, an unknown attribute type, a protocol
  that contradicts the keys):

    flowernl.py add|replace|change|delete|get|show --dev DEV
                [--parent ingress|egress|MAJ:MIN] [--prio N]
                [--protocol ip|ipv6|all|0xNNNN...] [--handle H] [--chain N]
                [--kind flower] [--action drop|pass|...|none]
                [--attr NAME=VALUE]... [--raw ATTR=HEX]...

  NAME is TCA_FLOWER_KEY_ETH_DST, key_eth_dst or eth_dst; VALUE is parsed
  by the attribute's type (MAC, IPv4/IPv6 address, integer, string, hex).
  --raw puts exactly the given bytes (hex, ':' or '.' allowed, empty for
  a zero-length attribute) under ATTR, a name or a number (which may
  include NLA_F_NESTED, 0x8000).

  On a kernel error it prints the extack message as tc does ("Error:
  <msg>.") on stderr and exits with the errno (22 EINVAL, 95 EOPNOTSUPP,
  17 EEXIST, ...).  Its own errors, found before any request reaches
  the kernel (a bad command line, an attribute name or value it cannot
  parse, a device that is not there), print "flowernl: ..." (or
  argparse's usage) on stderr and exit with USAGE_EXIT, 200: a code no
  errno has (Linux's go up to 133, EHWPOISON), above the 128 + N a shell
  reports for a process killed by signal N (N <= 64) and below the 255
  that `batch` gives a request that raised.  So a case that expects an
  errno from $FLNL (expExitCode "22") fails when the request never
  reached the kernel: exit 22 is always the kernel's EINVAL.

    flowernl.py batch [--expect ERRNO MESSAGE 'REQUEST']...

  sends many requests from one process (pyroute2 takes seconds to import
  in an emulated guest), each REQUEST being the arguments above in one
  word, and checks that each one exits with ERRNO and prints "Error:
  MESSAGE." (ERRNO 0, MESSAGE "": succeeds).  It prints every request
  that did not do so, by number and arguments, with what it did, then
  "N requests: N as expected, N not"; exit status 0 if all were as
  expected, else 1 (USAGE_EXIT for a malformed batch; a request with a
  usage error counts as exiting with USAGE_EXIT).  get and show print
  the filters as JSON: a list of {"handle", "prio", "protocol", "chain",
  "kind", "options"} where options maps TCA_FLOWER_* names to values
  (actions as a list of objects).
"""

import argparse
import errno
import io
import json
import os
import shlex
import socket
import sys
from contextlib import redirect_stderr, redirect_stdout

from pyroute2 import IPRoute
from pyroute2.netlink import (NLM_F_ACK, NLM_F_CREATE, NLM_F_DUMP,
                              NLM_F_EXCL, NLM_F_REPLACE, NLM_F_REQUEST, nla)
from pyroute2.netlink.exceptions import NetlinkError
from pyroute2.netlink.rtnl import (RTM_DELTFILTER, RTM_GETTFILTER,
                                   RTM_NEWTFILTER)
from pyroute2.netlink.rtnl.tcmsg import plugins as tc_plugins
from pyroute2.netlink.rtnl.tcmsg import tcmsg
from pyroute2.netlink.rtnl.tcmsg.common import tc_actions
from pyroute2.netlink.rtnl.tcmsg.common_act import (get_tca_action,
                                                    tca_act_prio)

from flower import nl, uapi

# (TCA_FLOWER_<suffix>, nla type) in the order of the 6.1 enum, from the
# one table of them (uapi.py: numbers, types, lengths, masks).
FLOWER_ATTRS = tuple((a.name, a.nla_type) for a in uapi.TABLE)

# name -> (number, nla type), e.g. 'TCA_FLOWER_KEY_ETH_DST' -> (4, 'l2addr')
ATTR_BY_NAME = {'TCA_FLOWER_' + suffix: (number, nla_type)
                for number, (suffix, nla_type) in enumerate(FLOWER_ATTRS)}
NAME_BY_NUMBER = {number: name for name, (number, _) in ATTR_BY_NAME.items()}

# The exit status of flowernl's own errors (the module's help): no errno
# (1..133 on Linux), no signal death as a shell reports it (128 + 1..64),
# not 255 (a request that raised, in batch), not 126/127 (the shell's).
USAGE_EXIT = 200

TCA_FLOWER_FLAGS_BITS = {'skip_hw': 1, 'skip_sw': 2, 'in_hw': 4,
                         'not_in_hw': 8, 'verbose': 16}


def _numbered_map(extra=()):
    """An nla_map keyed by attribute number.  `extra` entries come first so
    that, where a number appears twice, decoding uses the typed entry."""
    return tuple(extra) + tuple((number, name, nla_type)
                                for name, (number, nla_type)
                                in ATTR_BY_NAME.items())


class FlowerOptions(nla):
    """TCA_OPTIONS of a "flower" filter."""
    nla_map = _numbered_map()
    tca_act_prio = tca_act_prio


def raw_options_class(numbers):
    """FlowerOptions plus one attribute 'RAW_<n>' per number n, whose value
    is sent as the given bytes: the way to send what the type forbids."""
    extra = tuple((n, 'RAW_%d' % n, 'cdata') for n in sorted(set(numbers)))
    # pyroute2 caches the compiled nla_map per class under this mangled
    # name; a subclass with another map must start uncompiled.
    return type('FlowerOptionsRaw', (FlowerOptions,),
                {'nla_map': _numbered_map(extra),
                 '_nlmsg_base__compiled_nla': False})


class FlowerTcMsg(tcmsg):
    """tcmsg with the TCA_* attributes 6.1 has and pyroute2 0.7.2 lacks
    (TCA_CHAIN above all), and TCA_OPTIONS decoded by kind."""
    nla_map = (
        (0, 'TCA_UNSPEC', 'none'),
        (1, 'TCA_KIND', 'asciiz'),
        (2, 'TCA_OPTIONS', 'get_options'),
        (3, 'TCA_STATS', 'stats'),
        (4, 'TCA_XSTATS', 'get_xstats'),
        (5, 'TCA_RATE', 'hex'),
        (6, 'TCA_FCNT', 'hex'),
        (7, 'TCA_STATS2', 'get_stats2'),
        (8, 'TCA_STAB', 'hex'),
        (9, 'TCA_PAD', 'hex'),
        (10, 'TCA_DUMP_INVISIBLE', 'flag'),
        (11, 'TCA_CHAIN', 'uint32'),
        (12, 'TCA_HW_OFFLOAD', 'uint8'),
        (13, 'TCA_INGRESS_BLOCK', 'uint32'),
        (14, 'TCA_EGRESS_BLOCK', 'uint32'),
        (15, 'TCA_DUMP_FLAGS', 'hex'),
        (16, 'TCA_EXT_WARN_MSG', 'asciiz'),
    )
    _nlmsg_base__compiled_nla = False
    # The class TCA_OPTIONS is encoded with (a request may carry options
    # that are not flower's own, under any TCA_KIND).
    options_class = FlowerOptions

    @staticmethod
    def get_options(self, *argv, **kwarg):
        if 'value' in kwarg:            # encoding: our own options
            return self.options_class
        return self.get_plugin('options', *argv, **kwarg)


# --- pyroute2 tc plugin interface (IPRoute.tc picks these by kind) ---------
options = FlowerOptions


def fix_msg(msg, kwarg):
    """tcm_info = prio << 16 | protocol (network order), as tc sets it."""
    protocol = kwarg.pop('protocol', 0x0003) & 0xFFFF      # ETH_P_ALL
    msg['info'] = (kwarg.pop('prio', 0) << 16) | socket.htons(protocol)


def get_parameters(kwarg):
    """IPRoute.tc keywords -> TCA_OPTIONS: action=... plus flower
    attributes named as attr_name() accepts (eth_dst='..', ip_proto=6)."""
    attrs = []
    for key, value in kwarg.items():
        if key == 'action':
            attrs.append(['TCA_FLOWER_ACT', get_tca_action(kwarg)])
        else:
            attrs.append([attr_name(key), value])
    return {'attrs': attrs}


tc_plugins['flower'] = sys.modules[__name__]


# --- names and values ------------------------------------------------------
def attr_name(key):
    """'TCA_FLOWER_KEY_ETH_DST', 'key_eth_dst' or 'eth_dst' -> full name."""
    upper = key.upper()
    for name in (upper, 'TCA_FLOWER_' + upper, 'TCA_FLOWER_KEY_' + upper):
        if name in ATTR_BY_NAME:
            return name
    raise ValueError('unknown flower attribute %r' % key)


def attr_number(key):
    """A name (as attr_name accepts) or a number (decimal or 0x hex)."""
    try:
        return int(key, 0)
    except ValueError:
        return ATTR_BY_NAME[attr_name(key)][0]


def parse_hex(text):
    """'0a000001', '0a:00:00:01' or '0a.00.00.01' -> bytes."""
    return bytes.fromhex(text.replace(':', '').replace('.', ''))


def parse_value(name, text):
    """The command line text of attribute `name` -> the value its nla type
    encodes (hex types become bytes and are sent raw)."""
    nla_type = ATTR_BY_NAME[name][1]
    if nla_type in ('l2addr', 'ip4addr', 'ip6addr', 'asciiz'):
        return text
    if nla_type == 'hex':
        return parse_hex(text)
    if name == 'TCA_FLOWER_KEY_ETH_TYPE' or name.endswith('_ETH_TYPE'):
        return protocol_number(text)
    if name == 'TCA_FLOWER_FLAGS' and not text[:1].isdigit():
        return sum(TCA_FLOWER_FLAGS_BITS[f] for f in text.split(','))
    return int(text, 0)


def protocol_number(text):
    """A protocol as tc takes it (ip, ipv6, 802.1q, ...) or a number."""
    return uapi.ethertype(text)


# tc's parent notation, as tc sends it (ingress is ffff:fff2)
parse_tc_handle = nl.parse_parent


# --- decoding to JSON -------------------------------------------------------
def to_json(value):
    """A decoded pyroute2 value -> plain JSON data: nested attributes become
    {name: value}, structs {field: value}, the action list a list."""
    if not isinstance(value, nla):
        return value.hex() if isinstance(value, bytes) else value
    if value.get('attrs'):
        if value.__class__.__name__ == 'tca_act_prio':
            return [dict(order=int(name.rsplit('_', 1)[1]), **to_json(act))
                    for name, act in value['attrs']]
        return {_short(name): to_json(inner)
                for name, inner in value['attrs'] if name != 'UNKNOWN'}
    fields = {name: value[name] for name, _ in value.fields}
    if list(fields) == ['value']:
        return to_json(value.value)
    return fields


def _short(name):
    # inside an action: TCA_ACT_KIND -> kind, TCA_GACT_PARMS -> parms ...
    if name.startswith('TCA_FLOWER_'):
        return name
    return name.split('_', 2)[-1].lower() if name.startswith('TCA_') else name


def filter_json(msg):
    """One RTM_NEWTFILTER message -> the JSON object get/show print."""
    entry = {'handle': msg['handle'],
             'prio': msg['info'] >> 16,
             'protocol': socket.ntohs(msg['info'] & 0xFFFF),
             'chain': msg.get_attr('TCA_CHAIN') or 0,
             'kind': msg.get_attr('TCA_KIND')}
    opts = msg.get_attr('TCA_OPTIONS')
    if opts is not None:
        entry['options'] = to_json(opts) if isinstance(opts, nla) else opts
    return entry


# --- the command line tool ---------------------------------------------------
REQUESTS = {  # command -> (message type, flags beyond REQUEST|ACK), as tc
    'add': (RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL),
    'replace': (RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_REPLACE),
    'change': (RTM_NEWTFILTER, 0),
    'delete': (RTM_DELTFILTER, 0),
    'get': (RTM_GETTFILTER, 0),
    'show': (RTM_GETTFILTER, NLM_F_DUMP),
}


def request_type_and_flags(command):
    """The message type and all the flags for `command`.  A dump ends with
    NLMSG_DONE; anything else asks for an ACK.  (Test the command, not the
    bits: NLM_F_DUMP shares its bits with NLM_F_EXCL and NLM_F_REPLACE.)"""
    msg_type, flags = REQUESTS[command]
    return msg_type, flags | NLM_F_REQUEST | (
        0 if command == 'show' else NLM_F_ACK)


def build_request(args, ifindex):
    """The FlowerTcMsg for the parsed command line."""
    opts = []
    raw = [(attr_number(key), parse_hex(text))
           for key, text in map(split_assignment, args.raw)]
    for key, text in map(split_assignment, args.attr):
        name = attr_name(key)
        value = parse_value(name, text)
        if isinstance(value, bytes):        # hex-typed: send as given
            raw.append((ATTR_BY_NAME[name][0], value))
        else:
            opts.append([name, value])
    if args.action != 'none':
        opts.append(['TCA_FLOWER_ACT', get_tca_action(
            {'action': {'kind': 'gact', 'action': args.action}})])
    opts += [['RAW_%d' % number, data] for number, data in raw]

    msg_class = FlowerTcMsg
    if raw:
        msg_class = type('FlowerTcMsgRaw', (FlowerTcMsg,), {
            'options_class': raw_options_class(n for n, _ in raw)})
    msg = msg_class()
    msg['family'] = socket.AF_UNSPEC
    msg['index'] = ifindex
    msg['handle'] = args.handle
    msg['parent'] = parse_tc_handle(args.parent)
    msg['info'] = (args.prio << 16) | socket.htons(
        protocol_number(args.protocol) & 0xFFFF)
    if args.kind:
        msg['attrs'].append(['TCA_KIND', args.kind])
    if args.chain is not None:
        msg['attrs'].append(['TCA_CHAIN', args.chain])
    # tc sends TCA_OPTIONS (maybe empty) when it creates or changes a filter
    if opts or args.command in ('add', 'replace', 'change'):
        msg['attrs'].append(['TCA_OPTIONS', {'attrs': opts}])
    return msg


def split_assignment(item):
    if '=' not in item:
        raise ValueError('expected NAME=VALUE, got %r' % item)
    return item.split('=', 1)


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error exits with USAGE_EXIT, not 2 (ENOENT:
    a case expecting the kernel's ENOENT would pass without a request)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(USAGE_EXIT, '%s: error: %s\n' % (self.prog, message))


def parse_args(argv):
    p = ArgumentParser(
        description='send/dump tc flower filters over netlink (pyroute2)')
    p.add_argument('command', choices=sorted(REQUESTS))
    p.add_argument('--dev', required=True)
    p.add_argument('--parent', default='ingress',
                   help='ingress (default: ffff:fff2, as tc), egress, root or '
                   'MAJ:MIN (hex)')
    p.add_argument('--prio', '--pref', type=lambda s: int(s, 0), default=0)
    p.add_argument('--protocol', default='ip',
                   help='ip (default), ipv6, all, arp, 802.1q, or a number')
    p.add_argument('--handle', type=lambda s: int(s, 0), default=0)
    p.add_argument('--chain', type=lambda s: int(s, 0))
    p.add_argument('--kind', default='flower',
                   help='TCA_KIND (default flower; "" to leave it out)')
    p.add_argument('--action', default='none',
                   help='gact action to attach: drop, pass/ok, ... '
                        '(default none: no TCA_FLOWER_ACT)')
    p.add_argument('--attr', action='append', default=[],
                   metavar='NAME=VALUE')
    p.add_argument('--raw', action='append', default=[], metavar='ATTR=HEX')
    args = p.parse_args(argv)
    if args.action == 'ok':
        args.action = 'pass'
    if args.action != 'none' and args.action not in tc_actions:
        p.error('unknown action %r' % args.action)
    return args


def report_error(err):
    """Print a kernel error like tc does; return the exit status (errno)."""
    code = abs(err.code) or errno.EIO
    extack = err.args[1] if len(err.args) > 1 else None
    if extack and extack != os.strerror(code):
        print('Error: %s%s' % (extack, '' if extack.endswith('.') else '.'),
              file=sys.stderr)
    print('RTNETLINK answers: %s' % os.strerror(code), file=sys.stderr)
    return code


def report_warning(err):
    """Print the extack message of a successful request like tc does.
    pyroute2 0.7 reads the attributes of such an ACK from the wrong offset
    (the request's header, capped, comes first), so it often has none."""
    extack = err.args[1] if len(err.args) > 1 else None
    if extack and extack != os.strerror(0):
        print('Warning: %s%s' % (extack, '' if extack.endswith('.') else '.'),
              file=sys.stderr)


def batch(argv, send=None):
    """flowernl.py batch: see the module's help.  `send(args)` runs one
    request (default: main)."""
    send = send or main
    if len(argv) % 4 or any(argv[i] != '--expect'
                            for i in range(0, len(argv), 4)):
        print('usage: flowernl.py batch [--expect ERRNO MESSAGE REQUEST]...',
              file=sys.stderr)
        return USAGE_EXIT
    requests = [(int(argv[i + 1]), argv[i + 2], argv[i + 3])
                for i in range(0, len(argv), 4)]
    wrong = 0
    for number, (code, message, request) in enumerate(requests, 1):
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            try:
                got = send(shlex.split(request))
            except SystemExit as exc:           # argparse
                got = exc.code if isinstance(exc.code, int) else USAGE_EXIT
            except Exception as exc:
                print('flowernl: %s: %s' % (type(exc).__name__, exc),
                      file=sys.stderr)
                got = 255
        lines = err.getvalue().splitlines()
        want = 'Error: %s.' % message if message else None
        if got != code or (want and want not in lines):
            wrong += 1
            print('request %d of %d is not as expected: %s' % (
                number, len(requests), request))
            print('  expected: exit %d%s' % (
                code, ', "%s"' % want if want else ''))
            print('  got:      exit %d%s' % (
                got, ''.join(', "%s"' % line for line in lines)))
    print('%d requests: %d as expected, %d not' % (
        len(requests), len(requests) - wrong, wrong))
    return 1 if wrong else 0


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ['batch']:
        return batch(argv[1:])
    args = parse_args(argv)
    # ext_ack: the kernel attaches its NL_SET_ERR_MSG text to errors
    with IPRoute(ext_ack=True) as ipr:
        # decode replies with the full tcmsg (TCA_CHAIN & co)
        for msg_type in (RTM_NEWTFILTER, RTM_DELTFILTER, RTM_GETTFILTER):
            ipr.marshal.msg_map[msg_type] = FlowerTcMsg
        links = ipr.link_lookup(ifname=args.dev)
        if not links:
            print('flowernl: Cannot find device "%s"' % args.dev,
                  file=sys.stderr)
            return USAGE_EXIT
        try:
            msg = build_request(args, links[0])
        except (ValueError, KeyError) as exc:
            print('flowernl: %s' % exc, file=sys.stderr)
            return USAGE_EXIT
        msg_type, flags = request_type_and_flags(args.command)
        try:
            replies = ipr.nlm_request(msg, msg_type=msg_type,
                                      msg_flags=flags)
        except NetlinkError as err:
            if err.code:
                return report_error(err)
            # an ACK that carries a message: the request succeeded with a
            # warning, which pyroute2 raises; tc prints it so
            report_warning(err)
            return 0
        if args.command in ('get', 'show'):
            filters = [filter_json(m) for m in replies
                       if m['header']['type'] == RTM_NEWTFILTER]
            print(json.dumps(filters, indent=2, sort_keys=True))
    return 0


if __name__ == '__main__':
    sys.exit(main())
