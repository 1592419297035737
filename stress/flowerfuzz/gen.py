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
