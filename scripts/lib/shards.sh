# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154,SC2034 # the launcher's variables, set where it sources this
# scripts/fsagent-qemu --shards N: the launcher run once per shard (each its
# own VM and bundle), as many at once as the host's CPUs and memory fit, then
# one merged bundle (fsagent merge) and its report. Sourced by the launcher;
# uses its prog, agent, clean and die.

# shards_run LAUNCHER SHARDS CPUS MEMORY RESULTS ARGS...: ARGS are the
# launcher's own, --shards and --results dropped here. Returns the worst
# shard's exit status (a shard where nothing ran counts as passed; 4 when
# that is every shard), or 3 when a shard did not finish or the merge failed.
shards_run() {
	local self=$1 shards=$2 cpus=$3 memory=$4 results=$5
	shift 5
	local args=() skip=0 nothing a host_cpus avail_mb jobs sdir running worst k rc w merged_id bundles
	local -A pids=()
	for a in "$@"; do
		if [ "$skip" = 1 ]; then skip=0; continue; fi
		case $a in --shards | --results) skip=1; continue ;; esac
		args+=("$a")
	done
	host_cpus=$(nproc)
	avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	jobs=$((host_cpus / cpus))
	[ "$jobs" -le $((avail_mb / (memory + 256))) ] || jobs=$((avail_mb / (memory + 256)))
	[ "$jobs" -ge 1 ] || jobs=1
	[ "$jobs" -le "$shards" ] || jobs=$shards
	sdir=$(mktemp -d "$results/.shards.XXXXXX") || die "cannot create a shard directory in '$results'"
	echo "$prog: $shards shards, $jobs at a time ($host_cpus CPUs, $avail_mb MiB available; $cpus CPUs and $memory MiB each)"
	running=0 worst=0 nothing=0
	# once a minute, where each shard that has begun is (the last test its launcher finished)
	(
		trap 'exit 0' TERM
		while sleep 60; do
			for k in $(seq 1 "$shards"); do
				[ -s "$sdir/$k.log" ] || continue
				w=$(grep -aoE '\[[0-9]+/[0-9]+\] .*' "$sdir/$k.log" | tail -n 1 | clean)
				echo "$(date -u +%H:%M:%S) shard $k/$shards: ${w:-booting}"
			done
		done
	) &
	local ticker=$!
	for k in $(seq 1 "$shards"); do
		if [ "$running" -ge "$jobs" ]; then
			wait -n
			running=$((running - 1))
		fi
		[ -z "$interrupted" ] || break # stopped: no shard more
		"$self" "${args[@]}" --shard "$k/$shards" --results "$sdir/$k" >"$sdir/$k.log" 2>&1 &
		pids[$k]=$!
		running=$((running + 1))
	done
	for k in $(seq 1 "$shards"); do
		[ -n "${pids[$k]:-}" ] || continue
		wait "${pids[$k]}"
		rc=$?
		# a stop's handler cuts wait short while the shard (stopping too) is still there
		while kill -0 "${pids[$k]}" 2>/dev/null; do
			wait "${pids[$k]}"
			rc=$?
		done
		w=$(find "$sdir/$k" -mindepth 2 -maxdepth 2 -name watch.json | head -n 1)
		echo "shard $k/$shards: exit $rc ($( [ -n "$w" ] && jq -r '.final_line // "no final status"' "$w" | clean || echo "no bundle"))"
		# a shard where nothing ran (4) is no failure: the run is, when no shard ran anything
		if [ "$rc" = 4 ]; then nothing=$((nothing + 1)); rc=0; fi
		[ "$rc" -le "$worst" ] || worst=$rc
	done
	kill -TERM "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null
	mapfile -t bundles < <(find "$sdir" -mindepth 3 -maxdepth 3 -name bundle.json -printf '%h\n' | sort)
	if [ "$worst" -ge 2 ] || [ "${#bundles[@]}" -ne "$shards" ]; then
		echo "$prog: ${#bundles[@]} of $shards shards finished; their logs and bundles: $sdir" >&2
		return 3
	fi
	merged_id=$(date -u +%Y%m%dT%H%M%SZ)-shards$shards
	"$agent" merge --into "$results/$merged_id" --run-id "$merged_id" "${bundles[@]}" >/dev/null || {
		echo "$prog: merging the shards failed; their bundles: $sdir" >&2
		return 3
	}
	mv "$sdir" "$results/$merged_id/shards"
	echo
	"$agent" report "$results/$merged_id" 2>&1
	echo "bundle: $results/$merged_id (each shard's bundle and console in shards/)"
	[ "$nothing" -lt "$shards" ] || worst=4
	return "$worst"
}
