# SPDX-License-Identifier: GPL-2.0
"""model.py - what ours answers to a generated filter: the refusal its
fl_change() gives, or none, and the warnings it may give when it accepts.

Since series step 22 ours refuses only what stock 6.1 refuses (malformed
requests, MPLS fields wider than their bits, port ranges without both
bounds or in the wrong order, ip_flags without a mask, ct_state sets no
packet has); every other request stock takes, ours takes too, with
stock's key and mask, and an extack warning for each thing stock does
silently (docs/leniency.md, flower/needs.py's MESSAGES and WARNINGS).

The model is flower/model.py's, the fuzzer's too: this module only
encodes a filter as tc sends it (filters.encode_filter(), or the
filter's 'attrs' once gen.py has set them) and reads the answer as the
oracle's names.  gen.py records the prediction with each filter
(predict()): compare.py checks ours' answer against it (errno and extack
of a refusal; the warning of an acceptance, ours only), and files any
refusal by ours that stock does not make as our bug."""

from difftest import keys as K
from flower import model, model_attrs, model_keys, needs, uapi
from flower.model_attrs import Err

# the VLAN TPIDs by name (a filter's protocol or vlan_ethtype)
VLANS = ('802.1q', '802.1ad')


def full_mask(k, m):
    """The mask a key gives the kernel: its mask attribute, all ones
    without one (an exact key: its valid bits)."""
    if not k['mask']:
        return k['bits']
    return (1 << 8 * k['width']) - 1 if m is None else m


EINVAL, ERANGE, EOPNOTSUPP = 22, 34, 95
# the oracle's need names -> ours' warning for a key whose need is unmet
NEED_MSG = {K.NEED[n]: m for n, m in needs.MESSAGES.items() if n in K.NEED}
W = needs.WARNINGS
RANGE_BOTH_MSG = model_attrs.PORT_RANGE_BOTH_MSG
RANGE_ORDER_MSG = model_attrs.PORT_RANGE_ORDER_MSG
# the ip_flags bits a packet has (frag, firstfrag)
IP_FLAGS_KNOWN = model_attrs.IP_FLAGS_KNOWN
# ours' fl_ct_state_error(): why no packet has these ct_state flags
# together (the value under its mask), or None
ct_state_error = model_keys.ct_state_error
# attributes a request may carry that no key of the oracle is: their
# numbers (filters.py's lenient requests put them in a filter's 'extra')
IN_HW_COUNT = uapi.BY_NAME['IN_HW_COUNT'].number
MPLS_OPTS = uapi.BY_NAME['KEY_MPLS_OPTS'].number
MASKS = {a.number for a in uapi.TABLE
         if a.mask and a.name.endswith('_MASK')}
# the oracle's key names by their attribute's
KEY_OF_ATTR = {k['attr']: name for name, k in K.KEY.items()}


class AnyDevice(dict):
    """The devices an INDEV names: the rig's (runner.py makes every
    device a filter of gen.py names)."""

    def __contains__(self, name):
        return True

    def __missing__(self, name):
        return 1


def eth_type(f):
    """The filter's TCA_FLOWER_KEY_ETH_TYPE (a protocol name), or None:
    protocol all sends none, nor does a lenient request without it."""
    if f.get('no_eth_type') or f['proto'] == 'all':
        return None
    return f['proto']


def tc_proto(f):
    """The filter's protocol (the tcmsg's): its eth_type's, unless a
    lenient request gives another."""
    return f.get('tc_proto') or f['proto']


def unknown_type(t):
    """An attribute type flower's policy does not have (0, or above
    TCA_FLOWER_MAX): both kernels ignore it, ours with a warning."""
    return t <= 0 or t > uapi.MAX


def fixed_max(t):
    """An attribute whose policy length is a maximum (NLA_BINARY
    ct_labels): a longer one is refused by both kernels, not taken."""
    return uapi.BY_NUMBER[t].name.startswith('KEY_CT_LABELS')


def encoded_attrs(f):
    """f's TCA_OPTIONS as encode_filter() gives them: [[type, hex], ...]
    (f['attrs'] once gen.py has set it)."""
    if 'attrs' in f:
        return f['attrs']
    from difftest.filters import encode_filter
    return encode_filter(f)


def predict(f):
    """Ours' answer to filter f: dict(refusal=[errno, extack, None] or
    None, warnings=[the warnings it gives, in its order, when it accepts;
    those before the refusal else], applied=[the keys it keeps: their
    need met]).  Netlink carries one message, the first warning."""
    c = model.Classifier(AnyDevice())
    refusal = None
    try:
        c.fl_parse([(t, bytes.fromhex(h), None) for t, h in encoded_attrs(f)],
                   False, K.PROTOS[tc_proto(f)])
    except Err as e:
        refusal = [min(e.codes), e.msg, None]
    return dict(refusal=refusal, warnings=c.warnings,
                applied={KEY_OF_ATTR[a] for a in c.applied
                         if a in KEY_OF_ATTR})


def predict_refusal(f):
    """[errno, extack, class] of ours' refusal of filter f, or None: ours
    accepts it.  The class is None: every refusal ours makes, stock makes
    too (a refusal stock does not make is our bug)."""
    return predict(f)['refusal']


def warnings(f):
    """The warnings ours gives when it accepts f, in its order (the first
    is the one netlink carries); [] for none."""
    return predict(f)['warnings']


def applied(f):
    """The keys of f ours keeps (their prerequisite met): the keys a
    verdict on f tests."""
    return predict(f)['applied']
