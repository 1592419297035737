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
#
# SELFTESTS_SET="VAR=VALUE ..." adds lines to the guest's forwarding.config.
# Raw output and logs: build/guest-out/selftests/<variant>/<script>.{raw,log}.

# lib.sh pings (iputils-ping: ping, ping6) and checks offload (ethtool);
# netsniff-ng (mausezahn), jq
# and ncat are in the top Makefile's list.
DEB_PACKAGES   += iputils-ping ethtool

SELFTESTS_RUN  := $(PYTHON) $(REPO)/selftests/run
SELFTESTS_SET  ?=
SELFTESTS_ARGS := $(foreach s,$(SELFTESTS_SET),--set $(s))

.PHONY: selftests selftests-flower selftests-report

selftests:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest VARIANT=stock
	@$(MAKE) --no-print-directory guest VARIANT=ours
	@start=$$(date +%s); \
	$(SELFTESTS_RUN) $(SELFTESTS_ARGS); \
	echo "selftests: $$(( $$(date +%s) - start )) s"

selftests-flower:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest VARIANT=ours
	$(SELFTESTS_RUN) --gate $(SELFTESTS_ARGS)

selftests-report:
	$(SELFTESTS_RUN) --report-only
