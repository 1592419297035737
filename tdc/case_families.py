# SPDX-License-Identifier: GPL-2.0
"""tdc.case_families - the families of the patch series a tdc case needs.

kernel/series/families says what each step of kernel/series/series adds
(key families such as vlan or tunnel, and features: masks, templates).
A case names the families it needs in its field FIELD (seriesFamilies:
tcgen writes it, a hand-written case gives it; tdc/corpus.py requires
it of a flower case), which families() reads.  They are the families its
own commands use, used_families(), read from their shell words
(tdc/shell_words.py), which tdc/tests/test_series_cases.py checks for
every case, so that a field cannot go stale: the flower words of its
tc requests (vlan_id -> vlan, enc_key_id -> tunnel...), the attributes
of its $FLNL requests (by uAPI name), its protocols (802.1q -> vlan,
ppp_ses -> pppoe), "masks" when two filters of one prio have different
masks (an add or a replace: step 01 has one mask per prio and refuses
the second), and "templates" for a flower chain template.  A case runs
at a step when all its families exist there (tdc/series_cases.py).

Some families come from the case's category, not its commands:
FRAG_PARSE (a first fragment's ICMP, TCP flags or L2TPv3 keys: the
steps before 20 read no fragment's transport header), PPPOE_DUMP,
GENEVE_EXACT, HW_GENEVE_LENGTHS and TUNNEL_METADATA (below), and
LENIENCY,
the requests the stock flower accepts (a key without its prerequisite, a
mask without its key, an unknown attribute...: docs/leniency.md), which
the series refuses until the step that brings it; the generator, which
writes such requests knowingly, tags their cases (tcgen.common LENIENCY;
a hand-written case says it itself).  Telling them from their commands
would take fl_need_met() and the policy again.

A key's family is its row's in flower/keys.py (the family column): its
attribute, its mask, its tc word and the word tc -j prints are that
family's, so adding a key needs nothing here.  OTHER_ATTRS and
OTHER_WORDS below hold only what is not a key row;
tdc/tests/test_series_cases.py checks that every uAPI attribute has a
family and every family is one kernel/series/families declares.
"""

import collections
import ipaddress
import json
import re
import shlex

from flower import keys as flower_keys
from flower import uapi
from tdc import corpus, shell_words

# the case's field that names the families it needs
FIELD = corpus.FAMILIES_FIELD

# (family, uAPI attributes (TCA_FLOWER_ without the prefix)) that are no
# key row of flower/keys.py, and why
OTHER_ATTRS = (
    # the filter's own attributes, not keys: its class, device, actions
    # and skip_sw/skip_hw flags; its protocol (fl_set_key() reads it
    # itself; PROTOCOL_FAMILY says which protocols need a later step)
    ('core', 'CLASSID INDEV ACT FLAGS KEY_ETH_TYPE'),
    # refused (EOPNOTSUPP, named) until the offload step, which ignores it
    # in a request as stock does
    ('offload', 'IN_HW_COUNT'),
    # type 0 and the attributes beyond the uAPI: refused (EOPNOTSUPP,
    # "Unknown flower attribute type") until the leniency step, ignored
    # from it on, as by the stock flower (ALWAYS_REFUSED)
    ('core', 'UNSPEC'),
    # nested options, not one value a row describes
    ('tunnel', 'KEY_ENC_OPTS KEY_ENC_OPTS_MASK'),
    ('mpls', 'KEY_MPLS_OPTS'),
)

# (family, tc flower words (iproute2 6.1 f_flower.c)) that are no key row's
# tc word, and why
OTHER_WORDS = (
    # the filter's own options, not keys: its protocol, device, class,
    # flags, handle
    ('core', 'eth_type indev classid hw_tc skip_hw verbose handle'),
    # refused before the offload step, offered to drivers from it on
    ('offload', 'skip_sw'),
    # words of rows of three families: the ports are the TCP and UDP
    # rows' (core), the SCTP rows' (sctp) and the port ranges' (port_range,
    # "MIN-MAX"); families() makes them port_range for a range, sctp when
    # the request's ip_proto is sctp
    ('core', 'src_port dst_port'),
    # nested options (KEY_MPLS_OPTS, KEY_ENC_OPTS), not one value
    ('mpls', 'mpls lse'),
    ('tunnel', 'geneve_opts'),
    ('tunnel_opts', 'vxlan_opts erspan_opts gtp_opts'),
)


def family_maps(rows, other_attrs=OTHER_ATTRS, other_words=OTHER_WORDS):
    """(attribute -> family, tc word -> family) of flower.keys rows and
    the others.  A tc word rows of two families share must be decided in
    other_words."""
    attrs = {n: fam for fam, names in other_attrs for n in names.split()}
    words = {w: fam for fam, ws in other_words for w in ws.split()}
    shared = collections.defaultdict(set)
    for k in rows:
        attrs.update({name: k.family for name in (k.attr, k.mask) if name})
        for w in (k.tc, flower_keys.json_word(k)):
            if w is not None:           # a key tc has no word for (hash)
                shared[w].add(k.family)
    for w, fams in shared.items():
        if w in words:          # decided in other_words
            continue
        if len(fams) > 1:
            raise ValueError('flower.keys: tc word {!r} is of families {}: '
                             'decide in tdc/case_families.py OTHER_WORDS'
                             .format(w, ' '.join(sorted(fams))))
        words[w], = fams
    return attrs, words


ATTR_FAMILY, TC_WORD = family_maps(flower_keys.KEYS)
# what a case that needs the offload test driver (offload/drv) loads
OFFLOAD_DRIVER = 'flower_offload_test'
# flower words without a value (the rest take one); mpls's "lse" opens an
# entry of its words depth/label/tc/bos/ttl, all under the mpls key
VALUELESS = {'skip_sw', 'skip_hw', 'verbose', 'mpls', 'lse'}
MPLS_LSE_WORDS = {'depth', 'label', 'tc', 'bos', 'ttl'}

# protocols (tc's protocol, $FLNL --protocol, eth_type, vlan_ethtype
# values) that step 01 refuses and a later step brings
PROTOCOL_FAMILY = {'802.1q': 'vlan', '802.1ad': 'vlan', 'vlan': 'vlan',
                   '0x8100': 'vlan', '0x88a8': 'vlan',
                   'ppp_ses': 'pppoe', 'pppoes': 'pppoe', '0x8864': 'pppoe'}

# The requests of a command are read from its shell words
# (tdc/shell_words.py): a $TC command, the lines of a tc batch file a
# printf or an awk program writes (its string literals, shlex's words of
# the program), a $FLNL request and the requests of a $FLNL batch.
CREATE_OPS = ('add', 'replace', 'change', 'create')
FLNL_OPS = ('add', 'replace', 'change')
# tc's options before the object that take an argument
TC_OPTS_WITH_ARG = ('-b', '-batch', '-n', '-netns')

Request = collections.namedtuple(
    'Request', 'obj op where prio handle protocol keys attrs refused')


def attr_family(name):
    """The family of a uAPI attribute name (KEY_VLAN_ID), or None."""
    return ATTR_FAMILY.get(name)


def commands(case):
    """(command, expected to fail) of the case's commands that can create
    something: setup and cmdUnderTest (teardown removes; verifyCmd shows)."""
    out = [(e[0] if isinstance(e, list) else e, False)
           for e in case.get('setup', [])]
    return out + [(case.get('cmdUnderTest', ''),
                   str(case.get('expExitCode', '0')) != '0')]


def parse_tc(obj, op, words, refused):
    """A tc request's words (after its object and operation; a text is
    split at blanks) -> Request; keys are (word, value) pairs of its
    flower options (before the first action)."""
    if isinstance(words, str):
        words = words.split()
    where, prio, handle, protocol, i = [], None, None, None, 0
    while i < len(words) and words[i] != 'flower':
        w, val = words[i], (words[i + 1:i + 2] or [''])[0]
        if w in ('ingress', 'egress', 'root'):
            where.append(('parent', w))
            i += 1
            continue
        if w in ('dev', 'block', 'parent', 'chain'):
            where.append((w, val))
        elif w in ('prio', 'pref', 'priority', 'preference'):
            prio = val
        elif w in ('protocol', 'proto'):
            protocol = val
        elif w == 'handle':
            handle = val
        i += 2          # every other word before "flower" takes a value
    if obj != 'reset' and not any(f == 'chain' for f, _ in where):
        where.append(('chain', '0'))    # a delete without one: every chain
    keys, i = [], i + 1
    lse = False
    while i < len(words) and words[i] not in ('action', 'actions'):
        w = words[i]
        if w in VALUELESS:
            lse = lse or w == 'lse'
            keys.append((w, None))
            i += 1
            continue
        if lse and w in MPLS_LSE_WORDS:
            w = 'mpls_' + w
        keys.append((w, words[i + 1] if i + 1 < len(words) else ''))
        i += 2
    return Request(obj, op, frozenset(where), prio, handle, protocol,
                   tuple(keys),
                   (), refused)


def parse_flnl(op, words, refused):
    """A $FLNL request's options (words; a text is split at blanks) ->
    Request; attrs are (NAME, value) with uAPI names (--attr ipv4_dst=..,
    --raw key_eth_dst_mask=.., --raw 200=)."""
    if isinstance(words, str):
        words = words.split()
    opts, attrs = {}, []
    for w, val in zip(words, words[1:] + ['']):
        if w in ('--attr', '--raw'):
            name, _, value = val.partition('=')
            if name.isdigit():
                attr = uapi.BY_NUMBER.get(int(name))
                # beyond TCA_FLOWER_MAX: refused alike at every step
                name = attr.name if attr else 'UNSPEC'
            name = name.upper()
            if name not in uapi.BY_NAME and 'KEY_' + name in uapi.BY_NAME:
                name = 'KEY_' + name
            attrs.append((name, value))
        elif w.startswith('--'):
            opts[w] = val
    where = (('dev', opts.get('--dev')),
             ('parent', opts.get('--parent', 'ingress')),
             ('chain', opts.get('--chain', '0')))
    return Request('filter', op, frozenset(where),
                   opts.get('--prio', opts.get('--pref')),
                   opts.get('--handle'), opts.get('--protocol'), (),
                   tuple(attrs), refused)


def requests(case):
    """Every tc and $FLNL request of the case that can create something,
    in order, and the deletes (obj "reset": a qdisc's del, where = its
    device and parent; a filter del, of a handle or of a whole prio).
    where: the (field, value) pairs that say which prios: dev or block,
    parent, chain."""
    out = []
    for cmd, fails in commands(case):
        for words in shell_words.simple_commands(cmd):
            out += command_requests(words, fails)
    # a batch file written with the request the case expects refused
    # (printf ... > $BATCH_FILE, for tc -b) holds a refused request too
    refused = {r for r in out if r.refused}
    return [r._replace(refused=True) if r._replace(refused=True) in refused
            else r for r in out]


def tc_requests(words, refused):
    """The request of tc's words after its options (a command line's, or
    a line of a batch file): a flower filter or chain template created,
    or a delete (a qdisc's: all its prios go; a filter's: its prio, or a
    handle)."""
    obj, op = (words + ['', ''])[:2]
    if obj in ('filter', 'chain') and op in CREATE_OPS and \
            'flower' in words[2:]:
        return [parse_tc(obj, op, words[2:], refused)]
    if obj in ('qdisc', 'filter') and op in ('del', 'delete'):
        req = parse_tc('reset', 'del', words[2:], refused)._replace(keys=())
        if obj == 'qdisc':
            req = req._replace(prio=None, handle=None)
        return [req]
    return []


def batch_lines(texts):
    """The lines of a tc batch file in texts (printf's words, the string
    literals of an awk program), split at newlines and at a written \\n,
    each as its words."""
    return [line.split() for text in texts
            for part in text.split('\\n') for line in part.splitlines()]


def command_requests(words, refused):
    """The requests of one simple command (its shell words)."""
    prog, args = words[0], words[1:]
    if prog == '$TC':
        while args and args[0].startswith('-'):
            args = args[2:] if args[0] in TC_OPTS_WITH_ARG else args[1:]
        return tc_requests(args, refused)
    if prog == '$FLNL':
        if args[:1] == ['batch']:
            # --expect ERRNO MESSAGE REQUEST: refused unless ERRNO is 0
            out = []
            for i, word in enumerate(args):
                if word == '--expect' and i + 3 < len(args):
                    req = shlex.split(args[i + 3])
                    if req[:1] and req[0] in FLNL_OPS:
                        out.append(parse_flnl(req[0], req[1:], refused or
                                              args[i + 1] != '0'))
            return out
        if args[:1] and args[0] in FLNL_OPS:
            return [parse_flnl(args[0], args[1:], refused)]
        return []
    if prog in ('printf', 'awk'):
        texts = args if prog == 'printf' else \
            [w for a in args for w in shlex.split(a)]
        return [r for line in batch_lines(texts)
                for r in tc_requests(line, refused)]
    return []


# --- masks -----------------------------------------------------------------
def _bits(text):
    """(width, integer) of an address or number as tc reads it, or None."""
    if re.fullmatch(r'([0-9a-fA-F]{1,2}:){5}[0-9a-fA-F]{1,2}', text):
        return 48, int(''.join('%02x' % int(b, 16) for b in text.split(':')),
                       16)
    try:
        addr = ipaddress.ip_address(text)
        return addr.max_prefixlen, int(addr)
    except ValueError:
        pass
    try:
        return None, int(text, 0)
    except ValueError:
        return None


def tc_mask(word, value):
    """The mask a tc word's value asks for: None (all ones, as no mask) or
    an integer (a prefix length is turned into its bits: a MAC's /24 is
    ff:ff:ff:00:00:00), or a token.  ip_flags and ct_state name bits, set
    or clear: their mask is the names."""
    if word == 'ip_flags':
        return '/'.join(sorted(f[2:] if f.startswith('no') else f
                               for f in value.split('/')))
    if word == 'ct_state':
        return ''.join(sorted(re.findall(r'[a-z]+', value)))
    if word in ('src_port', 'dst_port') and '-' in (value or ''):
        return 'range'          # a range's mask: both bounds, all ones
    if not value or '/' not in value:
        return None
    addr, mask = value.split('/', 1)
    width = (_bits(addr) or (None, 0))[0]
    if width and mask.isdigit():
        bits = (1 << width) - (1 << (width - int(mask)))
    else:
        width, bits = _bits(mask) or (None, mask)
    if width is None and isinstance(bits, int):
        # a number's mask: all ones of the key's width is no mask
        width = {'ip_tos': 8, 'ip_ttl': 8, 'tcp_flags': 12}.get(word, 16)
    return None if width and bits == (1 << width) - 1 else bits


def mask_of(req):
    """What makes a request's mask: its keys and their masks, eth_type
    left out (a prio has one protocol).  ip_proto counts: its value is
    all-ones masked, so any two values share a mask, but a filter with
    ip_proto and one without have two masks (case b4d6)."""
    if req.attrs:
        names = {n for n, _ in req.attrs}
        sig = set()
        for name, value in req.attrs:
            attr = uapi.BY_NAME.get(name)
            if attr_family(name) is None or name in (
                    'KEY_ETH_TYPE', 'CLASSID', 'ACT', 'FLAGS'):
                continue
            if name.endswith('_MASK'):
                sig.add((name[:-5], value))
            elif not (attr and attr.mask and attr.mask in names):
                sig.add((name, None))
        return frozenset(sig)
    return frozenset((w, tc_mask(w, v)) for w, v in req.keys
                     if w not in ('eth_type', 'classid', 'hw_tc',
                                  'skip_sw', 'skip_hw', 'verbose', 'handle'))


# refused at every step before the leniency step, whatever the mask:
# unknown attributes (EOPNOTSUPP); port ranges and the hash key are keys
# since steps 16 and 17.  From the leniency step on the attribute is
# ignored, and a case that expects so is of family LENIENCY, which comes
# after masks: the mask its filter adds needs no more.
ALWAYS_REFUSED = r'UNSPEC'

# the category (and family) of a case whose request the stock flower
# accepts and the series before its leniency step refuses
LENIENCY = 'leniency'
# the category (and family) of a case on a first fragment's ICMP, TCP
# flags or L2TPv3 keys: the steps before 20 read no fragment's transport
# header, as the stock flower (9dc2, 1e1e, eeba, ffe6, e6dc)
FRAG_PARSE = 'frag_parse'
# the category (and family) of a case on a PPPoE filter's dump: the steps
# before 24 dump it as the stock flower does, with the protocol PPP
# carries (or none) as its ethertype (c6b2, 7d8b, 0bfc, e895; tcgen tags
# the dump cases of its PPPoE variants)
PPPOE_DUMP = 'pppoe_dump'
# the category (and family) of a case on Geneve options matched with their
# exact lengths: the steps before 30 use the lengths as their own mask, as
# the stock flower does, so some longer option lists match (ceca, 0e8d,
# 1f6e)
GENEVE_EXACT = 'geneve_exact'
# the category (and family) of a case on what drivers get as a Geneve
# options filter's mask: step 30, whose software matches the lengths
# exactly, gives them a copy with the key's lengths, as the stock flower
# does and as the steps before it do with the mask itself (3a5e, 3a5f)
HW_GENEVE_LENGTHS = 'hw_geneve_lengths'
# the category (and family) of a case on a tunnel key of a packet without
# tunnel metadata: the steps before 32 leave the tunnel keys zero there,
# as the stock flower, so "enc_key_id 0" matches it (6616, a2d6, b24c)
TUNNEL_METADATA = 'tunnel_metadata'
CATEGORY_FAMILIES = (LENIENCY, FRAG_PARSE, PPPOE_DUMP, GENEVE_EXACT,
                     HW_GENEVE_LENGTHS, TUNNEL_METADATA)
# the family of a case with a replace that gives its filter another mask
# (from its commands: mask_changes()): the steps before 19 refuse it, as
# the stock flower does
REPLACE_MASK = 'replace_mask'


def always_refused(req):
    """Whether every step before the leniency step refuses the request (it
    adds no mask there, even when the case's check of it ignores the exit
    code)."""
    return any(re.fullmatch(ALWAYS_REFUSED, n) for n, _ in req.attrs)


def needs_masks(case):
    """Whether the case gives one prio (device, parent, chain, prio) a
    filter whose mask is not that of the filters it holds, by an add or a
    replace: step 01 refuses it."""
    return mask_changes(case)[0]


def replaces_mask(case):
    """Whether a replace (or change) in the case gives its handle's filter
    another mask: the steps before the replace-mask step refuse it, as
    the stock flower does."""
    return mask_changes(case)[1]


def mask_changes(case):
    """(needs masks, replaces a mask): the prios' filters and masks along
    the case's requests.  A filter without a prio gets a new one of its
    own (tcf_auto_prio), a prio of a batch loop ("%d") too; a request the
    case expects refused adds nothing; a delete removes its filter (no
    handle: the prio's; a qdisc del: the device's), and a prio left
    without a filter is gone."""
    masks = replace = False
    prios = {}          # (where, prio) -> {handle: mask}
    for n, req in enumerate(requests(case)):
        if req.obj == 'reset':
            for (where, prio), filters in list(prios.items()):
                if req.where <= where and req.prio in (None, prio):
                    filters.pop(req.handle, None)
                    if req.handle is None or not filters:
                        del prios[where, prio]
            continue
        if req.obj != 'filter' or req.refused or always_refused(req) or \
                not req.prio or '%' in req.prio:
            continue
        filters = prios.setdefault((req.where, req.prio), {})
        mask = mask_of(req)
        if filters and set(filters.values()) != {mask}:
            masks = True
        if req.op in ('replace', 'change') and req.handle and \
                filters.get(req.handle, mask) != mask:
            replace = True
        filters[req.handle or ('auto', n)] = mask
    return masks, replace


# --- families --------------------------------------------------------------
def families(case):
    """The families a case needs: its FIELD (a subset of
    kernel/series/families'); ValueError for a case without one."""
    if not isinstance(case.get(FIELD), list):
        raise ValueError('case {}: no {} (tdc/corpus.py requires it of a '
                         'flower case)'.format(case.get('id'), FIELD))
    return set(case[FIELD])


def used_families(case):
    """The families the case's own commands use (what its FIELD must
    say: tdc/tests/test_series_cases.py checks every case)."""
    need = {'core'}
    need.update(f for f in CATEGORY_FAMILIES
                if f in case.get('category', ()))
    # the offload test driver's devices: only the offload step calls it
    if OFFLOAD_DRIVER in json.dumps(case):
        need.add('offload')
    for req in requests(case):
        if req.obj == 'reset':
            continue
        if req.obj == 'chain':
            need.add('templates')
        protos = [req.protocol] + [v for w, v in req.keys
                                   if w in ('vlan_ethtype', 'cvlan_ethtype',
                                            'eth_type')]
        protos += [v for n, v in req.attrs
                   if n in ('KEY_ETH_TYPE', 'KEY_VLAN_ETH_TYPE',
                            'KEY_CVLAN_ETH_TYPE')]
        need |= {PROTOCOL_FAMILY[p.lower()] for p in protos
                 if p and p.lower() in PROTOCOL_FAMILY}
        words = dict(req.keys)
        for word, _ in req.keys:
            family = TC_WORD.get(word)
            if word.startswith('mpls_'):
                family = 'mpls'
            if family is None:
                raise ValueError('case {}: flower word {!r} has no family '
                                 '(flower/keys.py, tdc/case_families.py '
                                 'OTHER_WORDS)'
                                 .format(case.get('id'), word))
            # SCTP's ports come with step 03, port ranges ("MIN-MAX", of
            # any of tcp, udp and sctp) with step 16
            if word in ('src_port', 'dst_port'):
                if '-' in words[word]:
                    family = 'port_range'
                elif words.get('ip_proto') == 'sctp':
                    family = 'sctp'
            need.add(family)
        for name, _ in req.attrs:
            family = attr_family(name)
            if family is None:
                raise ValueError('case {}: attribute {} has no family '
                                 '(flower/keys.py, tdc/case_families.py '
                                 'OTHER_ATTRS)'
                                 .format(case.get('id'), name))
            need.add(family)
    masks, replace = mask_changes(case)
    if masks:
        need.add('masks')
    if replace:
        need.add(REPLACE_MASK)
    return need
