# Open vSwitch's tc offload on our flower (ovs/README.md).  Included from
# the top Makefile, which defines REPO, BUILD, PYTHON, DEB_PACKAGES.
#
#   make ovs         the scenarios (start, L2, L3/L4, conntrack, VXLAN and
#                    Geneve) on ours and on stock (make stock-ext), one
#                    guest boot each; writes docs/ovs.md; exit != 0 if any
#                    check fails on ours (stock's results are data)
#   make ovs-smoke   gate stage: start, L2 and L3/L4 on ours only, a few
#                    minutes; ends with `N passed, N failed` (checks; a
#                    SKIP counts as failed); exit != 0 on any failure
#   make ovs-report  redo docs/ovs.md from the last make ovs run
#
# Output: build/guest-out/ovs/<variant>.{json,out} and <variant>/ (the
# ovs-vswitchd and ovsdb-server logs).

# ovs-vswitchd, ovsdb-server and ovs-vsctl/-ofctl/-appctl: the guest runs
# the host's binaries (it chroots into the host root); OVS is only ever
# started in the guest.
DEB_PACKAGES   += openvswitch-switch

OVS_OUT        := $(BUILD)/guest-out/ovs
OVS_DOC        := $(REPO)/docs/ovs.md
OVS_RUN        := $(PYTHON) -m ovs.scenarios
OVS_TIMEOUT    ?= 1500
OVS_SMOKE_TIMEOUT ?= 600
OVS_SUMMARY_RE := ^[0-9]+ passed, [0-9]+ failed$$

.PHONY: ovs ovs-smoke ovs-report

ovs:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory stock-ext
	@mkdir -p $(OVS_OUT)
	$(call measured_commit,$(OVS_OUT)/commit,kernel ovs)
	@rc=0; walls=; \
	for v in ours stock; do \
		rm -rf $(OVS_OUT)/$$v.json $(OVS_OUT)/$$v; \
		t0=$$(date +%s); st=0; \
		$(REPO)/guest/run --variant $$v --timeout $(OVS_TIMEOUT) -- \
			$(OVS_RUN) --json $(OVS_OUT)/$$v.json --logs $(OVS_OUT)/$$v all \
			2>&1 | tee $(OVS_OUT)/$$v.out || st=$$?; \
		took=$$(( $$(date +%s) - t0 )); walls="$$walls --wall $$v=$$took"; \
		echo "ovs: $$v: guest exit $$st, $$took s wall (boot included)"; \
		if [ $$v = ours ] && [ $$st != 0 ]; then rc=1; fi; \
	done; \
	echo "$$walls" > $(OVS_OUT)/walls; \
	cd $(REPO) && $(PYTHON) -m ovs.report --ours $(OVS_OUT)/ours.json \
		--stock $(OVS_OUT)/stock.json --out $(OVS_DOC) $$walls \
		--commit $(OVS_OUT)/commit; \
	exit $$rc

ovs-report:
	cd $(REPO) && $(PYTHON) -m ovs.report --ours $(OVS_OUT)/ours.json \
		--stock $(OVS_OUT)/stock.json --out $(OVS_DOC) \
		$$(cat $(OVS_OUT)/walls 2>/dev/null) --commit $(OVS_OUT)/commit

ovs-smoke:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest
	@mkdir -p $(OVS_OUT)
	@rm -rf $(OVS_OUT)/smoke.json $(OVS_OUT)/smoke; \
	t0=$$(date +%s); st=0; \
	$(REPO)/guest/run --timeout $(OVS_SMOKE_TIMEOUT) -- \
		$(OVS_RUN) --json $(OVS_OUT)/smoke.json --logs $(OVS_OUT)/smoke l2 l3l4 \
		2>&1 | tee $(OVS_OUT)/smoke.out || st=$$?; \
	echo "ovs-smoke: guest exit $$st, $$(( $$(date +%s) - t0 )) s wall (boot included)"; \
	sum=$$(grep -E '$(OVS_SUMMARY_RE)' $(OVS_OUT)/smoke.out | tail -n 1); \
	if [ -z "$$sum" ]; then sum="0 passed, 1 failed"; \
	elif [ $$st != 0 ] && [ "$${sum#* passed, }" = "0 failed" ]; then \
		sum="$${sum%% passed*} passed, 1 failed"; fi; \
	echo "$$sum"; \
	[ $$st = 0 ] && [ "$${sum#* passed, }" = "0 failed" ]
