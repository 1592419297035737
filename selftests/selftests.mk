# The 6.1 tree's forwarding tc selftests in the guest (selftests/run).
# Included from the top Makefile, which defines REPO, PYTHON, DEB_PACKAGES.
#
#   make selftests         tc_flower.sh, tc_chains.sh, tc_shblocks.sh,
#                          tc_actions.sh, tc_police.sh, tc_vlan_modify.sh,
#                          tc_flower_router.sh on ours and on stock, one
#                          guest boot each; writes docs/selftests.md
#   make selftests-flower  gate stage: tc_flower.sh on ours only; ends with
#                          `N passed, N failed` (a SKIP or a test that
#                          printed nothing counts as failed); exit != 0 on
#                          any failure
#   make selftests-report  redo docs/selftests.md from the last raw output
#   make selftests-offload VARIANT=ours|stock|debug
#                          tc_flower.sh's skip_sw pass on the offload test
#                          driver's fltest devices (tc_flower.sh+fltest,
#                          selftests/in-guest) on that kernel; updates its
#                          rows of docs/selftests.md.  Every test counts
#                          packets and the driver forwards nothing: the run
#                          shows the skip_sw filters accepted and offloaded
#                          (the driver's calls in the doc) but those with
#                          `action continue`, which act_gact does not
#                          offload; needs the driver (make offload-drv,
#                          done first)
#   make selftests-port-range VARIANT=ours|stock|debug
#                          upstream's tc_flower_port_range.sh (a newer
#                          tree's; not in 6.1) with 6.1's lib.sh, from
#                          $(UPSTREAM_SELFTESTS) (never the repository:
#                          copy it there from a newer tree's
#                          tools/testing/selftests/net/forwarding);
#                          updates its rows of docs/selftests.md and ends
#                          with `N passed, N failed`, exit != 0 on a failure
#
# SELFTESTS_SET="VAR=VALUE ..." adds lines to the guest's forwarding.config.
# Raw output and logs: build/guest-out/selftests/<variant>/<script>.{raw,log}.

# lib.sh pings (iputils-ping: ping, ping6) and checks offload (ethtool);
# netsniff-ng (mausezahn), jq
# and ncat are in the top Makefile's list.
DEB_PACKAGES   += iputils-ping ethtool

SELFTESTS_RUN  := $(PYTHON) $(REPO)/selftests/run
SELFTESTS_SET  ?=
UPSTREAM_SELFTESTS ?= $(BUILD)/upstream-selftests
SELFTESTS_ARGS := $(foreach s,$(SELFTESTS_SET),--set $(s)) \
                  --upstream-dir $(UPSTREAM_SELFTESTS)

.PHONY: selftests selftests-flower selftests-report selftests-offload \
        selftests-port-range

selftests:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest VARIANT=stock
	@$(MAKE) --no-print-directory guest VARIANT=ours
	@$(MAKE) --no-print-directory offload-drv VARIANT=ours
	@start=$$(date +%s); \
	$(SELFTESTS_RUN) $(SELFTESTS_ARGS); \
	echo "selftests: $$(( $$(date +%s) - start )) s"

selftests-flower:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest VARIANT=ours
	$(SELFTESTS_RUN) --gate $(SELFTESTS_ARGS)

selftests-report:
	$(SELFTESTS_RUN) --report-only $(SELFTESTS_ARGS)

selftests-offload:
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	@$(MAKE) --no-print-directory offload-drv
	$(SELFTESTS_RUN) --variant $(VARIANT) --script tc_flower.sh+fltest \
		$(SELFTESTS_ARGS)

selftests-port-range:
	@test -f $(UPSTREAM_SELFTESTS)/tc_flower_port_range.sh || { \
		echo "selftests-port-range: no $(UPSTREAM_SELFTESTS)/tc_flower_port_range.sh:" \
			"copy it there from a newer kernel tree's" \
			"tools/testing/selftests/net/forwarding"; \
		echo "0 passed, 1 failed"; exit 1; }
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	$(SELFTESTS_RUN) --variant $(VARIANT) --script tc_flower_port_range.sh \
		$(SELFTESTS_ARGS)
	$(SELFTESTS_RUN) --gate --report-only --variant $(VARIANT) \
		--script tc_flower_port_range.sh $(SELFTESTS_ARGS)
