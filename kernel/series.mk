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
# The gates check the series as guest/make-series writes it from the
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
	$(if $(SERIES_GATE_PATCHES),,@$(REPO)/guest/make-series $(REPO) $(PRISTINE) - $(SG_DIR)/patches >/dev/null || \
		{ echo "series-gate: guest/make-series failed (above): no series to check"; echo "0 passed, 1 failed"; exit 1; })
	@flock -n $(SG_LOCK) true || echo "series-gate: waiting for another series gate ($(SG_LOCK))"
	@flock $(SG_LOCK) $(REPO)/guest/series-check --gate $(1) $(REPO) $(KERNEL_TARBALL) \
		$(PRISTINE) $(or $(SERIES_GATE_PATCHES),$(SG_DIR)/patches) $(SG_SRC) $(SG_OBJ) \
		$(SG_OBJ32) $(FLOWER_CONFIG)
endef

series-gate: tree-pristine
	$(call series_gate,full)

series-gate-quick: tree-pristine
	$(call series_gate,quick)

series-refresh: tree-pristine
	@$(REPO)/guest/make-series --refresh $(REPO) $(PRISTINE)

series-expand: tree-pristine
	@$(REPO)/guest/make-series --expand $(REPO) $(PRISTINE) $(SERIES_STEPS)

series-import: tree-pristine
	@$(REPO)/guest/make-series --import $(REPO) $(PRISTINE) $(SERIES_STEPS)
