# Mutation campaign on cls_flower.c (mutate/README.md); included from the
# top Makefile, which defines REPO, BUILD, PYTHON.
#
#   make mutate               every mutant without a result yet (hours)
#   make mutate SHARD=K/N     a deterministic share: index mod N == K-1
#   make mutate MUTATE_LIMIT=M   at most M of them (the rest stay to run)
#   make mutate-debug         the survivors of every oracle (and m0000)
#                             again on the debug kernel: KASAN, lockdep,
#                             kmemleak (mutate/leakcheck.py)
#   make mutate-report        docs/mutation.md from build/mutate/results
#                             (MUTATE_RESULTS="DIR..." merges shards' dirs)
#   make mutate-sample        gate stage: 4 fixed mutants of HEAD must be
#                             killed and the unmutated source must survive,
#                             on two packet case files (oracle
#                             packets-sample) and the flow cache between
#                             changes (oracle cache), one boot, and a
#                             second for the confirmations (each kill
#                             again)
#   make mutate-gate          the gate's score: every mutant the campaign
#                             killed again through the gate's own oracles
#                             (difftest against stock-next as
#                             difftest-smoke DT_STOCK=stock-next judges,
#                             packets, selftests, corpus; m0000 first),
#                             results in build/mutate/gate/results;
#                             MUTATE_LIMIT=M, MUTATE_FROM="DIR..." (the
#                             campaign's result dirs), DT_SEED=N
#   make mutate-gate SHARD=K/N
#                             that share of the plan first hand through the
#                             gate's oracles, campaign or not (the gate's
#                             score counts it by its own result)
#
# Every kill is confirmed: the oracle that failed runs again in a fresh
# guest, and m0000, first in every run, must pass every oracle (the run
# aborts otherwise).  Timeouts, stalls, deaths without a splat are
# inconclusive (mutate/README.md).
#
# The difftest oracle compares each mutant's verdict matrix on the smoke
# batch with the unmutated module's (build/mutate/difftest/smoke1.json and
# smoke1-ours.json): mutate.run makes them from m0000, the plan's commit
# unmutated, when smoke1.commit names another commit.

SHARD          ?= 1/1
MUTATE_LIMIT   ?=
MUTATE_RESULTS ?= $(BUILD)/mutate/sample/results $(BUILD)/mutate/results
MUTATE_FROM    ?=

.PHONY: mutate mutate-debug mutate-report mutate-sample mutate-gate

mutate:
	@$(MAKE) --no-print-directory guest
	cd $(REPO) && $(PYTHON) -m mutate.run --shard $(SHARD) \
		$(if $(MUTATE_LIMIT),--limit $(MUTATE_LIMIT))

mutate-debug:
	@$(MAKE) --no-print-directory kernel VARIANT=debug
	cd $(REPO) && $(PYTHON) -m mutate.run --debug

mutate-report:
	cd $(REPO) && $(PYTHON) -m mutate.report --results $(MUTATE_RESULTS)

mutate-sample:
	@$(MAKE) --no-print-directory guest
	cd $(REPO) && $(PYTHON) -m mutate.run --sample

# DT_SMOKE_SEED (difftest/difftest.mk): today's date, or DT_SEED=N given
mutate-gate:
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory stock-next-ext
	cd $(REPO) && $(PYTHON) -m mutate.run --oracles gate --dt-seed $(DT_SMOKE_SEED) \
		$(if $(filter-out 1/1,$(SHARD)),--shard $(SHARD)) \
		$(if $(MUTATE_LIMIT),--limit $(MUTATE_LIMIT)) \
		$(if $(MUTATE_FROM),--from $(MUTATE_FROM))
