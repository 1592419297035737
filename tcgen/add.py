# SPDX-License-Identifier: GPL-2.0
"""tcgen.add - the module and add themes.
"""

import collections

from tcgen.cases import dump, tc_filter
from tcgen.common import SHOW


# Ours and the stock module are told apart by a function only ours has:
# fl_hashfn, the masked-key hash of the filters' rhashtable (its address
# is taken, so it is never inlined away), listed in /proc/kallsyms as a
# text symbol of module cls_flower.  The stock module has no such symbol.
OURS_SYMBOL = ("grep -c '^[0-9a-f]* [tT] fl_hashfn.\\[cls_flower\\]$' "
               '/proc/kallsyms')


def module_cases(c):
    c.case('add', 'The cls_flower module answering is ours: it has '
           'fl_hashfn, its masked-key hash', OURS_SYMBOL,
           verify=OURS_SYMBOL, pattern=r'\A1\n\Z', cid='0b3e')
    c.case('add', 'A flower filter holds a reference on the cls_flower '
           'module, and that module is ours (it has fl_hashfn)',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8'),
           # one command (the corpus checker wants no &&): the refcnt,
           # then the symbol's kallsyms line
           verify="grep -h -e '^[1-9][0-9]*$' "
                  "-e ' [tT] fl_hashfn.\\[cls_flower\\]$' "
                  '/sys/module/cls_flower/refcnt /proc/kallsyms',
           pattern=r'\A[1-9][0-9]*\n[0-9a-f]+ [tT] fl_hashfn\t'
                   r'\[cls_flower\]\n\Z', cid='b2af')


def add_cases(c):
    c.case('add', 'Add with no key at all on protocol ip: only eth_type is '
           'dumped', tc_filter('add', 'ip'), verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4'},
                'not_in_hw': True}])))
    c.case('add', 'Add with no key at all on protocol all: the keys are '
           'empty', tc_filter('add', 'all'), verify=SHOW,
           exact=dump(('all', 1, [
               {'handle': 1, 'keys': {}, 'not_in_hw': True}])))
    # the key still asks for an IPv4 address, so it is dumped (its mask
    # printed as an address): the dump gives the same filter back
    c.case('add', 'Add a zero-length prefix dst_ip 0.0.0.0/0: accepted, '
           'and dumped with its all-zero mask',
           tc_filter('add', 'ip', 'dst_ip 0.0.0.0/0'), verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '0.0.0.0/0.0.0.0'},
                'not_in_hw': True}])))
    every = ('dst_mac 02:00:00:00:00:01 src_mac 02:00:00:00:00:02/24 '
             'ip_proto tcp ip_tos 0x10/0xf0 ip_ttl 64 '
             'dst_ip 10.1.0.0/24 src_ip 10.2.0.0/16 '
             'dst_port 80 src_port 0x4000/0xf000 tcp_flags 0x2/0x12')
    every_keys = collections.OrderedDict([
        ('dst_mac', '02:00:00:00:00:01'), ('src_mac', '02:00:00:00:00:02/24'),
        ('eth_type', 'ipv4'), ('ip_proto', 'tcp'), ('ip_tos', 16),
        ('ip_tos_mask', 'f0'), ('ip_ttl', 64), ('dst_ip', '10.1.0.0/24'),
        ('src_ip', '10.2.0.0/16'), ('dst_port', 80),
        ('src_port', 16384), ('src_port_mask', 'f000'),
        ('tcp_flags', '0x2/12')])
    c.case('add', 'Add every IPv4/TCP key at once, some masked: all come '
           'back', tc_filter('add', 'ip', every, handle=1), verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': every_keys, 'not_in_hw': True}])))
    c.case('add', 'Add with classid: the dump shows classid 1:5',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 classid 1:5', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'classid': '1:5',
                'keys': {'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Add with hw_tc 3: a classid in the hw tc range, dumped '
           'as hw_tc 3',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 hw_tc 3', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'hw_tc': 3,
                'keys': {'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Add on clsact ingress and egress: both dumped with '
           'their keys',
           '$TC filter add dev $DEV1 egress protocol ip prio 1 handle 1 '
           'flower src_ip 10.0.0.0/8',
           setup=['$TC qdisc add dev $DEV1 clsact',
                  '$TC filter add dev $DEV1 ingress protocol ip prio 1 '
                  'handle 1 flower dst_ip 10.0.0.0/8'],
           ingress=False, verify='$TC -j filter show dev $DEV1 egress',
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Add on the egress of a prio qdisc (parent 1:): the '
           'filter is dumped under that parent',
           '$TC filter add dev $DUMMY parent 1: protocol ip prio 1 handle 1 '
           'flower dst_ip 10.0.0.0/8 classid 1:2',
           setup=['$TC qdisc add dev $DUMMY root handle 1: prio'],
           ingress=False, verify='$TC -j filter show dev $DUMMY parent 1:',
           exact=dump(('ip', 1, [
               {'handle': 1, 'classid': '1:2',
                'keys': {'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Filters on ten prios, each with its own mask, all '
           'dumped in prio order',
           '$TC -b $BATCH_FILE',
           setup=["awk 'BEGIN { for (i = 1; i <= 10; i++) printf \"filter "
                  "add dev $DEV1 ingress protocol ip prio %d handle 1 flower "
                  "dst_ip 10.0.0.0/%d\\n\", i, i + 14 }' > $BATCH_FILE"],
           teardown=['rm -f $BATCH_FILE'], verify=SHOW,
           exact=dump(*[
               ('ip', i, [{'handle': 1, 'keys': {
                   'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/%d' % (i + 14)},
                   'not_in_hw': True}]) for i in range(1, 11)]))
    c.case('add', 'Add on a shared block: the filter is dumped on the '
           'block',
           '$TC filter add block 7 protocol ip prio 1 handle 1 flower '
           'dst_ip 10.0.0.0/8',
           setup=['$TC qdisc add dev $DEV1 ingress_block 7 clsact'],
           ingress=False, verify='$TC -j filter show block 7',
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    chain3 = {'protocol': 'ip', 'pref': 1, 'kind': 'flower'}
    c.case('add', 'Add on chain 3: the filter is dumped on that chain',
           '$TC filter add dev $DEV1 ingress protocol ip prio 1 chain 3 '
           'handle 1 flower dst_ip 10.0.0.0/8',
           verify='$TC -j filter show dev $DEV1 ingress chain 3',
           exact=[chain3, dict(chain3, options={
               'handle': 1, 'keys': {'eth_type': 'ipv4',
                                     'dst_ip': '10.0.0.0/8'},
               'not_in_hw': True})])
