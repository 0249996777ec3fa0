#!/usr/bin/env bash
# make bench: every benchmark beside its baseline, measured in this run on this
# machine; writes docs/bench/latest.md, latest.json and latest.txt (the raw,
# benchstat-readable `go test -bench` output).
#
# Knobs: BENCH_COUNT (default 3: samples of the short benchmarks),
# AGENTK_BENCH_REPLAY_INVESTIGATORS (the replay CPU figure's investigators),
# AGENTK_BENCH_PERSONAS (investigators for the token figures; default every
# scripted persona), AGENTK_BENCH_SCALEOUT (0: skip the scale-out storm, 1 vs 3
# replicas; default 1), AGENTK_BENCH_STORM (its incidents, default 200),
# AGENTK_BENCH_SCALEOUT_PARALLEL (investigations at once in each investigator
# replica of both its runs, default 8), AGENTK_BENCH_CLUSTER (0: the storm over
# one embedded server instead of a three-node cluster), AGENTK_REQUIRE_DOCKER
# (1: the rollback benchmark must run; 0: skip it; unset: run it when an engine
# and docker-compose answer).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GO=${GO:-go}
COUNT=${BENCH_COUNT:-3}
OUT=$ROOT/docs/bench
mkdir -p "$OUT"
RAW=$(mktemp "${TMPDIR:-/tmp}/agentk-bench.XXXXXX")
trap 'rm -f "$RAW"' EXIT
start=$(date +%s)
failed=()

# bench <label> <module dir> <go test args...>: runs one benchmark set,
# appends its output to the raw file and notes a failure (the run goes on).
bench() {
	local label=$1 dir=$2
	shift 2
	echo "== $label ($dir)" >&2
	local t0 step
	t0=$(date +%s)
	step=$(mktemp "${TMPDIR:-/tmp}/agentk-bench-step.XXXXXX")
	(cd "$ROOT/$dir" && $GO test -run '^$' -benchmem "$@") >"$step" 2>&1
	local rc=$?
	cat "$step" >>"$RAW"
	grep -E '^(Benchmark|--- (FAIL|SKIP)|FAIL|ok)|_test.go:' "$step" >&2
	rm -f "$step"
	[ $rc -eq 0 ] || failed+=("$label")
	echo "   $label took $(( $(date +%s) - t0 )) s" >&2
}

bench gate services/gate -bench 'Evaluate|SealDecision' -count "$COUNT" ./internal/policy
bench ingest services/ingester -bench 'Ingest' -benchtime 2000x -count "$COUNT" .
# The floor under the ingest figures: a new incident's writes alone, an HTTP exchange alone;
# BenchmarkFloorRatio, the ingester against them interleaved in one run (issue 36's targets).
bench ingest-floor services/ingester -bench 'Floor' -benchtime 2000x -count "$COUNT" .
bench storm services/ingester -bench 'Storm' -benchtime 1x -count "$COUNT" .
bench compaction services/sandbox -bench 'CompactionCorpus' -benchtime 1x -count 1 ./internal/tools
bench pipeline e2e -bench 'Pipeline$' -benchtime 50x -count 1 ./bench
# Latencies injected: each incident waits about 3.5 s on SigNoz and the model.
bench pipeline-latency e2e -bench 'PipelineLatency' -benchtime 5x -count 1 ./bench

# The scale-out storm: 200 incidents through 1 and then 3 replicas of every
# stateless service over a three-node cluster in this process, each
# investigator replica running 8 investigations at once (3.7 s each with
# latencies injected: 25 rounds through one replica, 9 through three). The
# step took 217-302 s at load 10-22 (drains 108-133 s and 47-90 s); about
# 170 s at idle by estimate (not yet measured there).
if [ "${AGENTK_BENCH_SCALEOUT:-1}" = 1 ]; then
	bench scale-out e2e -bench 'ScaleOut' -benchtime 1x -count 1 -timeout 30m ./bench
fi

# CPU per replay (issue 36): the corpus replayed as `agentk eval` does,
# beside each replay on its own as before (its own fake SigNoz telemetry, its
# NATS store on the disk's temporary folder). AGENTK_BENCH_REPLAY_INVESTIGATORS
# (default rules,persona:oracle,persona:liar) sets the investigators.
bench replay-cpu e2e -bench 'ReplayCPU' -benchtime 1x -count 1 -timeout 30m ./bench

# Issue 36's figure: a whole `agentk eval` process's CPU per replay (corpus
# loading included), this tree's agentk beside the agentk of
# AGENTK_BENCH_EVAL_BASE_REV (default a18468e, the commit before issue 36's
# work: the issue's "today"), both built here, run in turn on the same corpus
# and investigators. A tree without that commit (a shallow clone) skips it.
EVALBIN=$(mktemp -d "${TMPDIR:-/tmp}/agentk-bench-eval.XXXXXX")
trap 'rm -f "$RAW"; rm -rf "$EVALBIN"' EXIT
base_rev=${AGENTK_BENCH_EVAL_BASE_REV:-a18468e}
mkdir -p "$EVALBIN/base-src"
if (cd "$ROOT/services/agentk" && $GO build -o "$EVALBIN/head" .) &&
	git -C "$ROOT" archive "$base_rev" | tar -x -C "$EVALBIN/base-src" &&
	(cd "$EVALBIN/base-src/services/agentk" && $GO build -o "$EVALBIN/base" .); then
	AGENTK_BENCH_EVAL_HEAD=$EVALBIN/head AGENTK_BENCH_EVAL_BASE=$EVALBIN/base \
		bench eval-cpu e2e -bench 'EvalCPU' -benchtime 1x -count 1 -timeout 30m ./bench
else
	echo "== eval-cpu: could not build agentk here and at $base_rev; skipped" >&2
	failed+=("eval-cpu (build)")
fi

# Tokens do not depend on time: the replays' NATS stores go to memory when
# /dev/shm is there, which makes the corpus pass several times shorter.
personas=${AGENTK_BENCH_PERSONAS:-persona:oracle,persona:liar,persona:fabricator,persona:injected,persona:wrong,persona:flaky}
shm=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && shm=/dev/shm
TMPDIR=$shm AGENTK_BENCH_PERSONAS=$personas AGENTK_BENCH_PARALLEL=${AGENTK_BENCH_PARALLEL:-2} \
	bench tokens e2e -bench 'Tokens' -benchtime 1x -count 1 -timeout 30m ./bench

docker_on=${AGENTK_REQUIRE_DOCKER:-}
if [ -z "$docker_on" ]; then
	if docker info >/dev/null 2>&1 && { command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1; }; then
		docker_on=1
	else
		docker_on=0
		echo "== rollback: no Docker engine or compose; skipped (AGENTK_REQUIRE_DOCKER=1 makes that a failure)" >&2
	fi
fi
if [ "$docker_on" = 1 ]; then
	# COUNT pairs (deployer, bare compose), interleaved: as many Docker runs
	# as COUNT samples of each, with load changes weighing on both alike.
	AGENTK_REQUIRE_DOCKER=1 bench rollback services/deployer -bench 'Rollback' -benchtime "${COUNT}x" -count 1 -timeout 20m ./internal/dockerrt
fi

elapsed=$(( $(date +%s) - start ))
cp "$RAW" "$OUT/latest.txt"
(cd "$ROOT/e2e" && $GO run ./bench/cmd/benchdoc -raw "$RAW" -md "$OUT/latest.md" -json "$OUT/latest.json" \
	-elapsed "$elapsed" -go "$($GO env GOVERSION)") || failed+=("benchdoc")
echo "make bench took ${elapsed} s; wrote docs/bench/latest.md, latest.json, latest.txt" >&2
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED: ${failed[*]}" >&2
	exit 1
fi
