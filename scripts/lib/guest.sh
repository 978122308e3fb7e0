# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# A guest's size for its runners, and how many such guests the host holds:
# sourced by scripts/fsagent-qemu and the scripts that run it
# (fsagent-qualify, fsagent-watch), so that all size a -j guest alike.

# plan_jobs FILE: the plan file's key jobs (the last one given), or nothing
plan_jobs() {
	[ -f "$1" ] || return 0
	sed -n 's/^[[:space:]]*jobs[[:space:]]*=[[:space:]]*\([0-9][0-9]*\)[[:space:]]*$/\1/p' "$1" | tail -n 1
}

# guest_size JOBS CPUS MEMORY CPUS_SET MEMORY_SET: "CPUS MEMORY" of a guest
# with JOBS runners: at least JOBS CPUs and 512 MiB more a runner, each
# unless --cpus or --memory gave it (*_SET 1)
guest_size() {
	local jobs=${1:-1} cpus=$2 memory=$3
	if [ "$jobs" -gt 1 ]; then
		[ "$4" = 1 ] || cpus=$((jobs > cpus ? jobs : cpus))
		[ "$5" = 1 ] || memory=$((memory + 512 * (jobs - 1)))
	fi
	echo "$cpus $memory"
}

# guests_fit CPUS MEMORY: 2 when two guests of that size fit the host's CPUs
# and available memory (256 MiB of QEMU's own each), else 1
guests_fit() {
	local avail_mb
	avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	if [ "$(nproc)" -ge $((2 * $1)) ] && [ "$avail_mb" -ge $((2 * ($2 + 256))) ]; then echo 2; else echo 1; fi
}
