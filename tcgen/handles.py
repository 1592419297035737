# SPDX-License-Identifier: GPL-2.0
"""tcgen.handles - handles, deletes and flags.
"""

from tcgen.cases import dump, tc_filter
from tcgen.common import INGRESS, INGRESS_DEL, SHOW, filters


def handle_cases(c):
    t = 'handles'

    def one(handle, proto='ip', words='dst_ip 10.0.0.0/8'):
        return {'handle': handle, 'keys': {'eth_type': 'ipv4',
                                           'dst_ip': words.split()[1]},
                'not_in_hw': True}
    c.case(t, 'Explicit handle 0x10 is kept and dumped as 16',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle='0x10'),
           verify=SHOW, exact=dump(('ip', 1, [one(16)])))
    c.case(t, 'Automatic handles are allocated from 1 upward: 1, 2, 3',
           tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8'),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1), one(2, words='dst_ip 11.0.0.0/8'),
               one(3, words='dst_ip 12.0.0.0/8')])))
    c.case(t, 'An automatic handle fills the lowest gap (2 after 1, 2, 3 '
           'and deleting 2)',
           tc_filter('add', 'ip', 'dst_ip 13.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8'),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8'),
                  tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8'),
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 2 flower'],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1), one(2, words='dst_ip 13.0.0.0/8'),
               one(3, words='dst_ip 12.0.0.0/8')])))
    c.case(t, 'An automatic handle after an explicit 1 is 2',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=1)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1), one(2, words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'The largest handle, 0xffffffff, is accepted and dumped',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle='0xffffffff'),
           verify=SHOW,
           exact=dump(('ip', 1, [one(0xffffffff)])))
    c.case(t, 'Get by the largest handle 0xffffffff',
           '$TC -j filter get dev $DEV1 ingress protocol ip prio 1 handle '
           '0xffffffff flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0xffffffff')],
           verify='$TC -j filter get dev $DEV1 ingress protocol ip prio 1 '
                  'handle 0xffffffff flower',
           match_json=[{'options': one(0xffffffff)}])
    c.case(t, 'Delete by the largest handle 0xffffffff',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle '
           '0xffffffff flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0xffffffff'),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=1)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1, words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'After handle 0xffffffff an automatic handle starts at 1',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0xffffffff')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1, words='dst_ip 11.0.0.0/8'), one(0xffffffff)])))
    c.case(t, 'Handles above INT_MAX (0x80000000) are accepted when given',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle='0x80000000'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0x7fffffff')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(0x7fffffff), one(0x80000000,
                                    words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'The dump lists filters in handle order, not insertion '
           'order',
           tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8', handle=5),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=9),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=2)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(2, words='dst_ip 11.0.0.0/8'),
               one(5, words='dst_ip 12.0.0.0/8'), one(9)])))
    exists = 'Filter already exists'
    c.refused(t, 'add with a handle that exists: Filter already exists '
              '(EEXIST)',
              tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=1), 2,
              exists, setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                                       handle=1)], left=1)
    c.refused(t, 'add with the largest handle twice: Filter already exists',
              tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8',
                        handle='0xffffffff'), 2, exists,
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                               handle='0xffffffff')], left=1)
    c.refused(t, 'add with the handle an automatic filter got: Filter '
              'already exists',
              tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=1), 2,
              exists, setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8')],
              left=1)
    handle_change_cases(c, t, one)


def handle_change_cases(c, t, one):
    """handles: replace, change, get and delete by handle, refused or kept."""
    c.case(t, 'replace keeps the handle (0x1234) and takes the new key',
           tc_filter('replace', 'ip', 'dst_ip 11.0.0.0/8', handle='0x1234'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0x1234')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(0x1234, words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'replace with the same key swaps the filter: handle, key '
           'kept, new action',
           tc_filter('replace', 'ip', 'dst_ip 10.0.0.0/8 action drop',
                     handle=3),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 action ok',
                            handle=3)],
           verify=SHOW,
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 3, 'keys': {'dst_ip': '10.0.0.0/8'},
               'actions': [{'kind': 'gact',
                            'control_action': {'type': 'drop'}}]}}])
    c.case(t, 'replace of a handle that does not exist creates the filter',
           tc_filter('replace', 'ip', 'dst_ip 10.0.0.0/8', handle=8),
           verify=SHOW, exact=dump(('ip', 1, [one(8)])))
    c.case(t, 'replace without a handle creates a filter with handle 1',
           tc_filter('replace', 'ip', 'dst_ip 10.0.0.0/8'),
           verify=SHOW, exact=dump(('ip', 1, [one(1)])))
    c.case(t, 'change keeps the handle and takes the new key',
           tc_filter('change', 'ip', 'dst_ip 11.0.0.0/8', handle=6),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=6)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(6, words='dst_ip 11.0.0.0/8')])))
    c.refused(t, 'change of a handle that does not exist is refused by tc '
              'core (no NLM_F_CREATE)',
              tc_filter('change', 'ip', 'dst_ip 11.0.0.0/8', handle=6), 2,
              'Need both RTM_NEWTFILTER and NLM_F_CREATE to create a new '
              'filter',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=5)],
              left=1)
    c.refused(t, 'delete of a handle that does not exist: not found',
              '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 9 '
              'flower', 2, 'Specified filter handle not found',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=5)],
              left=1)
    c.refused(t, 'get of a handle that does not exist: not found',
              '$TC filter get dev $DEV1 ingress protocol ip prio 1 handle 9 '
              'flower', 2, 'Specified filter handle not found',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=5)],
              left=1)
    c.case(t, 'Get one filter out of three by handle',
           '$TC -j filter get dev $DEV1 ingress protocol ip prio 1 handle 2 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=1),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=2),
                  tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8', handle=3)],
           verify='$TC -j filter get dev $DEV1 ingress protocol ip prio 1 '
                  'handle 2 flower',
           match_json=[{'options': one(2, words='dst_ip 11.0.0.0/8')}])
    c.case(t, 'A deleted handle can be given again',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=4),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=4),
                  tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8', handle=5),
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 4 flower'],
           verify=SHOW, exact=dump(('ip', 1, [
               one(4, words='dst_ip 11.0.0.0/8'),
               one(5, words='dst_ip 12.0.0.0/8')])))
    c.case(t, 'The same handle on two prios: two filters, one per instance',
           tc_filter('add', 'ip', 'src_ip 10.0.0.0/8', prio=2, handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=1)],
           **filters(2))


def delete_more_cases(c):
    t = 'delete'
    two = [tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1),
           tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24', handle=2)]
    c.case(t, 'Delete the last filter: the instance goes too, nothing is '
           'dumped',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1)],
           **filters(0))
    c.case(t, 'Delete a whole prio: all its filters go, the other prio '
           'stays',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1',
           setup=two + [tc_filter('add', 'ip', 'src_ip 10.0.0.0/8', prio=2,
                                  handle=1)],
           verify=SHOW, exact=dump(('ip', 2, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case(t, 'Flush: deleting every filter of the qdisc leaves nothing',
           '$TC filter del dev $DEV1 ingress',
           setup=two + [tc_filter('add', 'ipv6', 'dst_ip 2001:db8::/32',
                                  prio=2),
                        tc_filter('add', 'arp', 'arp_op request', prio=3)],
           **filters(0))
    c.case(t, 'Delete the ingress qdisc while filters are on it: the '
           'filters go with it', INGRESS_DEL, setup=two,
           # the root qdisc is listed still: upstream's tdc fails a verify
           # that prints nothing
           verify='$TC qdisc show dev $DEV1', pattern=r'^qdisc ingress ',
           count=0)
    c.case(t, 'After deleting the qdisc with filters a new qdisc starts '
           'empty and takes a new mask',
           tc_filter('add', 'ip', 'src_ip 10.0.0.0/8', handle=1),
           setup=two + [INGRESS_DEL, INGRESS], verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case(t, 'Delete both filters one by one: nothing is left',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 2 '
           'flower',
           setup=two + ['$TC filter del dev $DEV1 ingress protocol ip prio '
                        '1 handle 1 flower'],
           **filters(0))
    c.case(t, 'Delete the clsact qdisc with flower filters on ingress and '
           'egress', '$TC qdisc del dev $DEV1 clsact',
           setup=['$TC qdisc add dev $DEV1 clsact',
                  '$TC filter add dev $DEV1 ingress protocol ip prio 1 '
                  'flower dst_ip 10.0.0.0/8 action drop',
                  '$TC filter add dev $DEV1 egress protocol ip prio 1 '
                  'flower src_ip 10.0.0.0/8 action drop'],
           ingress=False,
           # no gact left: tc -j prints an empty list (the kernel's dump
           # has no message; an action left would make it [{"total acts":
           # N}, {"actions": [...]}]), and a tc that failed prints no JSON
           # (before: `... | wc -l` matching 0 or 1 lines, which a failing
           # tc passed); the output is not empty, which upstream's tdc
           # refuses
           verify='$TC -j actions list action gact', exact=[])
    c.case(t, 'Deleting a filter releases its action: gact index 1 goes',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 action drop '
                            'index 1', handle=1)],
           verify='$TC actions list action gact', pattern='index 1',
           count=0)
    c.case(t, 'A shared action survives the delete of one of its two '
           'filters (ref 1 after)',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=['$TC actions add action gact drop index 9',
                  tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 action gact '
                            'index 9', handle=1),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8 action gact '
                            'index 9', handle=2)],
           verify='$TC actions list action gact',
           pattern=r'index 9 ref 2 bind 1')


def flag_cases(c):
    t = 'add'
    c.case(t, 'skip_hw is accepted: the dump shows skip_hw and not_in_hw',
           tc_filter('add', 'ip', 'skip_hw dst_ip 10.0.0.0/8', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/8'},
                'skip_hw': True, 'not_in_hw': True}])))
    c.case(t, 'Without flags every filter is dumped not_in_hw (no '
           'offload)', tc_filter('add', 'ipv6', 'dst_ip 2001:db8::/32',
                                 handle=1),
           verify=SHOW, exact=dump(('ipv6', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv6',
                                      'dst_ip': '2001:db8::/32'},
                'not_in_hw': True}])))
    c.case(t, 'verbose is accepted and not dumped as a key',
           tc_filter('add', 'ip', 'verbose dst_ip 10.0.0.0/8', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case(t, 'Netlink: TCA_FLOWER_FLAGS comes back as skip_hw|not_in_hw',
           tc_filter('add', 'ip', 'skip_hw dst_ip 10.0.0.0/8', handle=1),
           verify='$FLNL show --dev $DEV1',
           match_json=[{'handle': 0}, {'handle': 1, 'options': {
               'TCA_FLOWER_FLAGS': 9}}])
    # $DUMMY, not $DEV2: upstream's nsPlugin leaves $DEV2 outside the
    # case's namespace
    c.case(t, 'skip_hw on the dummy device $DUMMY (no offload there '
           'either)',
           '$TC filter add dev $DUMMY ingress protocol ip prio 1 handle 1 '
           'flower skip_hw dst_ip 10.0.0.0/8 action drop',
           setup=['$TC qdisc add dev $DUMMY ingress'], ingress=False,
           verify='$TC -j filter show dev $DUMMY ingress',
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'skip_hw': True, 'not_in_hw': True}}])
