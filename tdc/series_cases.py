# SPDX-License-Identifier: GPL-2.0
"""tdc.series_cases - which step of the patch series a tdc case can run at.

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
at a step when all its families exist there.

    python3 -m tdc.series_cases list            every case: its step, families
    python3 -m tdc.series_cases ids STEP        ids of the cases run at STEP
    python3 -m tdc.series_cases run OUT STEP=KO... (in the guest) for each
        step, load KO as cls_flower and run its cases (TAP in
        OUT/STEP.tap), then the tree's SELFTESTS (OUT/STEP.SCRIPT.raw)
    python3 -m tdc.series_cases report OUT STEP...  per step and overall
        "N passed, N failed" from those files (the selftests judged along
        the series: judge_selftests)

Two families come from the case's category, not its commands:
FRAG_PARSE (a first fragment's ICMP, TCP flags or L2TPv3 keys: the
steps before 20 read no fragment's transport header), and LENIENCY,
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

import argparse
import collections
import glob
import ipaddress
import json
import os
import re
import shlex
import subprocess
import sys
import time

from flower import keys as flower_keys
from flower import selftests as selftest_output
from flower import uapi
from flower.results import parse_tap as read_tap
from tdc import corpus, shell_words, tdc

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the case's field that names the families it needs
FIELD = corpus.FAMILIES_FIELD
FAMILIES_FILE = os.path.join(REPO, 'kernel', 'series', 'families')
SERIES_FILE = os.path.join(REPO, 'kernel', 'series', 'series')
CASES = os.path.join(REPO, 'tc-tests', 'filters', 'flower')

# The tree's forwarding selftests that every step's module runs after its
# cases (selftests/in-guest, from the extracted 6.1 tree): the scripts
# that exercise flower.  Raw output in OUT/STEP.SCRIPT.raw.
SELFTESTS = ('tc_flower.sh', 'tc_chains.sh')
FWD = os.path.join(REPO, 'build', 'src', 'pristine', 'tools', 'testing',
                   'selftests', 'net', 'forwarding')
IN_GUEST = os.path.join(REPO, 'selftests', 'in-guest')
# a script takes 80 s or so under TCG; lib.sh may wait 600 s for a link
SELFTEST_TIMEOUT = 900
# TESTs that pass before the step that brings what they test, for another
# reason: (script, TEST label) -> that family (kernel/series/families).
# Their OK before its step is no baseline for the no-regression rule
# (judge_selftests' early).
EARLY_PASS = {
    # chain templates come with step 11 (the script ignores its `tc chain
    # add` failing); the filter that does not fit the template is a second
    # mask in prio 1, which steps 01-08 refuse for that and step 09 takes
    ('tc_chains.sh', 'template filter fits'): 'templates',
}

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
                             'decide in tdc/series_cases.py OTHER_WORDS'
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
# the category (and family) of a case on what drivers get as a Geneve
# options filter's mask: the steps before 30 gave them the all-ones
# lengths software matches with (3a5e, 3a5f)
HW_GENEVE_LENGTHS = 'hw_geneve_lengths'
CATEGORY_FAMILIES = (LENIENCY, FRAG_PARSE, HW_GENEVE_LENGTHS)


def always_refused(req):
    """Whether every step before the leniency step refuses the request (it
    adds no mask there, even when the case's check of it ignores the exit
    code)."""
    return any(re.fullmatch(ALWAYS_REFUSED, n) for n, _ in req.attrs)


def needs_masks(case):
    """Whether the case gives one prio (device, parent, chain, prio) a
    filter whose mask is not that of the filters it holds, by an add or a
    replace: step 01 refuses it.  A filter without a prio gets a new one
    of its own (tcf_auto_prio), a prio of a batch loop ("%d") too; a
    request the case expects refused adds nothing; a delete removes its
    filter (no handle: the prio's; a qdisc del: the device's), and a prio
    left without a filter is gone."""
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
            return True
        filters[req.handle or ('auto', n)] = mask
    return False


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
                                 '(flower/keys.py, tdc/series_cases.py '
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
                                 '(flower/keys.py, tdc/series_cases.py '
                                 'OTHER_ATTRS)'
                                 .format(case.get('id'), name))
            need.add(family)
    if needs_masks(case):
        need.add('masks')
    return need


def read_steps(path=FAMILIES_FILE, series=SERIES_FILE):
    """[(step, families it adds)] in order; the steps must be series'."""
    steps = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if words:
                steps.append((words[0], set(words[1:])))
    with open(series) as f:
        names = [line.split()[0] for line in f
                 if line.split() and not line.startswith('#')]
    if [s for s, _ in steps] != names:
        raise ValueError('{}: the steps are not those of {}: {} vs {}'.format(
            path, series, [s for s, _ in steps], names))
    return steps


def step_of(case, steps):
    """The first step at which every family the case needs exists, or
    None (a family no step declares)."""
    have = set()
    need = families(case)
    for name, fams in steps:
        have |= fams
        if need <= have:
            return name
    return None


def load_cases(directory=CASES):
    cases = []
    for path in sorted(glob.glob(os.path.join(directory, '*.json'))):
        with open(path) as f:
            cases += json.load(f)
    return cases


def select(step, steps, cases, shard=None):
    """The ids of the cases that run at `step` (their step is it or
    an earlier one), in corpus order; shard (K, N): only tdc.py's shard K
    of N of them (tdc.py --shard: by a hash of the id)."""
    order = [s for s, _ in steps]
    upto = set(order[:order.index(step) + 1])
    return [c['id'] for c in cases if step_of(c, steps) in upto and
            (not shard or tdc.shard_of(c, shard[1]) == shard[0])]


def resolve(step, steps):
    """A step by its name or its number prefix ("02")."""
    names = [s for s, _ in steps]
    hits = [s for s in names if s == step or s.split('-')[0] == step]
    if len(hits) != 1:
        raise SystemExit('series_cases: no step {!r} in {}'.format(
            step, ' '.join(names)))
    return hits[0]


# --- in the guest ----------------------------------------------------------
def srcversion(ko):
    out = subprocess.run(['modinfo', '-F', 'srcversion', ko],
                         capture_output=True, text=True)
    return out.stdout.strip()


def loaded():
    """The srcversion of the cls_flower loaded, or None."""
    try:
        with open('/sys/module/cls_flower/srcversion') as f:
            return f.read().strip()
    except OSError:
        return None


def load(ko):
    """cls_flower := ko: rmmod the loaded one (retried: the module stays
    busy for an RCU grace period after its last filter), insmod, and check
    that the module answering is ko (not an autoloaded other)."""
    deadline = time.monotonic() + 60
    while os.path.exists('/sys/module/cls_flower'):
        if subprocess.run(['rmmod', 'cls_flower'],
                          capture_output=True).returncode == 0:
            break
        if time.monotonic() > deadline:
            return 'rmmod cls_flower still fails after 60 s'
        time.sleep(0.5)
    rc = subprocess.run(['insmod', ko], capture_output=True, text=True)
    if rc.returncode:
        return 'insmod {}: {}'.format(ko, rc.stderr.strip())
    if loaded() != srcversion(ko):
        return 'loaded cls_flower srcversion {} is not {}\'s'.format(
            loaded(), ko)
    return None


def selftest(out, step, ko, script):
    """Run the tree's forwarding selftest script on ko, its output into
    out/STEP.SCRIPT.raw.  ko is loaded again first when the module
    answering is another (a case may have removed it, and the script
    would then autoload the final one from build/mod)."""
    raw = os.path.join(out, '{}.{}.raw'.format(step, script))
    start = time.monotonic()
    with open(raw, 'w') as f:
        error = None if loaded() == srcversion(ko) else load(ko)
        if error:
            f.write('### series_cases: {}\n'.format(error))
            rc = error
        else:
            # timeout kills the script's process group too
            rc = subprocess.run(['timeout', '-k', '10',
                                 str(SELFTEST_TIMEOUT), IN_GUEST, FWD,
                                 script], stdout=f, stderr=subprocess.STDOUT,
                                cwd=REPO).returncode
    print('series_cases: {}: {}: exit {} after {:.0f} s'.format(
        step, script, rc, time.monotonic() - start), flush=True)


def run(out, pairs, jobs, shard=None):
    """For each STEP=KO: load KO, run STEP's cases into out/STEP.tap (KO
    is STEP's module but to see the check fail: another step's), then
    the SELFTESTS on it.  A step that cannot load its module gets
    out/STEP.error.  A step with out/STEP.classic (make series-corpus
    writes it: the step has no cls_flower.c, its module is the tree's
    own flower from cls_flower_classic.c) runs no case, only SELFTESTS."""
    steps = read_steps()
    cases = load_cases()
    rc = 0
    for pair in pairs:
        step, ko = pair.split('=')
        step = resolve(step, steps)
        classic = os.path.exists(os.path.join(out, step + '.classic'))
        ids = [] if classic else select(step, steps, cases, shard)
        tap = os.path.join(out, step + '.tap')
        for stale in [tap, os.path.join(out, step + '.error')] + [
                os.path.join(out, '{}.{}.raw'.format(step, script))
                for script in SELFTESTS]:
            if os.path.exists(stale):
                os.remove(stale)
        with open(os.path.join(out, step + '.ids'), 'w') as f:
            f.write('\n'.join(ids) + '\n')
        error = load(ko)
        if error:
            with open(os.path.join(out, step + '.error'), 'w') as f:
                f.write(error + '\n')
            print('series_cases: {}: {}'.format(step, error), flush=True)
            rc = 1
            continue
        print('series_cases: {}: {} cases on {}'.format(step, len(ids), ko),
              flush=True)
        if ids:
            r = subprocess.run([sys.executable, '-m', 'tdc.tdc', '-J',
                                str(jobs), '--tap', tap, '-e'] + ids,
                               cwd=REPO)
            rc = rc or r.returncode
        for script in SELFTESTS:
            selftest(out, step, ko, script)
    return rc


# --- on the host -----------------------------------------------------------
def tap_counts(path):
    """(passed, failed, failed ids) of a TAP file; a skip or a case that
    never reported counts as failed."""
    with open(path) as f:
        tap = read_tap(f, indented_plan=True)
    failed = [r.id for r in tap.results if not r.ok or r.skip is not None]
    passed = len(tap.results) - len(failed)
    plan = tap.plans[-1] if tap.plans else None
    missing = (plan or 0) - passed - len(failed)
    return passed, len(failed) + max(missing, 0), failed


def selftest_rows(path, script):
    """([(key, label, status)] of flower.selftests.rows_of, the script's
    own seconds or None) of a raw output; (None, None) without one."""
    if not os.path.exists(path):
        return None, None
    with open(path, errors='replace') as f:
        raw = f.read()
    tests = selftest_output.all_tests(os.path.join(FWD, script))
    segs, _, seconds, _, _ = selftest_output.parse(raw, tests)
    return [row[:3] for row in selftest_output.rows_of(segs, tests)], seconds


Verdict = collections.namedtuple('Verdict', 'passed failed not_yet early')
TESTED = ('OK', 'FAIL', 'SKIP')         # a TEST line's statuses


def judge_selftests(runs, last, early=None):
    """The oracle over one script's results along the series.  runs:
    [(step, classic, rows)] in the order of the series, rows those of
    selftest_rows() (None: no output); last: the step the series ends
    at, when it is among them (else None); early: {TEST label: steps
    where its OK is no baseline} (EARLY_PASS).
    Returns ({step: Verdict}, {key: [label, first step OK or None]}):
    passed (labels), failed ((label, why)), not_yet ((label, status)),
    early (labels OK there but no baseline).
    A script without a TEST line fails.  A classic step (the tree's own
    flower) must pass every TEST, and stands apart: the rewrite's steps
    start over after it.  At the others a TEST OK at an earlier step must
    be OK, one printed at an earlier step must be printed, and at the
    last step every TEST must be OK (and every test function print one);
    anything else not OK is "not yet", which counts neither way."""
    early = early or {}
    verdicts, first = {}, {}
    ok_at, seen_at = {}, {}     # key -> the step where it was OK, printed
    for step, classic, rows in runs:
        v = Verdict([], [], [], [])
        rows = rows or []
        tested = [(key, label) for key, label, status in rows
                  if status in TESTED]
        if not tested:
            v.failed.append(('(script)', 'printed no TEST line'
                             if rows else 'no output'))
        for key, label in tested:
            first.setdefault(key, [label, None])
        for key, label, status in rows:
            if status == 'OK':
                v.passed.append(label)
            elif classic:
                v.failed.append((label, status + ' on the tree\'s own flower'))
            elif key in ok_at:
                v.failed.append((label, '{}, OK at {}'.format(status,
                                                              ok_at[key])))
            elif step == last:
                v.failed.append((label, status + ' at the last step'))
            else:
                v.not_yet.append((label, status))
        if not classic and tested:
            keys = {key for key, _ in tested}
            v.failed.extend((label, 'missing, printed at ' + at)
                            for key, (label, at) in seen_at.items()
                            if key not in keys)
            for key, label in tested:
                seen_at.setdefault(key, (label, step))
            for key, label, status in rows:
                if status == 'OK' and step in early.get(label, ()):
                    v.early.append(label)
                elif status == 'OK':
                    ok_at.setdefault(key, step)
                    first[key][1] = first[key][1] or step
        verdicts[step] = v
    return verdicts, first


def selftests_table(tables, classic_steps):
    """The markdown table of every script's TESTs and the first step at
    which each is OK (a classic step's apart: a column of its own);
    tables: [(script, first of judge_selftests(), {classic step: rows})]."""
    lines = ['| script | test | OK from step |' +
             ''.join(' {} (the tree\'s flower) |'.format(c)
                     for c in classic_steps),
             '|---|---|---|' + '---|' * len(classic_steps)]
    for script, first, classic_rows in tables:
        status = {c: {key: st for key, _, st in classic_rows.get(c) or ()}
                  for c in classic_steps}
        for key, (label, step) in first.items():
            lines.append('| {} | {} | {} |'.format(
                script, label.replace('|', '\\|'), step or 'never') +
                ''.join(' {} |'.format(status[c].get(key, '-'))
                        for c in classic_steps))
    return lines


def report(out, names, guest_rc=0, shard=None):
    """Per step and overall "N passed, N failed"; 1 when any failed: the
    step's cases and its SELFTESTS (judge_selftests(): each TEST result
    counts), then the table of the first step each TEST passes at (also
    into out/selftests.md).  A step whose cls_flower.c is the step
    before's (out/STEP.same names it) is not run again; a guest that
    splatted or died fails the run."""
    steps = read_steps()
    cases = load_cases()
    order = [s for s, _ in steps]
    names = sorted({resolve(n, steps) for n in names}, key=order.index)
    same = {}
    for step in order:
        if os.path.exists(os.path.join(out, step + '.same')):
            with open(os.path.join(out, step + '.same')) as f:
                same[step] = f.read().strip()
    ran = [s for s in names if s not in same]
    classic = [s for s in ran
               if os.path.exists(os.path.join(out, s + '.classic'))]
    # the last step's module: the series' last, or the step it equals
    last = same.get(order[-1], order[-1])
    brings = {}
    for step, fams in reversed(steps):
        brings.update(dict.fromkeys(fams, step))
    judged, tables, seconds = {}, [], {}
    for script in SELFTESTS:
        runs = []
        for step in ran:
            rows, seconds[step, script] = selftest_rows(
                os.path.join(out, '{}.{}.raw'.format(step, script)), script)
            runs.append((step, step in classic, rows))
        early = {label: order[:order.index(brings[fam])]
                 for (s, label), fam in EARLY_PASS.items() if s == script}
        verdicts, first = judge_selftests(runs, last if last in ran
                                          else None, early)
        judged[script] = verdicts
        tables.append((script, first, {s: r for s, c, r in runs if c}))
    total_p = total_f = 0
    for step in names:
        path = os.path.join(out, step)
        if step in same:
            print('series-corpus: {}: net/sched/cls_flower.c is {}\'s: '
                  'not run again'.format(step, same[step]))
            continue
        if os.path.exists(path + '.ids'):     # the guest reached the step
            with open(path + '.ids') as f:
                want = len(f.read().split())
        else:
            want = 0 if step in classic else \
                len(select(step, steps, cases, shard))
        failed, why = [], ''
        if os.path.exists(path + '.error'):
            with open(path + '.error') as f:
                p, fl, why = 0, max(want, 1), f.read().strip()
        elif step in classic:
            p, fl, why = 0, 0, ('no net/sched/cls_flower.c: the tree\'s own '
                                'flower, no case (only the selftests)')
        elif not want:
            p, fl, why = 0, 1, 'no case selected: nothing tested'
        elif not os.path.exists(path + '.ids'):
            p, fl, why = 0, want, 'not reached: the guest run ended before it'
        else:
            p, fl, failed = tap_counts(path + '.tap')
            if p + fl < want:
                why = '{} of {} selected cases never reported'.format(
                    want - p - fl, want)
                fl = want - p
        print('series-corpus: {}: {} passed, {} failed{}{}'.format(
            step, p, fl, ' (' + why + ')' if why else '',
            ': ' + ' '.join(failed[:20]) + (' ...' if len(failed) > 20 else '')
            if failed else ''))
        total_p += p
        total_f += fl
        for script in SELFTESTS:
            v = judged[script][step]
            took = seconds[step, script]
            print('series-corpus: {}: {}: {} passed, {} failed{}{}'.format(
                step, script, len(v.passed), len(v.failed),
                ', {} not yet'.format(len(v.not_yet)) if v.not_yet else '',
                ' ({:.0f} s)'.format(took) if took is not None else ''))
            for label, why in v.failed:
                print('series-corpus: {}: {}: FAIL {}: {}'.format(
                    step, script, label, why))
            for label, status in v.not_yet:
                print('series-corpus: {}: {}: not yet {} ({})'.format(
                    step, script, label, status))
            for label in v.early:
                print('series-corpus: {}: {}: OK before the step that '
                      'brings what it tests, no baseline: {} '
                      '(EARLY_PASS)'.format(step, script, label))
            total_p += len(v.passed)
            total_f += len(v.failed)
    if ran:
        table = selftests_table(tables, classic)
        print('series-corpus: the first step each selftest passes at:')
        print('\n'.join(table))
        if last not in ran:
            print('series-corpus: {} (the last step\'s module) did not run: '
                  'the rule that every TEST passes there was not '
                  'applied'.format(last))
        with open(os.path.join(out, 'selftests.md'), 'w') as f:
            f.write('# The tree\'s forwarding selftests along the series\n\n'
                    'Written by make series-corpus (tdc/series_cases.py), '
                    'steps run: {}.  "OK from step": the first of them at '
                    'which the TEST passed (an EARLY_PASS before its step '
                    'aside); "never": none of them.\n\n'.format(
                        ' '.join(ran)) + '\n'.join(table) + '\n')
    if guest_rc == 3 or guest_rc >= 120:
        print('series-corpus: guest/run exit {}: a kernel splat or the guest '
              'died (above, and build/logs/console-series-corpus.log)'
              .format(guest_rc))
        total_f += 1
    print('{} passed, {} failed'.format(total_p, total_f))
    return 1 if total_f or not total_p else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    sub.add_parser('list')
    sub.add_parser('steps').add_argument('steps', nargs='*')
    sub.add_parser('ids').add_argument('step')
    s = sub.add_parser('run')
    s.add_argument('out')
    s.add_argument('pairs', nargs='+', metavar='STEP=KO')
    s.add_argument('-J', type=int, default=2)
    s.add_argument('--shard', type=tdc.parse_shard, metavar='K/N')
    s = sub.add_parser('report')
    s.add_argument('out')
    s.add_argument('steps', nargs='*')
    s.add_argument('--guest-rc', type=int, default=0)
    s.add_argument('--shard', type=tdc.parse_shard, metavar='K/N')
    args = p.parse_args(argv)
    steps = read_steps()
    if args.cmd == 'list':
        for case in load_cases():
            print('{}  {:<26} {}'.format(case['id'], step_of(case, steps) or
                                         '(none)',
                                         ' '.join(sorted(families(case)))))
    elif args.cmd == 'steps':
        print(' '.join(resolve(s, steps) for s in args.steps) if args.steps
              else ' '.join(s for s, _ in steps))
    elif args.cmd == 'ids':
        print('\n'.join(select(resolve(args.step, steps), steps,
                               load_cases())))
    elif args.cmd == 'run':
        return run(args.out, args.pairs, args.J, args.shard)
    else:
        return report(args.out, args.steps or [s for s, _ in steps],
                      args.guest_rc, args.shard)
    return 0


if __name__ == '__main__':
    sys.exit(main())
