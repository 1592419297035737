# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.model - the fuzzer's model of the tc core
(tc_new_tfilter() & co. in net/sched/cls_api.c) around the classifier's
(flower/model.py, fl_change() and fl_dump()): which request is accepted,
with which errno and extack, and what a dump holds.
"""

import errno

from flower.model import Classifier
from flower.model_attrs import (EEXIST_MSG, Err, INT_MAX,
                                TC_ACT_EXT_VAL_MASK)
from flower.model_keys import Tp
from flower.needs import SKIP_SW_MSG
from flower.nl import NLM_F_CREATE, NLM_F_EXCL

from stress.flowerfuzz.compare import OpaqueFilter


# tcf_gact_offload_act_setup(): the verdicts a driver is given (ok, shot,
# trap; goto chain is never sent here), and the extack of the others
GACT_OFFLOADED = (0, 2, 8)
GACT_NO_OFFLOAD = {
    -1: 'Offload of "continue" action is not supported',
    1: 'Offload of "reclassify" action is not supported',
    3: 'Offload of "pipe" action is not supported'}


class Model(Classifier):
    """What the kernel should hold after every accepted request."""

    def __init__(self, devs):
        super().__init__(devs)
        self.tps = {}           # (chain, prio) -> Tp
        self.opaque = 0         # --stock: filters kept as dumped

    def nfilters(self):
        return sum(len(t.filters) for t in self.tps.values())

    def chain_tps(self, chain):
        return sorted((t for t in self.tps.values() if t.chain == chain),
                      key=lambda t: t.prio)

    def check_kind_and_chain(self, op, chain):
        """tc_new_tfilter()'s and tc_del_tfilter()'s checks of the kind's
        length and the chain index, in their order."""
        if op.kind is not None and len(op.kind) >= 16:
            raise Err(errno.EINVAL, 'Specified TC filter name too long')
        if chain > TC_ACT_EXT_VAL_MASK:
            raise Err(errno.EINVAL, 'Specified chain index exceeds upper '
                                    'limit')

    # -- the tc core: tc_new_tfilter() -----------------------------------
    def predict_new(self, op):
        """Returns (commit function; its warning: the extack of the ack)
        or raises Err."""
        create = bool(op.flags & NLM_F_CREATE)
        prio, proto, chain = op.prio, op.proto, op.chain or 0
        if prio == 0 and not create:
            raise Err(errno.ENOENT, 'Invalid filter command with priority '
                                    'of zero')
        self.check_qdisc(op)
        self.check_kind_and_chain(op, chain)
        prio_alloc = prio == 0
        if prio_alloc:
            prio = 0x8000
        tp = self.tps.get((chain, prio))
        if tp and (prio_alloc or (tp.proto != proto and proto)):
            raise Err(errno.EINVAL, 'Filter with specified priority/'
                                    'protocol not found')
        created = False
        if tp is None:
            if op.kind is None or not proto:
                raise Err(errno.EINVAL, 'Filter kind and protocol must be '
                                        'specified')
            if not create:
                raise Err(errno.ENOENT, 'Need both RTM_NEWTFILTER and '
                                        'NLM_F_CREATE to create a new filter')
            if prio_alloc:
                # tcf_auto_prio(tcf_chain_tp_prev()): one below the first
                # prio above 0x8000, else 0xC000
                above = [t.prio for t in self.chain_tps(chain)
                         if t.prio > 0x8000]
                prio = (min(above) - 1) if above else 0xC000
            if op.kind != 'flower':
                raise Err(errno.ENOENT, 'TC classifier not found')
            tp = self.tps.get((chain, prio))
            if tp is not None:
                if tp.proto != proto:
                    raise Err(errno.EINVAL)
            else:
                tp = Tp(chain, prio, proto, op.recipe)
                created = True
        if op.kind is not None and op.kind != 'flower':
            raise Err(errno.EINVAL, 'Specified filter kind does not match '
                                    'existing one')
        fold = tp.filters.get(op.handle) if op.handle else None
        if fold is None and not create:
            raise Err(errno.ENOENT, 'Need both RTM_NEWTFILTER and '
                                    'NLM_F_CREATE to create a new filter')
        if fold is not None and op.flags & NLM_F_EXCL:
            raise Err(errno.EEXIST, 'Filter already exists')

        f = self.fl_parse(op.attrs, op.tail_bad, tp.proto)
        # skip_sw: offered to drivers first (fl_insert_hw()): the actions
        # are translated for them (tc_setup_offload_action(): gact's
        # accept, drop and trap only), then no driver offloads the
        # fuzzer's devices
        if f.flags & 2:
            for v, _idx in f.acts:
                if v not in GACT_OFFLOADED:
                    raise Err(errno.EOPNOTSUPP, 'act_gact: ' + GACT_NO_OFFLOAD
                              .get(v, 'Unsupported generic action offload'))
            raise Err(errno.EOPNOTSUPP, SKIP_SW_MSG)
        # any mask: a new one joins the prio's list (the youngest); the
        # masked key must be unique within its mask (a replace may keep
        # its own, or move the filter to another mask)
        ident = f.ident()
        if fold is not None:
            handle = fold.handle
            if ident != fold.ident():
                for g in tp.filters.values():
                    if g is not fold and g.ident() == ident:
                        raise Err(errno.EEXIST, EEXIST_MSG)
        else:
            handle = op.handle
            if not handle:
                handle = 1
                while handle in tp.filters:
                    handle += 1
                if handle > INT_MAX:
                    raise Err(errno.ENOSPC, 'No free flower filter handle')
            for g in tp.filters.values():
                if g.ident() == ident:
                    raise Err(errno.EEXIST, EEXIST_MSG)

        def commit():
            if created:
                self.tps[(chain, tp.prio)] = tp
            f.handle = handle
            tp.put(f)
            if op.recipe is not None and op.recipe not in tp.recipes:
                tp.recipes.append(op.recipe)
        commit.tp = tp
        commit.warning = f.warning
        return commit

    def check_qdisc(self, op):
        if op.ifindex not in self.names:
            raise Err(errno.ENODEV)
        if op.parent == 0:
            # the root qdisc of a dummy device (and lo) is noqueue
            raise Err(errno.EINVAL, 'Qdisc not classful')
        if op.parent >> 16 != 0xFFFF or op.ifindex != self.devs['fz0']:
            raise Err(errno.EINVAL, "Parent Qdisc doesn't exists")

    # -- tc_del_tfilter() ------------------------------------------------
    def predict_del(self, op):
        prio, proto, chain = op.prio, op.proto, op.chain or 0
        if prio == 0 and (proto or op.handle or op.kind is not None):
            raise Err(errno.ENOENT, 'Cannot flush filters with protocol, '
                                    'handle or kind set')
        self.check_qdisc(op)
        self.check_kind_and_chain(op, chain)
        tps = self.chain_tps(chain)
        if prio == 0:
            def flush():
                for t in tps:
                    del self.tps[(chain, t.prio)]
            return flush
        if not tps:
            raise Err(errno.ENOENT, 'Cannot find specified filter chain')
        tp = self.existing_tp(op, chain, prio, proto)
        if op.handle == 0:
            def drop_tp():
                del self.tps[(chain, prio)]
            return drop_tp
        if op.handle not in tp.filters:
            raise Err(errno.ENOENT, 'Specified filter handle not found')

        def drop():
            tp.remove(op.handle)
            if not tp.filters:
                del self.tps[(chain, prio)]
        drop.tp = tp
        return drop

    def existing_tp(self, op, chain, prio, proto):
        """The instance a delete or get names, as cls_api checks it."""
        tp = self.tps.get((chain, prio))
        if tp is None:
            raise Err(errno.ENOENT, 'Filter with specified priority/'
                                    'protocol not found')
        if proto and tp.proto != proto:
            raise Err(errno.EINVAL, 'Filter with specified priority/'
                                    'protocol not found')
        if op.kind is not None and op.kind != 'flower':
            raise Err(errno.EINVAL, 'Specified filter kind does not match '
                                    'existing one')
        return tp

    # -- tc_get_tfilter() ------------------------------------------------
    def predict_get(self, op):
        prio, proto, chain = op.prio, op.proto, op.chain or 0
        if prio == 0:
            raise Err(errno.ENOENT, 'Invalid filter command with priority '
                                    'of zero')
        self.check_qdisc(op)
        if chain > TC_ACT_EXT_VAL_MASK:
            raise Err(errno.EINVAL, 'Specified chain index exceeds upper '
                                    'limit')
        if not self.chain_tps(chain):
            raise Err(errno.EINVAL, 'Cannot find specified filter chain')
        tp = self.existing_tp(op, chain, prio, proto)
        f = tp.filters.get(op.handle)
        if f is None:
            raise Err(errno.ENOENT, 'Specified filter handle not found')

        def nothing():
            pass
        nothing.filter = (tp, f)
        return nothing

    # -- what fl_dump() should say ----------------------------------------

    # -- what fl_dump() should say ----------------------------------------
    def expected_opts(self, tp, f):
        """[(type, bytes)] of TCA_OPTIONS without TCA_FLOWER_ACT, in the
        order fl_dump() puts them (a filter kept opaque: as dumped)."""
        if isinstance(f, OpaqueFilter):
            return list(f.opts)
        return self.dump_opts(f)
