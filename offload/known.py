# SPDX-License-Identifier: GPL-2.0
"""Declared, argued differences between ours and stock in what drivers
are given (offload/compare.py).

Each entry explains the differences of some items; an item whose every
difference is explained by an entry counts as passed ("known" in the
report), with the entry's reason printed in docs/offload.md.  An entry:

  dict(name='short-name',
       items=r'regex',          # re.search on the item's id or its `what`
       fields=('rc', ...),      # which kinds of difference it explains:
                                # 'rc' (exit status), 'stderr' (tc's other
                                # stderr lines: the errno text), 'extack',
                                # 'log' (the driver's log), 'show' (tc -s
                                # -j filter show: flags, in_hw_count,
                                # action stats), 'steps' (a different
                                # number of steps: a flush that deleted
                                # another number of filters), or '*'
       reason='why this is not a bug of ours (a stock bug argued in '
              'docs/, or a difference by design in README.md)',
       ours_extack=r'regex')    # optional: only items where a step of
                                # ours ended with an extack it matches

Every difference is a bug of ours unless an entry here says why not.

(Since series step 22 ours accepts what stock accepts and ignores, masks
or drops, a key without its prerequisite and unknown ip_flags bits among
them, and gives drivers the same rule: only its extack warning differs,
which the report lists as a message ours adds, not as a failure.  So no
entry declares those any more.)
"""

KNOWN = [
    dict(name='stock-destroys-what-it-never-offered',
         items=r'\bskip_sw\b.*\baction (continue|pipe|reclassify)\b',
         fields=('log',),
         reason='a skip_sw filter whose actions act_gact will not offload '
                '(continue, pipe, reclassify) is refused before any driver '
                'is asked, on both; stock then sends drivers a '
                'FLOW_CLS_DESTROY for the rule it never offered '
                '(fl_change()\'s errout_hw path), which they answer with '
                'ENOENT.  Ours sends nothing'),
    dict(name='tunnel-addresses-of-two-families',
         # tc's words (the corpus) or difftest's (enc_ipv4_dst ...)
         items=(r'enc_(?:dst|src)_ip \d+\.\d+\.\d+\.\d+\b.*'
                r'enc_(?:dst|src)_ip [0-9a-f]*:|'
                r'enc_(?:dst|src)_ip [0-9a-f]*:.*'
                r'enc_(?:dst|src)_ip \d+\.\d+\.\d+\.\d+\b|'
                r'enc_ipv4_(?:src|dst) .*enc_ipv6_(?:src|dst) |'
                r'enc_ipv6_(?:src|dst) .*enc_ipv4_(?:src|dst) '),
         fields=('log',),
         reason='enc IPv4 and enc IPv6 addresses in one filter: both take '
                'it as an IPv6 tunnel filter; stock writes the IPv4 keys '
                'into the bytes they share with the IPv6 ones (a union) and '
                'gives drivers an IPv4 address key of them too, ours ignores '
                'the IPv4 keys (a stock bug, docs/leniency.md; '
                'kernel/stock-series patch 4): drivers see the IPv6 keys'),
    dict(name='replace-changes-mask',
         items=r'^s-replace-other-key',
         fields=('*',),
         reason='a replace that changes the mask: stock refuses it '
                '(EINVAL), ours replaces the filter (README, "by design"), '
                'and tells drivers so (replace the new, destroy the old)'),
    dict(name='ct-state-messages',
         items=r'ct_state',
         fields=('extack',),
         reason='both refuse a ct_state no packet has, with EINVAL; the '
                'messages are worded differently (flower/needs.py)'),
    dict(name='template-message',
         items=r'^s-template',
         fields=('extack',),
         reason='"Mask does not fit the template": stock prefixes its '
                'module name (NL_SET_ERR_MSG_MOD), ours does not'),
    dict(name='geneve-option-lengths',
         items=r'geneve_opts',
         fields=('log',),
         reason='Geneve options: ours matches the option lengths '
                'exactly, so the length bits of the enc_opts mask are all '
                'set; stock masks a length with itself (README, "by '
                'design").  Drivers see the lengths as exact'),
    dict(name='geneve-option-too-long-message',
         items=r'geneve_opts',
         fields=('extack',),
         ours_extack=r'Geneve option data must be 4 to 124 bytes',
         reason='an option whose data is over 124 bytes: both refuse it '
                'with EINVAL, stock with its policy\'s "Attribute failed '
                'policy validation", ours naming the bound (both before '
                'any driver is asked)'),
    dict(name='pppoe-other-protocol',
         items=r'ppp_proto (?!(0021|0057|ip|ipv6)\b)',
         fields=('log',),
         reason='a PPPoE filter on another PPP protocol: stock keeps '
                'n_proto 0x8864 in the rule, ours leaves n_proto out and '
                'matches the PPPoE key\'s type, which both rules carry: '
                'for such a frame the dissector reports both as 0x8864, so '
                'the two rules match the same frames'),
]
