# SPDX-License-Identifier: GPL-2.0
"""upstream_fixes_data.py - what was found by hand about the upstream
fixes to net/sched/cls_flower.c since v6.1; tdc/upstream_fixes.py writes
docs/upstream-fixes.md from it and the TAPs of a `make compare` run.

Nothing here is a result: whether a case passes is read from the TAPs,
never written here.  What is written here:

FIXES, one dict per upstream commit to cls_flower.c after v6.1 whose
message has a Fixes: tag (or reverts or follows one), in the page's
order:
  commit, date (YYYY-MM), title   the upstream commit
  fixes        its Fixes: tag (or what stands for one)
  could_exist  whether the bug it fixes could exist in ours
               (kernel/net/sched/cls_flower.c), True or False
  ours         why: what ours does there, checked against the source
  stock_has_fix  whether Debian's stock 6.1.192 has the fix: True,
               False, or None when the bug is not in 6.1 at all
  in_stock     the same, said with where it came from
  cases        [case id, what it tries]: the cases that try the bug on
               both kernels (regressions.json names the commit in each
               case's name; a case of another file may serve too)
  case_note    said before the cases (optional)
  no_case      for a fix without cases: what to say (optional)

MESSAGES: for a case refused on both kernels, what each says: `ours` a
literal of kernel/net/sched/cls_flower.c, `stock_source` one of the
stock file (build/src/pristine/net/sched/cls_flower.c) that the stock
side comes from, `stock` what the page says of it.  The generator checks
both literals against the sources.

STOCK_BUG: the stock bug the cases found, by fix.  HOW_MADE: how the
list was put together.
"""

FIXES = [
    {
        'commit': '4d56304e5827', 'date': '2023-06',
        'title': 'net/sched: flower: fix possible OOB write in '
                 'fl_set_geneve_opt()',
        'fixes': '0a6e77784f49',
        'could_exist': True,
        'ours': 'ours parses Geneve options into the 255-byte `enc_opts` '
                'itself (`fl_set_geneve_opt()`), and checks that the whole '
                'option fits before it writes any of it',
        'stock_has_fix': True,
        'in_stock': 'yes (6.1.37, CVE-2023-35788)',
        'cases': [['1837', '252 bytes of options accepted, a third option '
                           'past 255 refused, nothing added']],
    },
    {
        'commit': 'b27055a08ad4', 'date': '2025-04',
        'title': 'net: fix geneve_opt length integer overflow',
        'fixes': '0a6e77784f49',
        'could_exist': True,
        'ours': '128 data bytes are 32 words, 0 in the option\'s 5-bit '
                'length.  Ours refuses data outside 4..124 bytes itself '
                '(`FL_GENEVE_DATA_MAX`; its policy still says 128)',
        'stock_has_fix': True,
        'in_stock': 'yes (6.1.135: policy `.len = 127`)',
        'cases': [['6742', '124 bytes accepted, 128 refused, nothing '
                           'added']],
    },
    {
        'commit': 'fee10655709c', 'date': '2026-08',
        'title': 'net/sched: cls_flower: validate mask pointer after '
                 'nla_next()',
        'fixes': '(CVE-2026-99112)',
        'could_exist': True,
        'ours': 'ours walks the mask\'s options itself: '
                '`fl_set_enc_opts()` refuses any bytes left after the last '
                'Geneve option, and a vxlan, erspan or gtp mask is read '
                'as its first option only, after `nla_ok()` '
                '(`fl_set_key_tun_opt()`)',
        'stock_has_fix': True,
        'in_stock': 'yes (6.1.192-1)',
        'cases': [['8c3a', 'two key options, a mask of one option and 2 '
                           'stray bytes ($FLNL): EINVAL on both, nothing '
                           'added']],
    },
    {
        'commit': 'ac177a330077', 'date': '2023-07',
        'title': 'net: sched: cls_flower: Undo tcf_bind_filter in case of '
                 'an error',
        'fixes': '77b9900ef53a',
        'could_exist': True,
        'ours': 'ours binds `classid` to the class too.  It binds last in '
                '`fl_filter_create()`, once key and actions have parsed; a '
                'refusal after that (a template misfit, a duplicate key, '
                'a driver refusing a skip_sw filter) discards the filter '
                'through `fl_filter_discard()`, which unbinds',
        'stock_has_fix': False,
        'in_stock': '**no**: `fl_set_parms()` binds, then a key error, a '
                    'template misfit, a mask or insert failure goes to '
                    '`errout` without `tcf_unbind_filter()`.  Debian took '
                    'the series\' matchall, u32 and bpf patches in 6.1.52, '
                    'not flower\'s',
        'cases': [['92b9', 'key error: the refused filter\'s htb class '
                           'must then delete'],
                  ['ead4', 'template misfit: the same'],
                  ['491e', 'duplicate key: the same'],
                  ['676d', 'binding stays balanced over replace and '
                           'delete']],
    },
    {
        'commit': 'fd741f0d9f70', 'date': '2023-05',
        'title': 'net/sched: flower: fix error handler on replace',
        'fixes': '08a0063df3ae',
        'could_exist': True,
        'ours': 'a failed replace must not take the old filter\'s handle '
                'out of the IDR: ours\' `fl_handle_assign()` gives the new '
                'filter the old one\'s handle, and `fl_insert()`\'s error '
                'path removes a handle only for a new filter',
        'stock_has_fix': None,
        'in_stock': 'n/a: 08a0063df3ae (2023, v6.4) is not in 6.1, whose '
                    '`fl_change()` allocates the handle last',
        'cases': [['0efc', 'replace refused for its key: the old filter '
                           'still counts 2 frames, dumps, deletes'],
                  ['6f9f', 'change refused by the chain template: old '
                           'filter kept, deletes']],
    },
    {
        'commit': '32eff6bacec2', 'date': '2023-04',
        'title': 'net/sched: flower: Fix wrong handle assignment during '
                 'filter change',
        'fixes': '08a0063df3ae',
        'could_exist': True,
        'ours': 'the same bug as fd741f0d9f70',
        'stock_has_fix': None,
        'in_stock': 'n/a',
        'case_note': 'reverted by 5110f3ff6d3c and replaced by '
                     'fd741f0d9f70, whose cases these are',
        'cases': [['0efc', ''], ['6f9f', '']],
    },
    {
        'commit': 'dd4f6bbfa646', 'date': '2023-05',
        'title': 'net/sched: flower: fix filter idr initialization',
        'fixes': '08a0063df3ae',
        'could_exist': True,
        'ours': 'ours runs unlocked (`TCF_PROTO_OPS_DOIT_UNLOCKED`, series '
                'step 12): a handle reserved before the filter is complete '
                'must not be found by get, delete or a dump.  '
                '`fl_handle_assign()` reserves it with no filter behind '
                'it, and `fl_insert()` puts the filter there '
                '(`idr_replace()`) once it is in its table',
        'stock_has_fix': None,
        'in_stock': 'n/a (not in 6.1)',
        'case_note': 'the next row\'s',
        'cases': [['9544', '']],
    },
    {
        'commit': '1fde0ca3a0de', 'date': '2024-02',
        'title': 'net/sched: flower: Add lock protection when remove filter '
                 'handle',
        'fixes': '08a0063df3ae',
        'could_exist': True,
        'ours': 'ours runs unlocked: every IDR change needs the instance\'s '
                'lock.  Ours changes the IDR under `head->lock` only, '
                '`fl_insert()`\'s error path and `fl_delete()` included',
        'stock_has_fix': None,
        'in_stock': 'n/a (not in 6.1: its IDR changes are under '
                    '`tp->lock`)',
        'cases': [['9544', 'four `tc -force -b` at once on one prio: adds '
                           'failing as duplicate keys on handles 51-70 '
                           '(600), deletes and gets of those handles '
                           '(1200), replaces of 1-50 with their own keys '
                           '(500), 40 dumps; then exactly filters 1-50 '
                           'exist and all delete']],
    },
    {
        'commit': 'd3f87278bcb8', 'date': '2023-07',
        'title': 'net/sched: flower: Ensure both minimum and maximum ports '
                 'are specified',
        'fixes': '5c72299fba9d',
        'could_exist': True,
        'ours': 'ours has port ranges since series step 16, and the fix\'s '
                'checks and messages with them (`fl_check_port_range()`)',
        'stock_has_fix': True,
        'in_stock': 'yes (6.1.52)',
        'cases': [['75bb', '`TCA_FLOWER_KEY_PORT_DST_MIN` alone ($FLNL) is '
                           'refused with EINVAL and "Both min and max '
                           'destination ports must be specified" on both, '
                           'and adds nothing']],
    },
    {
        'commit': '292207809486', 'date': '2024-12',
        'title': 'net: sched: fix erspan_opt settings in cls_flower',
        'fixes': '79b1011cb33d',
        'could_exist': True,
        'ours': 'ours has erspan_opts since series step 18.  Its '
                '`fl_set_erspan_opt()` writes the version and the index '
                '(version 1) or dir and hwid (version 2) only, into a key '
                'and a mask that start zeroed, so the option\'s other '
                'bytes count neither in the key nor in the mask (the '
                'unfixed code left a version 2 option\'s other bytes, '
                'timestamp and sgt among them, all ones in both, so that '
                'no version 2 tunnel matched; version 1 cleared them when '
                'an index was given)',
        'stock_has_fix': True,
        'in_stock': 'yes (6.1.123)',
        'cases': [['4f7a', 'erspan_opts 2:0:1:7 in chain 1 counts the 2 '
                           'frames that a tunnel_key action gave erspan '
                           'version 2 dir 1 hwid 7, not the one given hwid '
                           '6']],
    },
    {
        'commit': '32f2a0afa95f', 'date': '2024-01',
        'title': 'net/sched: flower: Fix chain template offload',
        'fixes': 'bbf73830cd48',
        'could_exist': True,
        'ours': 'ours offloads chain templates since series step 15 '
                '(`fl_tmplt_create()`: TMPLT_CREATE, `fl_tmplt_destroy()`: '
                'TMPLT_DESTROY) and has the fix\'s `fl_tmplt_reoffload()`, '
                'which the tree\'s cls_api (the fix\'s other half) calls '
                'to play a template to a driver that binds or unbinds the '
                'block (cls_api refuses templates of a classifier without '
                'it).  Were it wrong, a driver whose qdisc is deleted '
                'would never get the template\'s TMPLT_DESTROY (the leak '
                'the fix is for)',
        'stock_has_fix': True,
        'in_stock': 'yes (6.1.192-1, CVE-2024-26669)',
        'cases': [['e1c7', 'deleting the qdisc of a fltest device with a '
                           'template: unbind, the playback\'s TMPLT_DESTROY '
                           'of the template\'s cookie, release'],
                  ['4466', '(offload.json) a fltest device joining a '
                           'shared block with a template gets its '
                           'TMPLT_CREATE in the playback']],
    },
    {
        'commit': 'a12c76a03386', 'date': '2025-01',
        'title': 'net: sched: refine software bypass handling in tc_run',
        'fixes': '047f340b36fc',
        'could_exist': True,
        'ours': 'the tree\'s cls_api (Debian took the skip_sw series with '
                'this fix) skips software classify on a block none of '
                'whose instances is marked as needing it, and a '
                'classifier marks its instance with '
                '`tcf_proto_update_usesw()` for each filter.  Ours does so '
                'in `fl_hw_flags_update()`, once drivers have answered: a '
                'filter without skip_sw, or not in hardware, marks it',
        'stock_has_fix': True,
        'in_stock': 'yes (6.1.192-1)',
        'cases': [['b1d4', '(offload.json) a prio with a skip_sw filter in '
                           'hardware and one without skip_sw: the second '
                           'counts the 2 frames in software']],
    },
    {
        'commit': '1e01abec8565', 'date': '2026-04',
        'title': 'net/sched: cls_flower: revert unintended changes',
        'fixes': '4ca07b9239bd',
        'could_exist': False,
        'ours': 'the revert puts back the order of 6.1\'s `__fl_delete()` '
                '(the mask put before the driver\'s DESTROY) that an mctp '
                'commit had changed by mistake; no bug was reported in '
                'either order.  Ours has its own delete path '
                '(`fl_delete()`)',
        'stock_has_fix': True,
        'in_stock': 'both the change and its revert (6.1.176): no net '
                    'change',
        'cases': [],
        'no_case': 'none',
    },
    {
        'commit': '536b97acddd7', 'date': '2024-07',
        'title': 'net/sched: cls_flower: propagate tca[TCA_OPTIONS] to '
                 'NL_REQ_ATTR_CHECK',
        'fixes': 'a follow-up inside its own net-next series (flower '
                 'ENC_FLAGS rework)',
        'could_exist': False,
        'ours': 'ours does not use `NL_REQ_ATTR_CHECK` (nor ENC_FLAGS, '
                'which came after 6.1)',
        'stock_has_fix': None,
        'in_stock': 'n/a (not in 6.1)',
        'cases': [],
        'no_case': 'none',
    },
]

MESSAGES = [
    {'case': '1837', 'ours': 'Geneve options longer than 255 bytes',
     'stock': 'ERANGE from `key->enc_opts.len > FLOW_DIS_TUN_OPTS_MAX - 4` '
              '(4d56304e5827)',
     'stock_source': 'key->enc_opts.len > FLOW_DIS_TUN_OPTS_MAX - 4'},
    {'case': '6742',
     'ours': 'Geneve option data must be 4 to 124 bytes, a multiple of 4',
     'stock': 'Attribute failed policy validation (`.len = 127`, '
              'b27055a08ad4)',
     'stock_source': '.len = 127'},
    {'case': '8c3a', 'ours': 'Malformed or empty tunnel options',
     'stock': 'A mask attribute is invalid (fee10655709c)',
     'stock_source': 'A mask attribute is invalid'},
    {'case': '0efc', 'ours': 'ct_state +new excludes +est and +rpl',
     'stock': 'new and est are mutually exclusive',
     'stock_source': 'new and est are mutually exclusive'},
    {'case': '6f9f', 'ours': 'Mask does not fit the template',
     'stock': 'cls_flower: Mask does not fit the template',
     'stock_source': 'Mask does not fit the template'},
]

STOCK_BUG = {
    'ac177a330077': (
        'A flower filter refused after its `classid` was bound leaves the '
        'class bound on stock 6.1.192.  The refusal can be a key error '
        '(`ct_state +trk+new+est`), a chain-template misfit, or a duplicate '
        'key.  Deleting the class then fails with EBUSY ("Device or '
        'resource busy") until the qdisc is deleted; the cases\' category '
        '`bind-leak` names the cause (tdc/compare.py).'),
}

HOW_MADE = '''\
The torvalds/linux history could not be fetched: the snapshot is 8.6 GB,
over the 500 MB limit (tried again 2026-12-07).  So the list was put
together from three sources:

* the netdev and stable mailing-list archives in the search index. Each
  commit id above was found there: in the patch itself, the patchwork
  bot's reply, or a pull request's shortlog;
* the `changelog.Debian.gz` of linux-source-6.1 6.1.192-3, for what
  Debian backported;
* a diff of `cls_flower.c` between v6.1-rc7 (the tianrenz2/linux-6.1.0
  snapshot), 6.1.192 (the pristine tree) and 6.18.32 (the
  codesnas/linux-6.18.y snapshot). Every fix-like hunk in the diff is one
  of the commits above. The rest are features: CFM, SPI, l2_miss, PFCP,
  ENC_FLAGS and `NLA_POLICY_MASK` flags.

The skip_sw fast path was first taken for a feature as well; its one
hunk in `cls_flower.c` (`tcf_proto_update_usesw()` in `fl_change()`) is
a12c76a03386, whose message has `Fixes: 047f340b36fc` (the netdev patch
of 2025-01-06).  The series' other fix, 2ecd487b670f ("net: sched:
cls_api: fix slab-use-after-free in fl_dump_key"), changes `cls_api.c`
only, so it is not listed.

A fix that touched `cls_flower.c` and is in none of these three sources
would be missing from this list.
'''
