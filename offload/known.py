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
       ours_extack=r'regex',    # optional: only items where a step of
                                # ours (side A of the pair) ended with an
                                # extack it matches; a_extack is the same
       patch=N,                 # the stock-next table: the patch of
                                # kernel/stock-series behind it
       rewrite=function)        # optional, below (the stock-next table)

A table is per pair of variants compared (PAIRS, at the end): KNOWN is
ours against stock, KNOWN_STOCK_NEXT stock-next against stock.

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


# --- stock-next against stock ------------------------------------------------
# Stock-next is the pristine cls_flower.c with kernel/stock-series applied
# (docs/stock-series.md).  What drivers get from it must be what they get
# from stock, but for what a patch of the series changes on purpose.
# Each entry names that patch (`patch`: its number in the series); the
# pair is strict (PAIRS): a message stock-next adds where stock has none
# fails too unless an entry declares it (field 'extack').
#
# An entry may, instead of (or beside) matching items by regex, say
# exactly what the patch changes in a driver's rule: `rewrite`, a
# function of one of stock-next's log lines that undoes the change
# (returns the line unchanged when the line is not one the patch
# changed).  Its entry explains an item's 'log' differences only when
# stock-next's log, every line rewritten by every such entry, is stock's:
# the difference is then that change and nothing else, in any item.

def _zero(hexbytes):
    return not hexbytes.strip('0')


def _rule_line(line):
    return line.get('type') == 'flower' and \
        line.get('cmd') in ('replace', 'tmplt_create') and \
        isinstance(line.get('keys'), dict)


def _without(line, names):
    out = dict(line)
    out['used_keys'] = [k for k in line.get('used_keys', [])
                        if k not in names]
    out['keys'] = {k: v for k, v in line['keys'].items() if k not in names}
    return out


# flow_dissector_key_control (and enc_control): u16 thoff, u16 addr_type,
# u32 flags, as the driver logs it: the mask of addr_type alone
ADDR_TYPE_ONLY = '0000ffff00000000'


def undo_zero_ip_mask(line):
    """Patch 1: a rule whose addr_type is masked but no address bit is
    gets the two address keys (ipv4_addrs, ipv6_addrs), both with all-zero
    masks; stock gives neither (it adds an address key only for a
    non-zero mask)."""
    if not _rule_line(line):
        return line
    keys = line['keys']
    names = ('ipv4_addrs', 'ipv6_addrs')
    if not all(n in keys and _zero(keys[n].get('mask', '')) for n in names):
        return line
    ctrl = keys.get('control', {}).get('mask', '')
    if ctrl[4:8] != 'ffff':
        return line
    return _without(line, names)


def undo_zero_enc_mask(line):
    """Patch 2: a rule whose tunnel addr_type is masked but no tunnel
    address bit is gets the enc_control key (its mask: addr_type alone);
    stock gives enc_control only beside a tunnel address key."""
    if not _rule_line(line):
        return line
    keys = line['keys']
    if 'enc_control' not in keys or 'enc_ipv4_addrs' in keys or \
            'enc_ipv6_addrs' in keys or \
            keys['enc_control'].get('mask') != ADDR_TYPE_ONLY:
        return line
    return _without(line, ('enc_control',))


KNOWN_STOCK_NEXT = [
    dict(name='zero-ip-address-mask', patch=1, items=r'', fields=(),
         rewrite=undo_zero_ip_mask,
         reason='an all-zero IPv4/IPv6 address mask (`dst_ip 0.0.0.0/0`): '
                'stock masks addr_type but dissects no address, so the '
                'filter matches nothing in software; the patch dissects '
                'both families\' addresses, and drivers, given the '
                'dissector, now also get the keys ipv4_addrs and '
                'ipv6_addrs, each with an all-zero mask.  The rule means '
                'the same to a driver (addr_type masked in control, as on '
                'stock; a zero mask asks for nothing): its form changes, '
                'not its meaning.  Checked exactly: stock-next\'s rule less '
                'those two zero-mask keys is stock\'s'),
    dict(name='zero-tunnel-address-mask', patch=2, items=r'',
         fields=(), rewrite=undo_zero_enc_mask,
         reason='an all-zero tunnel address mask (`enc_dst_ip 0.0.0.0/0`): '
                'stock masks enc_control.addr_type but gives no '
                'ENC_CONTROL key to the dissector, so software matches '
                'nothing and drivers never see the addr_type; the patch '
                'adds ENC_CONTROL for such a mask, so drivers now get the '
                'key enc_control (addr_type masked: IPv4 or IPv6 '
                'tunnels only).  This changes what the rule means to a '
                'driver, rightly: on stock a driver that offloads the rule '
                'matches every tunnel where software matches none; with '
                'the patch both match the tunnels of the family given.  '
                'Checked exactly: stock-next\'s rule less that key is '
                'stock\'s'),
    dict(name='tunnel-addresses-of-two-families', patch=4,
         items=(KNOWN[1]['items'] + r'|^s-ss-4-'),
         fields=('log', 'extack'),
         a_extack=r'IPv4 tunnel addresses ignored with IPv6',
         reason='enc IPv4 and enc IPv6 addresses in one filter: stock '
                'writes the IPv4 keys into the bytes they share with the '
                'IPv6 source (a union) and gives drivers an IPv4 tunnel '
                'address key and an IPv6 source nobody asked for; the '
                'patch ignores the IPv4 ones with a warning ("cls_flower: '
                'IPv4 tunnel addresses ignored with IPv6", the message '
                'stock-next adds): drivers get the IPv6 keys as given, as '
                'from ours (the ours/stock entry of the same name)'),
    dict(name='replace-takes-another-filters-key', patch=5,
         items=r'^s-ss-5-replace-takes-other-key',
         fields=('rc', 'stderr', 'log'),
         reason='a replace giving filter 1 the key filter 2 has in the same '
                'mask: stock accepts it and gives drivers a second rule of '
                'that key (REPLACE, then DESTROY of the old rule); the '
                'patch refuses it with EEXIST before any driver is asked '
                '(fl_ht_insert_unique() comes before the offload), so '
                'drivers keep the two rules they had; the next replace '
                'then replaces another rule.  Same mask, same number of '
                'filters: the dumps compared agree'),
]

# What each patch of kernel/stock-series should change in what drivers
# are given (docs/offload-stock-next.md lists it beside the run): 'yes'
# for the four above, 'no' for a change to software matching, a dump, an
# error path or locking, which drivers must not see (and an undeclared
# difference then fails).
STOCK_SERIES_DRIVERS = {
    1: ('yes', 'two zero-mask address keys in the dissector '
        '(zero-ip-address-mask)'),
    2: ('yes', 'the enc_control key for an all-zero tunnel address mask '
        '(zero-tunnel-address-mask)'),
    3: ('no', 'unbinds the classid of a refused filter (an error path '
        'after the driver was or was not asked; the classid a driver '
        'gets is unchanged)'),
    4: ('yes', 'IPv4 tunnel addresses beside IPv6 ones ignored, with a '
        'warning (tunnel-addresses-of-two-families)'),
    5: ('yes', 'a replace onto another filter\'s key refused before the '
        'offload (replace-takes-another-filters-key)'),
    6: ('no', 'the indev name looked up under RCU: same ifindex'),
    7: ('no', 'software skips a tunnel-key mask for a packet without tunnel '
        'metadata; keys, masks and the offloaded rule unchanged'),
    8: ('no', 'the dump of a PPPoE filter\'s ethertype; the rule unchanged'),
    9: ('no', 'a second software dissection of a first fragment, with a '
        'dissector of its own; the mask\'s dissector (the driver\'s) '
        'unchanged'),
    10: ('no', 'the dump of an all-zero address mask; the rule unchanged '
         '(patch 1 made it)'),
    11: ('no', 'software dissects a packet once with the union of the '
         'masks\' keys; each mask keeps its own dissector, which drivers '
         'are given (a driver given the union is what offload/canary.py\'s '
         'union canary makes)'),
    12: ('no', 'software skips a Geneve options mask for a packet whose '
         'options lengths are not the mask\'s; the mask keeps the '
         'filter\'s lengths (nfp and mlx5e read them as lengths, not as '
         'masks), so the rule drivers get is unchanged'),
    13: ('no', 'classify\'s two stack keys are no longer zeroed by the '
         'compiler (each is cleared or written where it is read); the '
         'rule unchanged'),
    14: ('no', 'the filter tables\' hash function (software lookups and '
         'inserts); the rule unchanged'),
}

# The pairs the oracle knows: (A, B) -> its declaration table and mode.
# strict: a message A adds where B has none is a difference like any
# other (for ours/stock it is counted, not failed: ours' messages are by
# design, README.md)
PAIRS = {
    ('ours', 'stock'): dict(known=KNOWN, strict=False,
                            about='ours and on the stock cls_flower'),
    ('stock-next', 'stock'): dict(
        known=KNOWN_STOCK_NEXT, strict=True,
        about='stock-next (the pristine cls_flower.c with kernel/'
              'stock-series applied, make stock-next-ext) and on the '
              'stock cls_flower'),
}
