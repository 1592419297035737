# Differential oracle (difftest/README.md); included from the top Makefile,
# which defines REPO, BUILD, PYTHON, OURS, PRISTINE, kernel_lock, JOBS.
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
#   make stock-ext         the cheap stock variant: the pristine tree's
#                          net/sched/cls_flower.c built as an external
#                          module (kbuild M=) against build/obj/ours, put
#                          in build/mod/stock, with ours' bzImage copied to
#                          build/obj/stock (guest/run --variant stock).
#                          A full `make kernel VARIANT=stock` build there
#                          is left alone and used.
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
STOCK_EXT      := $(BUILD)/ext/stock
STOCK_OBJ      := $(BUILD)/obj/stock
STOCK_MOD      := $(BUILD)/mod/stock
OURS_OBJ       := $(BUILD)/obj/ours

.PHONY: difftest difftest-smoke difftest-run stock-ext stock-ext-locked

stock-ext:
	@mkdir -p $(BUILD)
	@flock -n $(call kernel_lock,ours) true || echo "stock-ext: waiting for a kernel build ($(call kernel_lock,ours))"
	+@flock $(call kernel_lock,ours) flock $(call kernel_lock,stock) \
		$(MAKE) --no-print-directory stock-ext-locked

# A cheap variant's install, shared with make stock-next-ext
# (kernel/stock-series.mk): shell text for a recipe that has set
# krel=<ours' kernel release>.
#   $(call ext_current,OBJ,MOD,FILES): true when OBJ's marker (.stock-ext:
#     the md5 of the bzImage copied there) is newer than ours' bzImage and
#     each of FILES, and MOD holds a cls_flower.ko for $krel
#   $(call ext_install,KO,OBJ,MOD): KO alone (with ours' modules.builtin*
#     and modules.order) in MOD with depmod, replacing MOD whole; ours'
#     bzImage and kernel.release copied to OBJ, the marker written last
ext_current = [ -e $(1)/.stock-ext ] && \
	[ $(1)/.stock-ext -nt $(OURS_OBJ)/arch/x86/boot/bzImage ] && \
	$(foreach f,$(3),[ $(1)/.stock-ext -nt $(f) ] && )\
	[ -e $(2)/lib/modules/$$krel/kernel/net/sched/cls_flower.ko ]
ext_install = rm -rf $(3).new; \
	d=$(3).new/lib/modules/$$krel; mkdir -p $$d/kernel/net/sched; \
	cp $(1) $$d/kernel/net/sched/; \
	for f in modules.builtin modules.builtin.modinfo modules.order; do \
		[ -e $(OURS_OBJ)/$$f ] && cp $(OURS_OBJ)/$$f $$d/ || true; done; \
	depmod -b $(3).new $$krel; \
	rm -rf $(3); mv $(3).new $(3); \
	mkdir -p $(2)/arch/x86/boot $(2)/include/config; \
	cp $(OURS_OBJ)/arch/x86/boot/bzImage $(2)/arch/x86/boot/bzImage; \
	cp $(OURS_OBJ)/include/config/kernel.release $(2)/include/config/; \
	md5sum < $(2)/arch/x86/boot/bzImage > $(2)/.stock-ext

# Up to date when the marker (md5 of the bzImage copied) is newer than
# ours' bzImage and the pristine source; a full stock build (vmlinux in
# build/obj/stock whose bzImage is not the one we copied) is used as it
# is.  Nothing of a (partial) full build is deleted: `make kernel
# VARIANT=stock` overwrites the copy and the mod dir when it runs.
stock-ext-locked: tree-pristine
	@set -e; \
	if [ -e $(STOCK_OBJ)/vmlinux ] && [ -e $(STOCK_MOD) ] && { [ ! -e $(STOCK_OBJ)/.stock-ext ] || \
	   [ "$$(md5sum < $(STOCK_OBJ)/arch/x86/boot/bzImage)" != "$$(cat $(STOCK_OBJ)/.stock-ext)" ]; }; then \
		echo "  STOCK   full VARIANT=stock build in $(STOCK_OBJ): used as is"; exit 0; fi; \
	[ -e $(OURS_OBJ)/arch/x86/boot/bzImage ] || { \
		echo "stock-ext: build ours first (make kernel)"; exit 1; }; \
	krel=$$(cat $(OURS_OBJ)/include/config/kernel.release); \
	if $(call ext_current,$(STOCK_OBJ),$(STOCK_MOD),$(PRISTINE)/net/sched/cls_flower.c); then \
		echo "  STOCK   $(STOCK_MOD) up to date"; exit 0; fi; \
	rm -rf $(STOCK_EXT); mkdir -p $(STOCK_EXT); \
	cp $(PRISTINE)/net/sched/cls_flower.c $(STOCK_EXT)/; \
	echo 'obj-m := cls_flower.o' > $(STOCK_EXT)/Kbuild; \
	$(MAKE) -s -C $(OURS) O=$(OURS_OBJ) M=$(STOCK_EXT) -j$(JOBS) modules; \
	$(call ext_install,$(STOCK_EXT)/cls_flower.ko,$(STOCK_OBJ),$(STOCK_MOD)); \
	echo "  STOCK   $$krel: pristine cls_flower.ko (M=) in $(STOCK_MOD), ours' bzImage in $(STOCK_OBJ)"

# One run: DT_NAME, DT_SEED, DT_BATCHES, DT_FILTERS, DT_DOCARG, DT_STOCK.
difftest-run:
	@mkdir -p $(DT_OUT)
	@start=$$(date +%s); \
	cd $(REPO) && $(PYTHON) -m difftest.gen --seed $(DT_SEED) --batches $(DT_BATCHES) \
		--filters $(DT_FILTERS) --cover --out $(DT_OUT)/$(DT_NAME).json || { \
		echo "0 passed, 1 failed"; exit 1; }; \
	for v in ours $(DT_STOCK); do \
		t0=$$(date +%s); \
		$(REPO)/guest/run --variant $$v --timeout $(DT_TIMEOUT) -- \
			$(PYTHON) $(DT_RUNNER) --rounds-k $(DT_K) $(DT_OUT)/$(DT_NAME).json \
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
			$(REPO)/guest/run --variant $$v --timeout $(DT_TIMEOUT) -- \
				$(PYTHON) $(DT_RUNNER) --rounds-k $(DT_K) $(DT_OUT)/$(DT_NAME)-shrink.json \
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
	@$(MAKE) --no-print-directory difftest-run DT_NAME=seed$(DT_SEED)$(DT_VS) \
		DT_DOCARG="--doc $(DT_DOC)"

difftest-smoke:
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory $(DT_STOCK)-ext
	@echo "difftest-smoke: seed $(DT_SMOKE_SEED) (replay: make difftest-smoke DT_SEED=$(DT_SMOKE_SEED)$(if $(DT_VS), DT_STOCK=$(DT_STOCK)))"
	@$(MAKE) --no-print-directory difftest-run DT_NAME=smoke$(DT_VS) \
		DT_SEED=$(DT_SMOKE_SEED) DT_BATCHES=$(DT_SMOKE_BATCHES) \
		DT_FILTERS=$(DT_SMOKE_FILTERS) DT_DOCARG= \
		DT_MIN_VERDICTS=$(DT_SMOKE_MIN_VERDICTS)
