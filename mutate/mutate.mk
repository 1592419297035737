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
#   make mutate-sample        gate stage: 3 fixed mutants of HEAD must be
#                             killed and the unmutated source must survive,
#                             fast oracle only, one boot
#
# The difftest oracle compares each mutant's verdict matrix on the smoke
# batch with the unmutated module's (build/mutate/difftest/smoke1.json and
# smoke1-ours.json): made once here (one boot of build/mod/ours) when
# missing; m0000 surviving shows the reference fits the mutated commit.

SHARD          ?= 1/1
MUTATE_LIMIT   ?=
MUTATE_RESULTS ?= $(BUILD)/mutate/sample/results $(BUILD)/mutate/results
MUTATE_DT      := $(BUILD)/mutate/difftest

.PHONY: mutate mutate-debug mutate-report mutate-sample mutate-difftest-ref

# made again when ours' module is newer than the reference (a changed
# cls_flower.c answers differently: the control m0000 would die)
OURS_KO        = $(wildcard $(BUILD)/mod/ours/lib/modules/*/kernel/net/sched/cls_flower.ko)
mutate-difftest-ref:
	@if [ ! -s $(MUTATE_DT)/smoke1-ours.json ] || \
	    [ $(MUTATE_DT)/smoke1-ours.json -ot "$(OURS_KO)" ]; then \
		mkdir -p $(MUTATE_DT) $(BUILD)/guest-out/mutate; \
		cd $(REPO) && $(PYTHON) -m difftest.gen --seed 1 --batches 1 \
			--filters 60 --out $(MUTATE_DT)/smoke1.json && \
		$(REPO)/guest/run --variant ours --timeout 1500 -- $(PYTHON) \
			-m difftest.runner --rounds-k 4 $(MUTATE_DT)/smoke1.json \
			$(BUILD)/guest-out/mutate/smoke1-ours.json && \
		cp $(BUILD)/guest-out/mutate/smoke1-ours.json $(MUTATE_DT)/; \
	fi

mutate:
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory mutate-difftest-ref
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
