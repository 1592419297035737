# The flower corpus under the tdc.py that linux-source-6.1 ships
# (tdc/tdc61.py), in the guest.  Included from the top Makefile, which
# defines REPO, BUILD, PYTHON, PRISTINE, VARIANT and variant_guest.
#
#   make tdc61          every file of tc-tests/filters/flower under
#                       build/src/pristine's tools/testing/selftests/
#                       tc-testing/tdc.py with its own plugins (read from
#                       the tree, never copied into the repo): one
#                       `tdc.py -c flower -d dummy0 -f FILE` per file, FLNL
#                       defined in its tdc_config_local.py; ends with
#                       `N passed, N failed` (a skip counts as failed).
#                       The offload test driver is built first (make
#                       offload-drv): the run loads it before offload.json,
#                       whose cases insmod it by a repository-relative path
#                       that 6.1's tdc.py, running from its own directory,
#                       does not find.
#                       VARIANT=stock: the stock cls_flower module.  About
#                       an hour and a half in the emulated guest.
#   make tdc61-smoke    gate stage: the files of TDC61_SMOKE_FILES only, on
#                       ours (a few minutes)
#   make tdc61-recheck TDC61_RECHECK=FILES
#                       those case files again (VARIANT=ours|stock), into
#                       build/guest-out/tdc61/<variant>-recheck: after a
#                       change to some files, their results at the new
#                       commit take the full run's place in the report,
#                       which names both commits
#   make tdc61-report   docs/tdc61.md from the last `make tdc61` on ours
#                       and on stock (and their rechecks), naming the
#                       commit measured (`git rev-parse --short HEAD` when
#                       the run started)
#   make tdc-upstream   every file under upstream's newest tdc.py instead:
#                       TDC_UPSTREAM_TREE's tools/testing/selftests/
#                       tc-testing (default build/upstream-tdc, assembled
#                       from upstream's files, its PROVENANCE file says
#                       how: there is no newer tree here, and the runner is
#                       never copied into the repo), the same way as make
#                       tdc61, in TDC_UPSTREAM_PARTS guests at once over
#                       the files dealt out in turn (about 40 min with 2);
#                       each part ends with `N passed, N failed`, and so
#                       does the target, over all parts
#   make tdc-upstream-report
#                       docs/tdc-upstream.md from the last make
#                       tdc-upstream (its parts merged), naming the commit
#                       measured and quoting the runner's PROVENANCE
#
# Output: build/guest-out/tdc61/<variant>/ (6.1's TAP and output per
# file, results.json) and build/guest-out/tdc61/<variant>.out (the run's
# report); the smoke's in build/guest-out/tdc61/smoke/.

TDC61_OUT         := $(BUILD)/guest-out/tdc61
TDC61_CASES       := tc-tests/filters/flower
# hand-written cases ($FLNL ones among them), exact dumps, packets counted
# against subset matches, and a theme whose setups make veths, a VXLAN
# and a Geneve device and addresses in the namespace the cases share
TDC61_SMOKE_FILES := basic.json keys-ipv4.json packets-tcp_flags.json \
                     keys-enc.json
TDC61_RUN         := $(PYTHON) -m tdc.tdc61 run

.PHONY: tdc61 tdc61-smoke tdc61-recheck tdc61-report tdc-upstream \
        tdc-upstream-part tdc-upstream-report

TDC_UPSTREAM_TREE  ?= $(BUILD)/upstream-tdc
TDC_UPSTREAM_PARTS ?= 2
TDC_UPSTREAM_OUT   := $(BUILD)/guest-out/upstream-tdc
# part K of TDC_UPSTREAM_PARTS: the Kth file, then every Nth after it
tdc_upstream_part   = $(shell ls $(REPO)/$(TDC61_CASES)/*.json | \
                        awk 'NR % $(TDC_UPSTREAM_PARTS) == $(1) % \
                             $(TDC_UPSTREAM_PARTS)' | sed 's|^$(REPO)/||')

# the commit measured, and whether the corpus or the harness differed
# from it (the top Makefile's measured_commit)
tdc61_commit = $(call measured_commit,$(TDC61_OUT)/$(1)/commit,\
                        tc-tests tdc tcgen)

tdc61:
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	@$(MAKE) --no-print-directory offload-drv
	$(call tdc61_commit,$(VARIANT))
	cd $(REPO) && ./guest/run --variant $(VARIANT) --timeout 14400 -- \
		$(TDC61_RUN) --out $(TDC61_OUT)/$(VARIANT) $(TDC61_CASES) \
		| tee $(TDC61_OUT)/$(VARIANT).out

tdc61-smoke:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest VARIANT=ours
	$(call tdc61_commit,smoke)
	cd $(REPO) && ./guest/run --variant ours --timeout 1800 -- \
		$(TDC61_RUN) --out $(TDC61_OUT)/smoke \
		$(addprefix $(TDC61_CASES)/,$(TDC61_SMOKE_FILES))

tdc61-recheck:
	@test -n "$(TDC61_RECHECK)" || { echo "tdc61-recheck: name the files: TDC61_RECHECK=\"FILE...\""; exit 2; }
	$(variant_guest)
	@$(MAKE) --no-print-directory offload-drv
	$(call tdc61_commit,$(VARIANT)-recheck)
	cd $(REPO) && ./guest/run --variant $(VARIANT) --timeout 14400 -- \
		$(TDC61_RUN) --out $(TDC61_OUT)/$(VARIANT)-recheck $(TDC61_RECHECK) \
		| tee $(TDC61_OUT)/$(VARIANT)-recheck.out

tdc61-report:
	cd $(REPO) && $(PYTHON) -m tdc.tdc61 report --ours $(TDC61_OUT)/ours \
		$$([ -e $(TDC61_OUT)/stock/results.json ] && \
			echo --stock $(TDC61_OUT)/stock) \
		$$(for v in ours stock; do [ -e $(TDC61_OUT)/$$v-recheck/results.json ] && \
			echo --recheck-$$v $(TDC61_OUT)/$$v-recheck; done) \
		--out $(REPO)/docs/tdc61.md

tdc-upstream:
	@test -e $(TDC_UPSTREAM_TREE)/tools/testing/selftests/tc-testing/tdc.py || { \
		echo "tdc-upstream: no runner in $(TDC_UPSTREAM_TREE) (TDC_UPSTREAM_TREE=DIR: a tree with tools/testing/selftests/tc-testing/tdc.py)"; exit 2; }
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	@$(MAKE) --no-print-directory offload-drv
	@rm -rf $(TDC_UPSTREAM_OUT)/$(VARIANT)-*
	@for k in $$(seq 1 $(TDC_UPSTREAM_PARTS)); do \
		$(MAKE) --no-print-directory tdc-upstream-part TDC_UPSTREAM_K=$$k & \
		sleep 20; done; wait
	cd $(REPO) && $(PYTHON) -m tdc.tdc61 total $(foreach k,$(shell seq 1 \
		$(TDC_UPSTREAM_PARTS)),$(TDC_UPSTREAM_OUT)/$(VARIANT)-$(k))

# one part (the 20 s between the boots keeps them from contending)
tdc-upstream-part:
	$(call measured_commit,$(TDC_UPSTREAM_OUT)/$(VARIANT)-$(TDC_UPSTREAM_K)/commit,\
		tc-tests tdc tcgen)
	cd $(REPO) && ./guest/run --variant $(VARIANT) --timeout 14400 -- \
		$(TDC61_RUN) --tree $(TDC_UPSTREAM_TREE) \
		--out $(TDC_UPSTREAM_OUT)/$(VARIANT)-$(TDC_UPSTREAM_K) \
		$(call tdc_upstream_part,$(TDC_UPSTREAM_K)) \
		>$(TDC_UPSTREAM_OUT)/$(VARIANT)-$(TDC_UPSTREAM_K).out 2>&1 || true

tdc-upstream-report:
	cd $(REPO) && $(PYTHON) -m tdc.tdc61 report --tree $(TDC_UPSTREAM_TREE) \
		--ours $$(ls -d $(TDC_UPSTREAM_OUT)/ours-* | grep -v '\.out$$') \
		--out $(REPO)/docs/tdc-upstream.md
