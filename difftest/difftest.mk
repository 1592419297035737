# Differential oracle (difftest/README.md); included from the top Makefile,
# which defines REPO, BUILD, PYTHON and the stock variants' builds
# (make stock-ext there; make stock-next-ext in kernel/stock-series.mk).
#
#   make difftest          seeded (filter, packet) pairs on ours and on the
#                          tree's stock cls_flower, one guest boot each;
#                          divergences classified, shrunk, printed as tdc
#                          cases; docs/difftest.md.  DT_SEED=N (default 1)
#   make difftest-smoke    the same, bounded (>= 10,000 verdicts a kernel,
#                          a few minutes), for the gate; no docs.  Its seed
#                          is the UTC date (YYYYMMDD), printed; DT_SEED=N
#                          on the command line replays seed N.  Two
#                          batches: dtr's ingress and dtx's egress
#   make difftest-smoke DT_STOCK=stock-next
#                          (or make difftest DT_STOCK=stock-next) ours
#                          against stock-next instead of stock: the
#                          pristine file + kernel/stock-series (make
#                          stock-next-ext, kernel/stock-series.mk), in
#                          compare.py's strict mode: every divergence
#                          fails, stock bugs included, but for a request
#                          ours accepts and stock-next refuses.  The run's
#                          files are build/guest-out/difftest/<run>-vs-
#                          stock-next*, make difftest's report
#                          docs/difftest-stock-next.md

DT_SEED        ?= 1
DT_BATCHES     ?= 3
DT_FILTERS     ?= 150
DT_K           ?= 4
DT_SMOKE_FILTERS ?= 60
DT_SMOKE_BATCHES ?= 2
# a new seed every day, unless one is asked for (a failure is replayed
# with the seed its output names)
ifeq ($(origin DT_SMOKE_SEED),undefined)
DT_SMOKE_SEED  := $(if $(filter command line environment,$(origin DT_SEED)),$(DT_SEED),$(shell date -u +%Y%m%d))
endif
# the report fails with fewer verdicts compared (compare.py --min-verdicts)
DT_MIN_VERDICTS ?= 1
DT_SMOKE_MIN_VERDICTS ?= 10000
# the kernel ours is compared with: stock (the pristine cls_flower.c) or
# stock-next (kernel/stock-series applied; compare.py's strict mode);
# built by make $(DT_STOCK)-ext, booted by guest/run --variant $(DT_STOCK)
DT_STOCK       ?= stock
# one word, stock or stock-next
ifneq ($(words $(DT_STOCK))$(filter stock stock-next,$(DT_STOCK)),1$(DT_STOCK))
  $(error DT_STOCK must be stock or stock-next (got '$(DT_STOCK)'))
endif
# against stock-next, the run's files and report carry its name (a run
# against stock keeps today's names)
DT_VS          := $(if $(filter stock,$(DT_STOCK)),,-vs-$(DT_STOCK))
DT_OUT         := $(BUILD)/guest-out/difftest
DT_DOC         := $(REPO)/docs/difftest$(if $(DT_VS),-$(DT_STOCK)).md
DT_RUNNER      := -m difftest.runner
DT_TIMEOUT     ?= 1500
# ours' module parameters for the run, NAME=VALUE ... (bench-only ones:
# l3l4_dissect=0 compares the dissector's path); DT_TAG names the run's
# files apart, e.g. DT_TAG=-l3l4off
DT_OURS_PARAMS ?=
DT_TAG         ?=

.PHONY: difftest difftest-smoke difftest-run

# One run: DT_NAME, DT_SEED, DT_BATCHES, DT_FILTERS, DT_DOCARG, DT_STOCK.
difftest-run:
	@mkdir -p $(DT_OUT)
	@start=$$(date +%s); \
	cd $(REPO) && $(PYTHON) -m difftest.gen --seed $(DT_SEED) --batches $(DT_BATCHES) \
		--filters $(DT_FILTERS) --cover --out $(DT_OUT)/$(DT_NAME).json || { \
		echo "0 passed, 1 failed"; exit 1; }; \
	for v in ours $(DT_STOCK); do \
		t0=$$(date +%s); \
		params=; [ $$v != ours ] || params="$(DT_OURS_PARAMS:%=--param %)"; \
		$(REPO)/guest/run --variant $$v --timeout $(DT_TIMEOUT) -- \
			$(PYTHON) $(DT_RUNNER) --rounds-k $(DT_K) $$params $(DT_OUT)/$(DT_NAME).json \
			$(DT_OUT)/$(DT_NAME)-$$v.json || { echo "difftest: $$v guest failed"; \
			echo "0 passed, 1 failed"; exit 1; }; \
		echo "difftest: $$v: $$(( $$(date +%s) - t0 )) s wall (boot included)"; \
		echo "$$v=$$(( $$(date +%s) - t0 ))" >$(DT_OUT)/$(DT_NAME)-$$v.wall; \
	done; \
	$(PYTHON) -m difftest.compare --cases $(DT_OUT)/$(DT_NAME).json \
		--ours $(DT_OUT)/$(DT_NAME)-ours.json --stock $(DT_OUT)/$(DT_NAME)-$(DT_STOCK).json \
		--stock-name $(DT_STOCK) --shrink-out $(DT_OUT)/$(DT_NAME)-shrink.json; \
	shrink=; \
	if [ -s $(DT_OUT)/$(DT_NAME)-shrink.json ]; then \
		for v in ours $(DT_STOCK); do \
			params=; [ $$v != ours ] || params="$(DT_OURS_PARAMS:%=--param %)"; \
			$(REPO)/guest/run --variant $$v --timeout $(DT_TIMEOUT) -- \
				$(PYTHON) $(DT_RUNNER) --rounds-k $(DT_K) $$params $(DT_OUT)/$(DT_NAME)-shrink.json \
				$(DT_OUT)/$(DT_NAME)-shrink-$$v.json || { echo "difftest: $$v shrink guest failed"; \
				echo "0 passed, 1 failed"; exit 1; }; \
		done; \
		shrink="--shrink $(DT_OUT)/$(DT_NAME)-shrink.json"; \
	fi; \
	$(PYTHON) -m difftest.compare --cases $(DT_OUT)/$(DT_NAME).json \
		--ours $(DT_OUT)/$(DT_NAME)-ours.json --stock $(DT_OUT)/$(DT_NAME)-$(DT_STOCK).json \
		--stock-name $(DT_STOCK) $$shrink --tdc-out $(DT_OUT)/$(DT_NAME)-tdc.json \
		--min-verdicts $(DT_MIN_VERDICTS) --cover \
		--wall $$(( $$(date +%s) - start )) $(DT_DOCARG) --final

difftest:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory $(DT_STOCK)-ext
	@$(MAKE) --no-print-directory difftest-run DT_NAME=seed$(DT_SEED)$(DT_VS)$(DT_TAG) \
		DT_DOCARG="--doc $(DT_DOC)"

difftest-smoke:
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory $(DT_STOCK)-ext
	@echo "difftest-smoke: seed $(DT_SMOKE_SEED) (replay: make difftest-smoke DT_SEED=$(DT_SMOKE_SEED)$(if $(DT_VS), DT_STOCK=$(DT_STOCK)))"
	@$(MAKE) --no-print-directory difftest-run DT_NAME=smoke$(DT_VS)$(DT_TAG) \
		DT_SEED=$(DT_SMOKE_SEED) DT_BATCHES=$(DT_SMOKE_BATCHES) \
		DT_FILTERS=$(DT_SMOKE_FILTERS) DT_DOCARG= \
		DT_MIN_VERDICTS=$(DT_SMOKE_MIN_VERDICTS)
