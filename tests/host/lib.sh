#!/bin/bash
# SPDX-License-Identifier: MIT
# Helpers for host tests of `fsagent run` over the fake fstests tree: no VM,
# fsagent as a subreaper. Same ts_* helpers as the VM tests.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"

# host_tree DIR: a copy of the fake tree with a one-section config
host_tree() {
	rm -rf "$1"
	cp -a "$TOP/tests/fake-fstests" "$1"
	printf '[fake]\nFSTYP=xfs\nRESULT_BASE=%s/results\n' "$1" >"$1/local.config"
}

# host_run TREE RESULTS RUN_ID ARGS...: fsagent run, markers kept out of the host's kernel log
host_run() {
	local tree=$1 results=$2 id=$3
	shift 3
	FAKE_KMSG=/dev/null timeout "${HOST_RUN_TIMEOUT:-300}" "$HOSTAGENT" run --fstests "$tree" --results "$results" \
		--config xfs/fake --host-options "$tree/local.config" --section fake --kmsg none \
		--run-id "$id" "$@"
}

# bq BUNDLE FILTER: a jq assertion over the whole bundle (journals folded in)
bq() { bundle_json "$1" | jq -e "$2"; }
