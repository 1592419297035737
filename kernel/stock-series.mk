# The stock series (kernel/stock-series/, docs/stock-series.md): fixes for
# the pristine tree's net/sched/cls_flower.c, each with its tdc cases in
# tc-tests/filters/flower/stock-fixes.json.  Included from the top
# Makefile, which defines REPO, BUILD, PYTHON, JOBS.
#
#   make stock-series-gate   every patch of kernel/stock-series/series in
#                            order on a copy of the pristine file: it
#                            applies, has a Fixes: tag (or is an RFC,
#                            "[RFC PATCH ...]", without one), checkpatch
#                            --strict at 80 columns, and cls_flower.ko
#                            builds with W=1 and sparse as an external
#                            module against build/obj/ours (as make
#                            stock-ext), into
#                            build/stock-next/step-N/ (step-0: pristine);
#                            build/stock-next/cls_flower.ko is stock-next.
#                            "ok N/M subject" a patch, "N passed, N failed"
#   make stock-series-guest  the gate, then one guest boot (ours' kernel,
#                            cls_flower not loaded at boot) that runs the
#                            case file on each step's module and on ours':
#                            patch N's cases fail before step N and pass
#                            from it on, and all pass on ours.  TAP files
#                            in build/guest-out/stock-series/
#
# Nothing here touches build/obj/<variant> or build/mod/<variant>: the
# modules are built M= against build/obj/ours under its kernel lock.

SS_PY         := $(REPO)/kernel/stock-series/stock_series.py
SS_OUT        := $(BUILD)/guest-out/stock-series
SS_KREL        = $(shell cat $(BUILD)/obj/ours/include/config/kernel.release)
SS_OURS_KO     = $(BUILD)/mod/ours/lib/modules/$(SS_KREL)/kernel/net/sched/cls_flower.ko
SS_TIMEOUT    ?= 1800

.PHONY: stock-series-gate stock-series-guest

stock-series-gate: tree-pristine
	@JOBS=$(JOBS) $(PYTHON) $(SS_PY) gate

stock-series-guest: stock-series-gate
	@n=$$(grep -c . $(REPO)/kernel/stock-series/series); \
	labels=; pairs=; for k in $$(seq 0 $$n); do labels="$$labels step-$$k"; \
		pairs="$$pairs step-$$k=$(BUILD)/stock-next/step-$$k/cls_flower.ko"; done; \
	mkdir -p $(SS_OUT); rc=0; $(REPO)/guest/run --variant ours --no-load-flower --timeout $(SS_TIMEOUT) \
		--console-log $(BUILD)/logs/console-stock-series.log -- \
		$(PYTHON) $(SS_PY) guest $(SS_OUT) $$pairs ours=$(SS_OURS_KO) \
		> $(SS_OUT).log 2>&1 || rc=$$?; \
	grep -E '^(stock-series|guest/run):' $(SS_OUT).log || true; \
	[ $$rc -eq 0 ] || { echo "stock-series-guest: guest/run exited $$rc (see $(SS_OUT).log)"; \
		echo "0 passed, 1 failed"; exit 1; }; \
	$(PYTHON) $(SS_PY) report $(SS_OUT) $$labels ours
