# SPDX-License-Identifier: GPL-2.0
"""The offload oracle's scenarios: sequences a single filter request does
not show.  Each is one item of the request file (offload/common.py says
its form); the runner records every step (exit status, stderr, the
driver's log, `tc -s -j filter show`) and tears down after the last.

Each scenario runs on both bindings (offload/common.py): direct, A =
ofd0 and B = ofd1 (the driver's fltest devices, ndo_setup_tc), ids
s-NAME; indirect, A = ofa and B = ofb (a veth pair the driver takes
through flow_indr_dev_register()), ids s-NAME@veth.  C = ofc is a dummy
no driver takes.

  stats-*          the driver's counters (debugfs `stats`) in `tc -s
                   filter show`, per hw_stats kind, twice (stock adds the
                   driver's answer each time), for a skip_hw filter (no
                   STATS call) and for one the driver refused
  block-*          shared blocks: a second taken device joining a block
                   that holds offloaded filters, a template and a
                   matchall (playback: tcf_block_playback_offloads() with
                   reoffload and tmplt_reoffload), and leaving it; two
                   devices bound before the filters (in_hw_count 2); a
                   device the driver does not take in the block (skip_sw
                   then fails); egress_block
  template-*       chain templates: create, a filter that fits and one that
                   does not, chain show, chain del with filters, a
                   template on chain 0
  refuse-*         the driver refusing (`refuse all`, `refuse ipv4_addrs`):
                   with and without skip_sw, with verbose; the error, the
                   extack, the filter in software or not
  replace-*        replace with the same mask, with another key, with
                   skip_hw (out of hardware) and back, refused by the
                   driver
  delete-*         delete by handle, by prio (the tp), every filter
  qdisc-del        the qdisc removed with filters offloaded in two chains
                   and a template
  hook-*           the ingress qdisc, clsact's egress, goto chain
  hw-tc-off        (direct only) B with hw-tc-offload off: binding it to
                   a block with offloaded rules fails, its own rules are
                   refused by the driver
  ss-N-*           (only with stock_series: `offload.sources
                   --stock-series`, the stock-next pair) one item per
                   patch of kernel/stock-series, N its number: the
                   requests each patch is about (docs/stock-series.md),
                   so that the smoke meets every patch, the ones that
                   must not change what drivers get (3, 6-12) included
"""
from offload.common import BINDINGS, DEV_C, INDIRECT_SUFFIX

C = DEV_C
F = 'protocol ip flower'


def tc(args, **kw):
    return dict(op='tc', args=args, **kw)


def show(where):
    return dict(op='show', args=where)


def flush(where):
    return dict(op='flush', args=where)


def drv(name, value):
    return dict(op='drv', file=name, value=value)


def clsact(dev, extra=''):
    return tc('qdisc add dev %s %sclsact' % (dev, extra))


def noclsact(dev):
    return tc('qdisc del dev %s clsact' % dev)


def fadd(where, spec):
    return tc('filter add %s %s' % (where, spec))


def item(name, what, steps):
    return dict(id='s-' + name, source='scenario', what=what,
                origin=[name], flags='', steps=steps)


def stats_items(A, B):
    IA = 'dev %s ingress' % A
    out = []
    for kind in ('', 'immediate', 'delayed', 'disabled'):
        hw = ' hw_stats ' + kind if kind else ''
        out.append(item(
            'stats' + ('-' + kind if kind else ''),
            'driver counters in tc -s (action drop%s), read twice' % hw, [
                drv('stats', '100 6400 3'),
                clsact(A),
                fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action drop%s'
                     % (F, hw)),
                show(IA),
                drv('stats', '7 448 1'),
                show(IA),
                flush(IA), noclsact(A)]))
    out.append(item('stats-two-actions', 'driver counters, two actions', [
        drv('stats', '5 320 2'),
        clsact(A),
        fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action pass '
             'action drop' % F),
        show(IA), flush(IA), noclsact(A)]))
    out.append(item('stats-skip_hw', 'skip_hw: no STATS call', [
        drv('stats', '100 6400 3'),
        clsact(A),
        fadd(IA, 'prio 1 handle 1 %s skip_hw dst_ip 10.0.0.1 action drop'
             % F),
        fadd(IA, 'prio 2 handle 1 %s dst_ip 10.0.0.2 action drop' % F),
        show(IA), flush(IA), noclsact(A)]))
    out.append(item('stats-refused', 'STATS for a filter the driver '
                    'refused', [
                        drv('stats', '100 6400 3'), drv('refuse', 'all'),
                        clsact(A),
                        fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 '
                             'action drop' % F),
                        show(IA), flush(IA), noclsact(A)]))
    return out


def block_items(A, B):
    IA = 'dev %s ingress' % A
    b21 = 'block 21'
    out = [item('block-playback', 'B joins shared block 21 holding '
                'offloaded filters, a template and a skip_hw filter; B '
                'leaves', [
                    clsact(A, 'ingress_block 21 '),
                    fadd(b21, 'prio 1 handle 1 %s dst_ip 10.0.0.1 '
                         'action drop' % F),
                    fadd(b21, 'prio 2 handle 1 %s skip_hw dst_ip 10.0.0.2 '
                         'action drop' % F),
                    tc('chain add %s chain 1 %s dst_ip 0.0.0.0/16' % (b21,
                                                                      F)),
                    fadd(b21, 'chain 1 prio 1 handle 1 %s dst_ip 10.1.0.0/16 '
                         'action drop' % F),
                    fadd(b21, 'prio 3 handle 1 protocol ipv6 flower '
                         'ip_proto tcp dst_port 80 action pass'),
                    clsact(B, 'ingress_block 21 '),
                    show(b21),
                    noclsact(B),
                    show(b21),
                    flush(b21),
                    tc('chain del %s chain 1' % b21),
                    noclsact(A)]),
           item('block-playback-matchall', 'B joins a shared block '
                'holding an offloaded matchall and a flower filter', [
                    clsact(A, 'ingress_block 22 '),
                    tc('filter add block 22 prio 1 protocol all matchall '
                       'action drop'),
                    fadd('block 22', 'prio 2 handle 1 %s dst_ip 10.0.0.1 '
                         'action drop' % F),
                    clsact(B, 'ingress_block 22 '),
                    show('block 22'),
                    noclsact(B), noclsact(A)]),
           item('block-two-bound', 'A and B bound to block 23 before the '
                'filters (in_hw_count 2), a template; B leaves (playback '
                'of the removal)', [
                    clsact(A, 'ingress_block 23 '),
                    clsact(B, 'ingress_block 23 '),
                    fadd('block 23', 'prio 1 handle 1 %s dst_ip 10.0.0.1 '
                         'action drop' % F),
                    fadd('block 23', 'prio 2 handle 1 %s skip_sw dst_ip '
                         '10.0.0.2 action drop' % F),
                    fadd('block 23', 'prio 3 handle 1 %s skip_hw dst_ip '
                         '10.0.0.3 action drop' % F),
                    tc('chain add block 23 chain 2 %s dst_ip 0.0.0.0/8' % F),
                    fadd('block 23', 'chain 2 prio 1 handle 1 %s dst_ip '
                         '10.0.0.0/8 action drop' % F),
                    drv('stats', '3 192 0'),
                    show('block 23'),
                    noclsact(B),
                    show('block 23'),
                    flush('block 23'),
                    tc('chain del block 23 chain 2'),
                    noclsact(A)]),
           item('block-untaken', 'block 24 shared by A and C (C not '
                'taken by the driver)', [
                    clsact(A, 'ingress_block 24 '),
                    clsact(C, 'ingress_block 24 '),
                    fadd('block 24', 'prio 1 handle 1 %s dst_ip 10.0.0.1 '
                         'action drop' % F),
                    fadd('block 24', 'prio 2 handle 1 %s skip_sw dst_ip '
                         '10.0.0.2 action drop' % F),
                    show('block 24'),
                    noclsact(C), show('block 24'),
                    flush('block 24'), noclsact(A)]),
           item('block-egress', 'B joins egress_block 25', [
               clsact(A, 'egress_block 25 '),
               fadd('block 25', 'prio 1 handle 1 %s dst_ip 10.0.0.1 '
                    'action drop' % F),
               clsact(B, 'egress_block 25 '),
               show('block 25'),
               noclsact(B), noclsact(A)])]
    return out


def template_items(A, B):
    IA = 'dev %s ingress' % A
    return [item('template', 'chain 1 template: create, a filter that '
                 'fits, one that does not, chain del with a filter', [
                     clsact(A),
                     tc('chain add %s chain 1 %s dst_ip 0.0.0.0/16' % (IA,
                                                                       F)),
                     fadd(IA, 'chain 1 prio 1 handle 1 %s dst_ip 10.0.0.0/16 '
                          'action drop' % F),
                     fadd(IA, 'chain 1 prio 2 handle 1 %s src_ip 10.0.0.1 '
                          'action drop' % F),
                     fadd(IA, 'chain 1 prio 3 handle 1 %s skip_sw dst_ip '
                          '10.1.0.0/16 action drop' % F),
                     tc('chain show %s' % IA, json=True),
                     show(IA),
                     tc('chain del %s chain 1' % IA),
                     show(IA), noclsact(A)]),
            item('template-chain0', 'a template on chain 0, the qdisc '
                 'removed with it', [
                     clsact(A),
                     tc('chain add %s chain 0 protocol ipv6 flower ip_proto '
                        'tcp dst_port 0' % IA),
                     fadd(IA, 'prio 1 handle 1 protocol ipv6 flower ip_proto '
                          'tcp dst_port 22 action drop'),
                     show(IA), noclsact(A)]),
            item('template-refused', 'a template while the driver '
                 'refuses every rule', [
                     drv('refuse', 'all'), clsact(A),
                     tc('chain add %s chain 2 %s dst_ip 0.0.0.0/8' % (IA,
                                                                      F)),
                     fadd(IA, 'chain 2 prio 1 handle 1 %s dst_ip 10.0.0.0/8 '
                          'action drop' % F),
                     tc('chain del %s chain 2' % IA), noclsact(A)])]


def refuse_items(A, B):
    IA = 'dev %s ingress' % A
    out = []
    for what, value, key in (('all', 'all', 'dst_ip 10.0.0.1'),
                             ('key', 'ipv4_addrs', 'dst_ip 10.0.0.1'),
                             ('other-key', 'ipv6_addrs', 'dst_ip 10.0.0.1'),
                             ('ports', 'ports', 'ip_proto tcp dst_port 80')):
        out.append(item('refuse-' + what, 'driver refuse %s: %s without '
                        'and with skip_sw, verbose' % (value, key), [
                            drv('refuse', value), clsact(A),
                            fadd(IA, 'prio 1 handle 1 %s %s action drop'
                                 % (F, key)),
                            fadd(IA, 'prio 2 handle 1 %s skip_sw %s action '
                                 'drop' % (F, key)),
                            fadd(IA, 'prio 3 handle 1 %s verbose %s action '
                                 'drop' % (F, key)),
                            fadd(IA, 'prio 4 handle 1 %s skip_sw verbose %s '
                                 'action drop' % (F, key)),
                            fadd(IA, 'prio 5 handle 1 %s skip_hw %s action '
                                 'drop' % (F, key)),
                            fadd(IA, 'prio 6 handle 1 protocol all flower '
                                 'dst_mac 02:00:00:00:00:01 action drop'),
                            show(IA), flush(IA), noclsact(A)]))
    return out


def replace_items(A, B):
    IA = 'dev %s ingress' % A
    r = 'filter replace %s prio 1 handle 1 %s ' % (IA, F)
    return [item('replace-same-mask', 'replace with the same mask, to '
                 'skip_hw and back', [
                     clsact(A),
                     fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action '
                          'drop' % F),
                     tc(r + 'dst_ip 10.0.0.2 action pass'),
                     show(IA),
                     tc(r + 'skip_hw dst_ip 10.0.0.3 action drop'),
                     show(IA),
                     tc(r + 'dst_ip 10.0.0.4 action drop'),
                     show(IA),
                     tc(r + 'skip_sw dst_ip 10.0.0.5 action drop'),
                     show(IA), flush(IA), noclsact(A)]),
            item('replace-other-key', 'replace with another key (another '
                 'mask)', [
                     clsact(A),
                     fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action '
                          'drop' % F),
                     tc(r + 'src_ip 10.0.0.2 action drop'),
                     show(IA),
                     tc(r + 'dst_ip 10.0.0.0/8 action drop'),
                     show(IA), flush(IA), noclsact(A)]),
            item('replace-refused', 'replace while the driver refuses', [
                clsact(A),
                fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action drop'
                     % F),
                drv('refuse', 'all'),
                tc(r + 'skip_sw dst_ip 10.0.0.2 action drop'),
                show(IA),
                tc(r + 'dst_ip 10.0.0.3 action drop'),
                show(IA),
                drv('refuse', 'none'),
                tc(r + 'dst_ip 10.0.0.4 action drop'),
                show(IA), flush(IA), noclsact(A)])]


def delete_items(A, B):
    IA = 'dev %s ingress' % A
    return [item('delete', 'delete by handle, by prio, every filter', [
        clsact(A),
        fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action drop' % F),
        fadd(IA, 'prio 1 handle 2 %s dst_ip 10.0.0.2 action drop' % F),
        fadd(IA, 'prio 1 handle 3 %s src_ip 10.0.0.3 action drop' % F),
        fadd(IA, 'prio 2 handle 1 %s dst_ip 10.0.0.4 action drop' % F),
        fadd(IA, 'prio 3 handle 1 %s skip_hw dst_ip 10.0.0.5 action drop'
             % F),
        fadd(IA, 'chain 4 prio 1 handle 1 %s dst_ip 10.0.0.6 action drop'
             % F),
        tc('filter del %s prio 1 handle 2 flower' % IA),
        tc('filter del %s prio 1 handle 2 flower' % IA),
        show(IA),
        tc('filter del %s prio 2' % IA),
        tc('filter del %s' % IA),
        show(IA),
        tc('filter del %s chain 4' % IA),
        show(IA), noclsact(A)]),
        item('qdisc-del', 'the qdisc removed with filters offloaded in '
             'two chains, a template and a skip_hw filter', [
                 clsact(A),
                 fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action drop'
                      % F),
                 fadd(IA, 'prio 1 handle 2 %s skip_hw dst_ip 10.0.0.2 '
                      'action drop' % F),
                 fadd(IA, 'prio 2 handle 1 %s ip_proto udp dst_port 53 '
                      'action goto chain 3' % F),
                 tc('chain add %s chain 3 %s dst_ip 0.0.0.0/24' % (IA, F)),
                 fadd(IA, 'chain 3 prio 1 handle 1 %s dst_ip 10.0.0.0/24 '
                      'action drop' % F),
                 noclsact(A)])]


def hook_items(A, B):
    IA = 'dev %s ingress' % A
    ie = 'dev %s egress' % A
    return [item('hook-ingress-qdisc', 'the ingress qdisc (not clsact)', [
        tc('qdisc add dev %s ingress' % A),
        fadd('dev %s parent ffff:' % A, 'prio 1 handle 1 %s dst_ip '
             '10.0.0.1 action drop' % F),
        show('dev %s parent ffff:' % A),
        flush('dev %s parent ffff:' % A),
        tc('qdisc del dev %s ingress' % A)]),
        item('hook-egress', "clsact's egress", [
            clsact(A),
            fadd(ie, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action drop' % F),
            fadd(ie, 'prio 2 handle 1 %s skip_sw dst_ip 10.0.0.2 action '
                 'drop' % F),
            show(ie), flush(ie), noclsact(A)]),
        item('hook-goto', 'goto chain, mirred to B, vlan push, pedit', [
            clsact(A),
            fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action goto '
                 'chain 5' % F),
            fadd(IA, 'chain 5 prio 1 handle 1 %s ip_proto tcp action '
                 'mirred egress redirect dev %s' % (F, B)),
            fadd(IA, 'prio 2 handle 1 %s dst_ip 10.0.0.2 action vlan push '
                 'id 7 pipe action pedit ex munge ip ttl set 10 pipe '
                 'action mirred egress mirror dev %s' % (F, B)),
            show(IA), flush(IA), noclsact(A)])]


def hw_tc_off_items(A, B):
    """B (a fltest device) with hw-tc-offload off, as a NIC with tc
    offload turned off by ethtool."""
    IA = 'dev %s ingress' % A
    return [item('hw-tc-off', 'B with hw-tc-offload off: joining block 26 '
                 'that holds an offloaded rule, a rule on its own block', [
                     dict(op='ethtool', args='-K %s hw-tc-offload off' % B),
                     clsact(A, 'ingress_block 26 '),
                     fadd('block 26', 'prio 1 handle 1 %s dst_ip 10.0.0.1 '
                          'action drop' % F),
                     clsact(B, 'ingress_block 26 '),
                     clsact(B),
                     fadd('dev %s ingress' % B, 'prio 1 handle 1 %s dst_ip '
                          '10.0.0.2 action drop' % F),
                     fadd('dev %s ingress' % B, 'prio 2 handle 1 %s skip_sw '
                          'dst_ip 10.0.0.3 action drop' % F),
                     fadd('dev %s ingress' % B, 'prio 3 handle 1 %s verbose '
                          'dst_ip 10.0.0.4 action drop' % F),
                     show('dev %s ingress' % B),
                     flush('dev %s ingress' % B),
                     noclsact(B),
                     dict(op='ethtool', args='-K %s hw-tc-offload on' % B),
                     show('block 26'), flush('block 26'), noclsact(A)])]


def stock_series_items(A, B):
    """One item per patch of kernel/stock-series (docs/stock-series.md):
    filters on A each patch is about, shown and flushed.  Patches 1, 2,
    4 and 5 change what drivers are given (offload/known.py's stock-next
    table says how); the others change software matching, a dump or
    locking only, and drivers must see no difference."""
    IA = 'dev %s ingress' % A

    def one(n, name, what, specs):
        steps = [clsact(A)]
        for i, spec in enumerate(specs, 1):
            steps.append(fadd(IA, 'prio %d handle %d %s' % (i, i, spec)))
        return item('ss-%d-%s' % (n, name), 'patch %d: %s' % (n, what),
                    steps + [show(IA), flush(IA), noclsact(A)])

    return [
        one(1, 'zero-ip-mask', 'an all-zero IP address mask', [
            F + ' dst_ip 0.0.0.0/0 action drop',
            F + ' ip_proto udp dst_port 4000 src_ip 0.0.0.0/0 action drop',
            'protocol ipv6 flower src_ip ::/0 action drop',
            F + ' dst_ip 0.0.0.0/0 src_ip 10.0.0.1 action drop']),
        one(2, 'zero-enc-mask', 'an all-zero tunnel address mask', [
            F + ' enc_dst_ip 0.0.0.0/0 enc_key_id 42 action drop',
            F + ' enc_dst_ip ::/0 action drop',
            F + ' enc_dst_ip 0.0.0.0/0 enc_src_ip 10.9.0.1 action drop']),
        one(3, 'classid', 'a classid filter refused for its key, one '
            'taken', [F + ' ct_state +new classid 1:10 action drop',
                      F + ' dst_ip 10.0.0.1 classid 1:10 action drop']),
        one(4, 'enc-two-families', 'tunnel addresses of both families', [
            F + ' enc_src_ip 10.9.0.2 enc_dst_ip 2001:db8:9::1 action '
            'drop']),
        item('ss-5-replace-takes-other-key', 'patch 5: a replace that '
             'takes another filter\'s key (same mask), then one that '
             'keeps its own', [
                 clsact(A),
                 fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action drop'
                      % F),
                 fadd(IA, 'prio 1 handle 2 %s dst_ip 10.0.0.2 action drop'
                      % F),
                 tc('filter replace %s prio 1 handle 1 %s dst_ip 10.0.0.2 '
                    'action drop' % (IA, F)),
                 show(IA),
                 tc('filter replace %s prio 1 handle 1 %s dst_ip 10.0.0.1 '
                    'action pass' % (IA, F)),
                 show(IA), flush(IA), noclsact(A)]),
        one(6, 'indev', 'an indev filter', [
            F + ' indev %s dst_ip 10.0.0.1 action drop' % B]),
        one(7, 'enc-key-zero', 'tunnel keys of value zero', [
            F + ' enc_key_id 0 action drop',
            F + ' ip_proto udp enc_dst_port 0 action drop']),
        one(8, 'pppoe', 'PPPoE filters', [
            'protocol ppp_ses flower pppoe_sid 10 ppp_proto ip action drop',
            'protocol ppp_ses flower pppoe_sid 11 action drop',
            'protocol 802.1q flower vlan_id 5 vlan_ethtype ppp_ses '
            'pppoe_sid 12 action drop']),
        one(9, 'first-frag', 'L4 keys with ip_flags firstfrag', [
            F + ' ip_proto icmp ip_flags firstfrag icmp_type 8 action drop',
            F + ' ip_proto tcp ip_flags firstfrag tcp_flags 0x2/0x2 action '
            'drop',
            'protocol ipv6 flower ip_proto tcp ip_flags firstfrag '
            'tcp_flags 0x2/0x2 action drop']),
        one(10, 'zero-mask-dump', 'an all-zero address mask beside other '
            'keys (dumped)', [
                F + ' ip_proto udp dst_ip 0.0.0.0/0 action drop',
                'protocol ipv6 flower src_ip 2001:db8::1/0 action drop']),
        item('ss-11-masks-of-a-prio', 'patch 11: filters of three masks '
             'in one prio (each rule with its own keys)', [
                 clsact(A),
                 fadd(IA, 'prio 1 handle 1 %s dst_ip 10.0.0.1 action drop'
                      % F),
                 fadd(IA, 'prio 1 handle 2 %s ip_proto tcp dst_port 80 '
                      'action drop' % F),
                 fadd(IA, 'prio 1 handle 3 %s src_mac 02:00:00:00:00:01 '
                      'src_ip 10.0.0.0/8 action drop' % F),
                 show(IA),
                 tc('filter del %s prio 1 handle 2 flower' % IA),
                 fadd(IA, 'prio 1 handle 4 %s ip_proto udp src_port 53 '
                      'action drop' % F),
                 show(IA), flush(IA), noclsact(A)]),
        one(12, 'geneve-opts', 'Geneve options: one, two, one under a '
            'partial mask', [
                F + ' geneve_opts 0102:80:00880022 action drop',
                F + ' geneve_opts 0102:80:00880022,0103:81:11223344 '
                'action drop',
                F + ' geneve_opts 0102:80:00880022/ffff:ff:0000ffff '
                'enc_key_id 42 action drop']),
        one(13, 'stack-keys', 'an address filter and a port range '
            'filter (classify\'s stack keys)', [
                F + ' dst_ip 10.0.0.1 action drop',
                F + ' ip_proto udp dst_port 1000-2000 action drop']),
        one(14, 'masked-hash', 'filters of IPv4 and IPv6 addresses and '
            'MACs (the tables\' hash)', [
                F + ' src_ip 10.0.0.0/8 dst_ip 10.1.2.3 action drop',
                'protocol ipv6 flower dst_ip 2001:db8::1 action drop',
                F + ' dst_mac 02:00:00:00:00:02 action drop']),
    ]


# Stock 6.1's cls_api leaks the callback of an indirectly bound device
# whose bind to a shared block fails (tcf_block_offload_bind() returns
# EOPNOTSUPP for such a device once the block has offloaded rules, after
# the driver took the block and was given the playback, and nothing
# unbinds it): the driver keeps that binding until it is unloaded, and a
# later block at the same address could meet it.  Those scenarios run
# last (offload/README.md: rmmod then uses freed memory; the guest never
# unloads the driver).
LAST = ('s-block-playback', 's-block-playback-matchall', 's-block-egress')


def items(binding='direct', stock_series=False):
    """The scenarios on one binding (offload/common.py); with
    stock_series, the stock series' items too (stock_series_items())."""
    A, B = BINDINGS[binding]
    out = (stats_items(A, B) + block_items(A, B) + template_items(A, B) +
           refuse_items(A, B) + replace_items(A, B) + delete_items(A, B) +
           hook_items(A, B))
    if stock_series:
        out += stock_series_items(A, B)
    if binding == 'direct':
        out += hw_tc_off_items(A, B)
    out = [it for it in out if it['id'] not in LAST] + \
        [it for it in out if it['id'] in LAST]
    for it in out:
        it['binding'] = binding
        if binding == 'indirect':
            it['id'] += INDIRECT_SUFFIX
    return out
