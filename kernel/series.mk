# The patch series in steps (kernel/series/README.md): included from the
# top Makefile (REPO, BUILD, PRISTINE, KERNEL_TARBALL, FLOWER_CONFIG).
#
#   make series-gate        NIPA style, every patch of the series in order on
#                           its own: it applies (git am), checkpatch --strict,
#                           net/sched/cls_flower.o with W=1 and sparse (C=1)
#                           without a warning, kernel-doc, and the same build
#                           for i386 (make walk32's configuration).  Ends with
#                           "N passed, N failed".
#   make series-gate-quick  the cheap part, for the gate stage: applies,
#                           checkpatch --strict, W=1 build (x86-64).
#   make series-refresh     rewrite the last step's diff after kernel/'s
#                           cls_flower.c changed (make series fails until then)
#   make series-expand      every step's files in build/series-steps/NAME/
#   make series-import      the step diffs from (edited) build/series-steps/
#
# The gates check the series as tree/make-series writes it from the
# current kernel/ (into build/series-gate/patches, not build/series, so
# that they never race `make series`); SERIES_GATE_PATCHES=DIR checks the
# patches in DIR instead (a series with a broken patch, say).  Their tree
# and object directories are their own: build/src/series-gate (extracted
# once, the series' files reset from the pristine tree each run),
# build/obj/series-gate and build/obj/series-gate-i386 (configured once,
# then one object rebuilt per patch).

# sparse: the C=1 build of make series-gate
DEB_PACKAGES  += sparse

SG_DIR        := $(BUILD)/series-gate
SG_SRC        := $(BUILD)/src/series-gate
SG_OBJ        := $(BUILD)/obj/series-gate
SG_OBJ32      := $(BUILD)/obj/series-gate-i386
SG_LOCK       := $(BUILD)/.series-gate.lock
SERIES_STEPS  := $(BUILD)/series-steps
SERIES_GATE_PATCHES ?=

.PHONY: series-gate series-gate-quick series-refresh series-expand series-import

# gate LEVEL: the patches (written here unless given), then the checks,
# one run at a time
define series_gate
	@mkdir -p $(SG_DIR)
	$(if $(SERIES_GATE_PATCHES),,@$(REPO)/tree/make-series $(REPO) $(PRISTINE) - $(SG_DIR)/patches >/dev/null || \
		{ echo "series-gate: tree/make-series failed (above): no series to check"; echo "0 passed, 1 failed"; exit 1; })
	@flock -n $(SG_LOCK) true || echo "series-gate: waiting for another series gate ($(SG_LOCK))"
	@flock $(SG_LOCK) $(REPO)/tree/series-check --gate $(1) $(REPO) $(KERNEL_TARBALL) \
		$(PRISTINE) $(or $(SERIES_GATE_PATCHES),$(SG_DIR)/patches) $(SG_SRC) $(SG_OBJ) \
		$(SG_OBJ32) $(FLOWER_CONFIG)
endef

series-gate: tree-pristine
	$(call series_gate,full)

series-gate-quick: tree-pristine
	$(call series_gate,quick)

series-refresh: tree-pristine
	@$(REPO)/tree/make-series --refresh $(REPO) $(PRISTINE)

series-expand: tree-pristine
	@$(REPO)/tree/make-series --expand $(REPO) $(PRISTINE) $(SERIES_STEPS)

series-import: tree-pristine
	@$(REPO)/tree/make-series --import $(REPO) $(PRISTINE) $(SERIES_STEPS)

# --- make series-corpus: each step's module runs the corpus cases of the
# families that exist at that step (kernel/series/families; which cases,
# tdc/series_cases.py), then the 6.1 tree's tc_flower.sh and tc_chains.sh.
# Every step's cls_flower.c (tree/make-series --expand, into
# build/series-corpus/steps: never series-expand's directory, which may
# hold edits) is built as an external module (M=) against build/obj/ours,
# as make stock-ext builds the stock one, with a Kbuild of our own; a step
# with no cls_flower.c but a cls_flower_classic.c (the tree's own flower,
# renamed) is built from that, runs no case, and must pass every TEST.
# Then one guest boot runs the steps in order: rmmod (retried), insmod the
# step's module, check that it is the one answering, run its cases, run
# the two selftests (selftests/in-guest; $(SC_OUT)/STEP.SCRIPT.raw).  A
# step whose source is the previous step's (10-kconfig) is not run again.
# Ends with "N passed, N failed" per step and overall; a step with no case
# selected fails; a TEST OK at a step must stay OK at the later ones, and
# every TEST must be OK at the last step (earlier, "not yet"; the table of
# the first step each passes at: $(SC_OUT)/selftests.md).  SC_STEPS="01
# 02 09" runs some steps (name or number); SC_SHARD=K/N only tdc.py's
# shard K of N of each step's cases (a cheaper run: the shards of one N
# together are the whole run; the selftests, 100-140 s a step, run whole
# in every shard).
SC_DIR        := $(BUILD)/series-corpus
SC_OUT        := $(BUILD)/guest-out/series-corpus
SC_KOBJ       := $(BUILD)/obj/ours
SC_STEPS      ?=
SC_JOBS       ?= 2
SC_TIMEOUT    ?= 7200
SC_SHARD      ?=

.PHONY: series-corpus series-corpus-modules

series-corpus: tree-pristine
	@rm -rf $(SC_DIR)/steps $(SC_OUT); mkdir -p $(SC_DIR) $(SC_OUT)
	@$(REPO)/tree/make-series --expand $(REPO) $(PRISTINE) $(SC_DIR)/steps >/dev/null || { \
		echo "series-corpus: tree/make-series --expand failed (above)"; echo "0 passed, 1 failed"; exit 1; }
	@flock -n $(call kernel_lock,ours) true || echo "series-corpus: waiting for a kernel build ($(call kernel_lock,ours))"
	+@flock $(call kernel_lock,ours) $(MAKE) --no-print-directory series-corpus-modules || { \
		echo "0 passed, 1 failed"; exit 1; }
	@steps=$$(cd $(REPO) && $(PYTHON) -m tdc.series_cases steps $(SC_STEPS)) || exit 1; \
	pairs=; for s in $$steps; do [ -e $(SC_OUT)/$$s.same ] || \
		pairs="$$pairs $$s=$(SC_DIR)/ko/$$s/cls_flower.ko"; done; \
	rc=0; [ -z "$$pairs" ] || $(REPO)/guest/run --no-load-flower --timeout $(SC_TIMEOUT) \
		--console-log $(BUILD)/logs/console-series-corpus.log -- \
		$(PYTHON) -m tdc.series_cases run -J $(SC_JOBS) $(if $(SC_SHARD),--shard $(SC_SHARD)) \
		$(SC_OUT) $$pairs \
		> $(SC_OUT)/guest.out 2>&1 || rc=$$?; \
	grep -E '^(series_cases|guest/run):|^not ok' $(SC_OUT)/guest.out || true; \
	cd $(REPO) && $(PYTHON) -m tdc.series_cases report --guest-rc $$rc \
		$(if $(SC_SHARD),--shard $(SC_SHARD)) $(SC_OUT) $$steps

# Each step's module, under the kernel lock (build/obj/ours must not
# change meanwhile), from its net/sched/cls_flower.c or, in a step that has
# none, from its cls_flower_classic.c (the tree's own flower under another
# name: $(SC_OUT)/NAME.classic says so); the module is cls_flower.ko
# either way, from our own Kbuild (not the step's Makefile).  A step
# whose source is the previous one's gets $(SC_OUT)/NAME.same instead.
series-corpus-modules:
	@set -e; [ -e $(SC_KOBJ)/Module.symvers ] || { echo "series-corpus: build ours first (make kernel)"; exit 1; }; \
	mkdir -p $(SC_OUT); prev=; for s in $$(cd $(REPO) && $(PYTHON) -m tdc.series_cases steps); do \
		rm -f $(SC_OUT)/$$s.same $(SC_OUT)/$$s.classic; classic=; \
		src=$(SC_DIR)/steps/$$s/net/sched/cls_flower.c; \
		[ -e $$src ] || { classic=1; src=$(SC_DIR)/steps/$$s/net/sched/cls_flower_classic.c; }; \
		[ -e $$src ] || { echo "series-corpus: $$s has no net/sched/cls_flower.c nor cls_flower_classic.c"; exit 1; }; \
		if [ -n "$$prev" ] && cmp -s $$src $$prevsrc; then \
			echo $$prev > $(SC_OUT)/$$s.same; continue; fi; \
		[ -z "$$classic" ] || : > $(SC_OUT)/$$s.classic; \
		prev=$$s; prevsrc=$$src; d=$(SC_DIR)/ko/$$s; \
		if [ -e $$d/cls_flower.ko ] && cmp -s $$src $$d/$${src##*/} && \
		   [ $$d/cls_flower.ko -nt $(SC_KOBJ)/Module.symvers ]; then continue; fi; \
		rm -rf $$d; mkdir -p $$d; cp $$src $$d/; \
		{ echo 'obj-m := cls_flower.o'; [ -z "$$classic" ] || \
		  echo 'cls_flower-y := cls_flower_classic.o'; } > $$d/Kbuild; \
		echo "  SERIES  $$s: cls_flower.ko from $${src##*/} (M=, against $(SC_KOBJ))"; \
		$(MAKE) -s -C $(OURS) O=$(SC_KOBJ) M=$$d -j$(JOBS) modules; \
	done
