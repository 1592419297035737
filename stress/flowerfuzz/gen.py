# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.gen - the request generator: the recipes, the valid
requests and the broken ones together.
"""

from stress.flowerfuzz.mutate import MutateGen
from stress.flowerfuzz.recipes import RecipeGen
from stress.flowerfuzz.requests import RequestGen


class Gen(RecipeGen, RequestGen, MutateGen):
    """Random requests, valid and broken, for the model to predict."""

    def __init__(self, rng, model, ifindex):
        self.rng = rng
        self.model = model
        self.ifindex = ifindex
        self.port_pool = [rng.randrange(1, 65536) for _ in range(6)] + \
            [80, 443, 4789, 6081]
        self.addr_pool = [bytes(rng.randrange(256) for _ in range(16))
                          for _ in range(6)]

    def next_op(self, max_filters):
        """The fuzzer's next request: mostly adds, replaces, broken
        requests and deletes (deletes only, above max_filters)."""
        x = self.rng.random()
        if self.model.nfilters() > max_filters:
            x = 0.55 + 0.1 * x        # delete
        if x < 0.30:
            op = self.valid_add()
        elif x < 0.40:
            op = self.replace()
        elif x < 0.43:
            op = self.replace(change=True)
        elif x < 0.55:
            op = self.invalid() if x < 0.47 else self.valid_add()
        elif x < 0.67:
            op = self.delete()
        elif x < 0.69:
            op = self.get()
        else:
            op = self.invalid()
        op.sanitize()
        return op
