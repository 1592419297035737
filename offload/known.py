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
"""

KNOWN = [
    dict(name='ip-flags-unknown-bits',
         items=r'ip_flags [0-9a-f]{8}/',
         fields=('*',),
         reason='ours refuses unknown ip_flags bits, which stock accepts '
                '(README, "by design"; issue 31 item 3 brings stock\'s '
                'leniency): nothing reaches the driver'),
    dict(name='prerequisite-refusals',
         items=r'',
         ours_extack=r'^Key requires ',
         fields=('*',),
         reason='ours refuses a key whose protocol or ip_proto '
                'prerequisite the filter lacks ("Key requires ..."); stock '
                'accepts the filter and ignores the key (README, "by '
                'design"; issue 31 item 3 brings stock\'s leniency): '
                'nothing reaches the driver on ours'),
    dict(name='stock-destroys-what-it-never-offered',
         items=r'\bskip_sw\b.*\baction (continue|pipe|reclassify)\b',
         fields=('log',),
         reason='a skip_sw filter whose actions act_gact will not offload '
                '(continue, pipe, reclassify) is refused before any driver '
                'is asked, on both; stock then sends drivers a '
                'FLOW_CLS_DESTROY for the rule it never offered '
                '(fl_change()\'s errout_hw path), which they answer with '
                'ENOENT.  Ours sends nothing'),
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
    dict(name='pppoe-other-protocol',
         items=r'ppp_proto (?!(0021|0057|ip|ipv6)\b)',
         fields=('log',),
         reason='a PPPoE filter on another PPP protocol: stock keeps '
                'n_proto 0x8864 in the rule, ours leaves n_proto out and '
                'matches the PPPoE key\'s type, which both rules carry '
                '(README, PPPoE row: for such a frame the dissector reports '
                'n_proto 0, not the PPPoE ethertype)'),
]
