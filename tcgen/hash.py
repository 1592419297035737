# SPDX-License-Identifier: GPL-2.0
"""tcgen.hash - the hash key (TCA_FLOWER_KEY_HASH / _MASK): the skb's
flow hash as skb_get_hash_raw() reads it (no hash is computed for it:
0 unless something computed one before), under a mask.  tc 6.1 has no
word for it, so $FLNL sends it; tc dumps such a filter without it.
"""

from tcgen.cases import flnl
from tcgen.common import ETH_TYPE_NUM, SHOW_STATS
from tcgen.packets import ingress_bytes, ip4, layer

K = 'keys-hash'
P = 'packets-hash'


def _batch(*requests):
    """One $FLNL process for requests that must all succeed."""
    return '$FLNL batch ' + ' '.join(
        "--expect 0 '' '%s'" % r[len('$FLNL '):] for r in requests)


def _entry(proto, prio, handle, options):
    return [{'handle': 0, 'prio': prio},
            {'handle': handle, 'prio': prio, 'kind': 'flower',
             'protocol': ETH_TYPE_NUM.get(proto, 3), 'options': options}]


def hash_cases(c):
    full = 0xffffffff
    filters = [
        # (proto, attrs, raw, the options the kernel dumps)
        ('ip', ['key_hash=0x12345678', 'key_hash_mask=0xffffffff'], [],
         {'TCA_FLOWER_KEY_HASH': 0x12345678,
          'TCA_FLOWER_KEY_HASH_MASK': full}),
        # no mask: all ones
        ('ipv6', ['key_hash=5'], [],
         {'TCA_FLOWER_KEY_HASH': 5, 'TCA_FLOWER_KEY_HASH_MASK': full}),
        # the value is dumped as given, bits outside the mask too
        ('ip', ['key_hash=0x12345678', 'key_hash_mask=0xffff0000'], [],
         {'TCA_FLOWER_KEY_HASH': 0x12345678,
          'TCA_FLOWER_KEY_HASH_MASK': 0xffff0000}),
        # beside other keys, on any protocol
        ('ip', ['ipv4_dst=10.1.0.1', 'key_hash=0', 'key_hash_mask=0xff'],
         [], {'TCA_FLOWER_KEY_IPV4_DST': '10.1.0.1',
              'TCA_FLOWER_KEY_HASH': 0, 'TCA_FLOWER_KEY_HASH_MASK': 0xff}),
        ('all', ['key_hash=0xffffffff', 'key_hash_mask=0x80000000'], [],
         {'TCA_FLOWER_KEY_HASH': full,
          'TCA_FLOWER_KEY_HASH_MASK': 0x80000000}),
    ]
    requests, expected = [], []
    for prio, (proto, attrs, raw, opts) in enumerate(filters, 1):
        requests.append(flnl('add', proto, attrs, raw=raw, prio=prio,
                             handle=1))
        eth = ETH_TYPE_NUM.get(proto)
        if eth is not None:
            opts = dict(opts, TCA_FLOWER_KEY_ETH_TYPE=eth)
        expected += _entry(proto, prio, 1, opts)
    c.case(K, 'Netlink: %d hash keys (with and without a mask, beside an '
           'address, on protocol all) are dumped as given, the mask all '
           'ones when none was sent' % len(filters), _batch(*requests),
           verify='$FLNL show --dev $DEV1 --protocol 0',
           match_json=expected)
    c.case(K, 'Netlink: a replace changes the hash key under the same '
           'mask; the handle stays',
           _batch(flnl('add', 'ip', ['key_hash=1',
                                     'key_hash_mask=0xff00'], handle=7),
                  flnl('replace', 'ip', ['key_hash=0x100',
                                         'key_hash_mask=0xff00'],
                       handle=7)),
           verify='$FLNL show --dev $DEV1 --protocol 0',
           match_json=_entry('ip', 1, 7, {
               'TCA_FLOWER_KEY_ETH_TYPE': ETH_TYPE_NUM['ip'],
               'TCA_FLOWER_KEY_HASH': 0x100,
               'TCA_FLOWER_KEY_HASH_MASK': 0xff00}))

    # frames scapy sends on $DEV0 come to $DEV1's ingress with no flow
    # hash: AF_PACKET records a queue instead of hashing, veth and the
    # receive path compute none (no RPS), on both kernels.  dst_ip keeps
    # the guest's own IPv6 and ARP traffic out of the counts
    frames = [ip4(), ip4(l4=layer('TCP', sport=1000, dport=2000))]
    c.case(P, 'Packets: injected frames have no flow hash: dst_ip 10.1.0.1 '
           'hash 0 (mask all ones, prio 2) counts them all, hash 1 '
           '(prio 1) none',
           _batch(flnl('add', 'ip', ['ipv4_dst=10.1.0.1', 'key_hash=1'],
                       handle=1) + ' --action drop',
                  flnl('add', 'ip', ['ipv4_dst=10.1.0.1', 'key_hash=0'],
                       prio=2, handle=1) + ' --action drop'),
           scapy=[(f, 1) for f in frames], verify=SHOW_STATS,
           match_json=[{'kind': 'flower', 'pref': 1},
                       {'pref': 1, 'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 0}}]}},
                       {'kind': 'flower', 'pref': 2},
                       {'pref': 2, 'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 2, 'bytes': sum(
                               ingress_bytes(f) for f in frames)}}]}}])
