# SPDX-License-Identifier: GPL-2.0
"""tcgen.themes_keys - the themes made from the catalogue: keys,
replace, delete, flush, get, terse, dump-roundtrip and packets.
"""

from tcgen.cases import dump, stats_json, tc_filter
from tcgen.catalogue import FAMILIES, KEYS, representatives
from tcgen.common import ETH_TYPE_NUM, SHOW, SHOW_STATS, filters
from tcgen.packets import ingress_bytes


def keys_cases(c):
    """keys-<family>: a filter with the variant's keys, then a second one
    with another value under the same mask: both are accepted, and the
    whole dump is exactly what was given, each key with its mask,
    nothing else."""
    for v in KEYS:
        if not v.tc_prints:
            continue
        first = tc_filter('add', v.proto, v.words(), handle=1)
        if v.words(alt=True) == v.words():
            c.case('keys-' + v.family,
                   'Add %s: tc -j filter show gives back exactly its keys'
                   % v.title, first, setup=v.setup, verify=SHOW,
                   exact=dump((v.proto, 1, [v.options(1)])),
                   tags=v.dump_tags)
            continue
        c.case('keys-' + v.family,
               'Add %s, then another value under the same mask: the dump '
               'gives back exactly both, key by key' % v.title,
               tc_filter('add', v.proto, v.words(alt=True), handle=2),
               setup=v.setup + [first], verify=SHOW,
               exact=dump((v.proto, 1, [
                   v.options(1), v.options(2, alt=True)])),
               tags=v.dump_tags)


def replace_cases(c):
    for v in representatives():
        c.case('replace',
               'Replace %s with another value of the same mask: the handle '
               'stays, the keys change' % v.title,
               tc_filter('replace', v.proto, v.words(alt=True),
                         handle='0x42'),
               setup=v.setup + [tc_filter('add', v.proto, v.words(),
                                          handle='0x42')],
               verify=SHOW, exact=dump(
                   (v.proto, 1, [v.options(0x42, alt=True)])),
               tags=v.dump_tags)


def delete_cases(c):
    for v in representatives():
        c.case('delete',
               'Delete one of two %s filters by handle: the other stays '
               'as it was' % v.title,
               '$TC filter del dev $DEV1 ingress protocol %s prio 1 '
               'handle 1 flower' % v.proto,
               setup=v.setup + [
                   tc_filter('add', v.proto, v.words(), handle=1),
                   tc_filter('add', v.proto, v.words(alt=True), handle=2)],
               verify=SHOW, exact=dump(
                   (v.proto, 1, [v.options(2, alt=True)])),
               tags=v.dump_tags)


def flush_cases(c):
    """delete: flush (delete every filter of the qdisc) with each
    variant of a family on a prio of its own."""
    for family in FAMILIES:
        variants = [v for v in KEYS if v.family == family]
        setup = []
        for prio, v in enumerate(variants, 1):
            setup += [s for s in v.setup if s not in setup]
            setup.append(tc_filter('add', v.proto, v.words(), prio=prio,
                                   handle=prio))
        c.case('delete', 'Flush the %s keys: with %d filters on %d prios, '
               'deleting every filter of the qdisc leaves nothing'
               % (family, len(variants), len(variants)),
               '$TC filter del dev $DEV1 ingress', setup=setup,
               **filters(0))


def get_cases(c):
    """get: one filter of two, by handle, for the first exact and the
    first masked variant of each family and protocol."""
    seen = set()
    for v in representatives():
        if (v.family, v.proto, v.masked()) in seen:
            continue
        seen.add((v.family, v.proto, v.masked()))
        get = '$TC -j filter get dev $DEV1 ingress protocol %s prio 1 ' \
              'handle 0x42 flower' % v.proto
        c.case('get', 'Get %s by handle 0x42 returns that filter and its '
               'keys' % v.title, get,
               setup=v.setup + [
                   tc_filter('add', v.proto, v.words(alt=True),
                             handle='0x41'),
                   tc_filter('add', v.proto, v.words(), handle='0x42')],
               verify=get,
               match_json=[{'kind': 'flower', 'options': v.options(0x42)}],
               tags=v.dump_tags)


def terse_cases(c):
    """dump-roundtrip: tc -brief dumps (TCA_DUMP_FLAGS_TERSE) give each
    filter's handle, flags and action kinds, never its keys."""
    adds = [tc_filter('add', 'ip', 'dst_ip 10.0.0.1', handle=1,
                      tail='action drop'),
            tc_filter('add', 'ip', 'skip_hw dst_ip 10.0.0.2', handle=2,
                      tail='classid 1:2 action pass'),
            tc_filter('add', 'ip', 'dst_ip 10.0.0.3', handle=3)]
    gact = [{'order': 1, 'kind': 'gact'}]
    options = [{'handle': 1, 'keys': {}, 'not_in_hw': True,
                'actions': gact},
               {'handle': 2, 'keys': {}, 'skip_hw': True, 'not_in_hw': True,
                'actions': gact},
               {'handle': 3, 'keys': {}, 'not_in_hw': True}]
    c.case('dump-roundtrip',
           'Terse dump (tc -brief) of three filters: handles, flags and '
           'action kinds, no keys, no classid', adds[-1], setup=adds[:-1],
           verify='$TC -br -j filter show dev $DEV1 ingress',
           exact=dump(('ip', 1, options)))
    c.case('dump-roundtrip',
           'Terse dump after deleting the middle filter lists the other '
           'two', '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
           'handle 2 flower', setup=adds,
           verify='$TC -br -j filter show dev $DEV1 ingress',
           exact=dump(('ip', 1, [options[0], options[2]])))


ROUNDTRIP_GROUPS = [
    ('link-layer, ARP and VLAN', ('eth', 'arp', 'vlan')),
    ('IPv4/IPv6 address, ip_proto and TOS/TTL',
     ('ipv4', 'ipv6', 'ip_proto', 'tos_ttl')),
    ('port, TCP flag and ICMP', ('ports', 'tcp_flags', 'icmp')),
    ('IP flag, QinQ, MPLS and PPPoE', ('ip_flags', 'qinq', 'mpls', 'pppoe')),
    ('port range', ('port_range',)),
]


def roundtrip_cases(c):
    """dump-roundtrip: what tc sent comes back from the kernel attribute
    by attribute, masks included ($FLNL show decodes the netlink dump
    with pyroute2).  Every variant on a prio of its own, in three cases
    only: $FLNL takes ~10 s to start in the guest."""
    assert sorted(f for _, fs in ROUNDTRIP_GROUPS for f in fs) == FAMILIES
    for label, families in ROUNDTRIP_GROUPS:
        variants = [v for v in KEYS if v.family in families]
        setup, expected = [], []
        for prio, v in enumerate(variants, 1):
            setup += [s for s in v.setup if s not in setup]
            setup.append(tc_filter('add', v.proto, v.words(), prio=prio,
                                   handle=prio))
            expected += [{'handle': 0, 'prio': prio},
                         {'handle': prio, 'prio': prio, 'kind': 'flower',
                          'protocol': ETH_TYPE_NUM.get(v.proto, 3),
                          'options': v.attrs()}]
        last = setup.pop()
        c.case('dump-roundtrip',
               'Netlink round trip of the %s keys (%d filters, one per '
               'prio): the kernel dumps every key attribute with its mask'
               % (label, len(variants)), last, setup=setup,
               verify='$FLNL show --dev $DEV1 --protocol 0',
               match_json=expected,
               tags=sorted({t for v in variants for t in v.dump_tags}))


def packet_cases(c):
    """packets-<family>: the matching frames are counted, exactly, the
    others not."""
    for v in KEYS:
        if not v.hit:
            continue
        nbytes = sum(ingress_bytes(p) for p in v.hit)
        c.case('packets-' + v.family,
               'Packets: %s counts the %d matching frame(s) and none of '
               'the %d others' % (v.title, len(v.hit), len(v.miss)),
               tc_filter('add', v.proto, v.words(), handle=1,
                         tail='action ok'),
               setup=v.setup, scapy=[(p, 1) for p in v.hit + v.miss],
               verify=SHOW_STATS,
               match_json=stats_json(v.proto, len(v.hit), nbytes))
