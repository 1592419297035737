# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.attrs - the generator's side of the attribute table:
the model's tables and constants (flower/model_attrs.py, re-exported for
the generator's modules), the shared actions and verdicts it draws, and
builders of its attributes.
"""

from flower.model_attrs import *  # noqa: F401,F403
from flower.model_attrs import G_CLASS, G_DATA, G_TYPE, GENEVE, NLA_F_NESTED

from flower import nl
from flower.nl import nla  # noqa: F401  (the one nla(); tests import it here)

SHARED_ACT = {0x7FFFFF01: 2, 0x7FFFFF02: 0, 0x7FFFFF03: 2, 0x7FFFFF04: 8}
VALID_VERDICTS = (0, 1, 2, 3, 4, 5, 6, 7, 8, -1)


def acts_payload(acts):
    """TCA_FLOWER_ACT's payload for [(verdict, index)]: gact actions in
    order from 1, the order attributes without NLA_F_NESTED (as pyroute2
    built them)."""
    return nl.gact_list(acts, nested=False)


def enc(name, value):
    """The payload of attribute name ('ETH_TYPE', 'KEY_ETH_TYPE', 'FLAGS'
    or a number) for value, by its type in uapi.TABLE (flower.nl.encode())."""
    if isinstance(name, str) and name not in A:
        name = 'KEY_' + name
    return nl.encode(name, value)


def typed(name, value):
    """(name, enc(name, value)): a recipe's fixed attribute."""
    return name, enc(name, value)


def geneve_opt(cls, typ, data, nested=True):
    """One TCA_FLOWER_KEY_ENC_OPTS_GENEVE option (tc sets NLA_F_NESTED;
    the kernel does not ask for it)."""
    return nla(GENEVE | (NLA_F_NESTED if nested else 0),
               nla(G_CLASS, cls) + nla(G_TYPE, typ) + nla(G_DATA, data))
