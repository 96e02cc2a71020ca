#!/usr/bin/env bash
# How much a pstrain worker slows down when another process runs on the other CPU: the part of a
# 2-job pass's missing speedup that is the two workers sharing the caches and the memory bus
# (docs/performance.md, twenty-fifth round). Shard 0 of 2 of one benchmark model (the worker
# command the coordinator runs, its reader thread included), pinned to CPU 0, is run ROUNDS times
#   alone                 CPU 1 idle;
#   beside compute        `sha256sum /dev/zero` on CPU 1: busy, its memory traffic within its caches;
#   beside memory         `dd if=/dev/zero of=/dev/null bs=64M` on CPU 1: the kernel zeroes a 64 MiB
#                         buffer again and again, a stream of writes to memory;
#   beside its shard 1    the same pass's other worker on CPU 1 (what a 2-job pass runs);
#   beside bw's part 2    SphinxTrain's bw, part 2 of 2 of the same model and corpus, on CPU 1 (what
#                         a 2-part bw pass runs beside its part 1),
# each neighbor started 0.2 s before the worker and stopped after it, the five in turn within each
# round. Prints, per case, the median (min-max) of the worker's wall_seconds (its telemetry.json)
# and the median's ratio to alone.
#
#   scripts/bench-neighbors.sh BENCH_SET MODEL
#
# BENCH_SET   from scripts/prepare-bench-set.sh (BENCH_SET/corpus, BENCH_SET/MODEL)
# MODEL       ci_g1 | ci_g8 | ci_g16 | cd_tied_g8 | cd_tied_2k_g16 (LARGE=1 of prepare-bench-set.sh)
# Environment: ROUNDS (default 5), PSTRAIN (default build/trainer/pstrain), BW (default
# /usr/lib/sphinxtrain/bw). Needs taskset and two CPUs. Exit status 2 on bad arguments or a failed
# run.
set -euo pipefail
# shellcheck source=lib/sphinxtrain-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/sphinxtrain-common.sh"

die() { echo "bench-neighbors: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: scripts/bench-neighbors.sh BENCH_SET MODEL"
SET_DIR=$1 MODEL=$2
ROUNDS=${ROUNDS:-5}
PSTRAIN=${PSTRAIN:-build/trainer/pstrain}
BW=${BW:-/usr/lib/sphinxtrain/bw}
CORPUS=$SET_DIR/corpus
[ -f "$CORPUS/train.manifest" ] || die "$CORPUS/train.manifest is missing (scripts/prepare-bench-set.sh)"
[ -f "$SET_DIR/$MODEL/means" ] || die "$SET_DIR/$MODEL is not a model of the benchmark set"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$ROUNDS'"
[ -x "$PSTRAIN" ] || die "$PSTRAIN is not an executable"
[ -x "$BW" ] || die "$BW is not an executable (the sphinxtrain package)"
command -v taskset >/dev/null || die "taskset is missing (util-linux)"
[ "$(nproc)" -ge 2 ] || die "needs two CPUs, this machine has $(nproc)"
TOPN=$(st_n_density "$SET_DIR/$MODEL/means")
WORK=$(mktemp -d)
NEIGHBOR=""
cleanup() {
  if [ -n "$NEIGHBOR" ]; then
    kill -- -"$NEIGHBOR" 2>/dev/null || kill "$NEIGHBOR" 2>/dev/null || true
    wait "$NEIGHBOR" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
export LC_ALL=C

# The worker of shard $1 of 2 pinned to CPU $2, writing $WORK/shard$1.
worker() {
  local shard=$1 cpu=$2 out=$WORK/shard$1
  rm -rf "$out"
  taskset -c "$cpu" "$PSTRAIN" worker --coordinator-pid 0 --coordinator-syncs yes \
    --model "$SET_DIR/$MODEL" --manifest "$CORPUS/train.manifest" --corpus-root "$CORPUS" \
    --dict "$CORPUS/corpus.dic" --filler "$CORPUS/corpus.filler" --out "$out" --pass 1 \
    --shard "$shard" --shards 2 --reduction exact --cmn batch --varnorm no --topn "$TOPN" \
    --abeam 1e-90 --bbeam 1e-10 --2passvar yes --varfloor 1e-4 --mwfloor 1e-8 --tpfloor 1e-4 \
    --spthresh 0 --retry-beams none >"$WORK/worker$1.out" 2>&1 ||
    die "the worker of shard $shard failed: $(tail -n 3 "$WORK/worker$1.out" | tr '\n' ' ')"
}

# Starts case $1's neighbor on CPU 1 in a process group of its own (NEIGHBOR = its id), its input
# /dev/null.
start_neighbor() {
  case $1 in
    alone) return ;;
    compute) set -m; taskset -c 1 sha256sum /dev/zero </dev/null >/dev/null 2>&1 & NEIGHBOR=$!; set +m ;;
    memory) set -m; taskset -c 1 dd if=/dev/zero of=/dev/null bs=64M count=100000000 </dev/null 2>/dev/null & NEIGHBOR=$!; set +m ;;
    shard1) set -m; (while :; do worker 1 1; done) </dev/null & NEIGHBOR=$!; set +m ;;
    bw)
      st_bw_args "$SET_DIR/$MODEL" "$CORPUS" train "$WORK/bw-accum" "$TOPN" yes
      mkdir -p "$WORK/bw-accum"
      set -m
      (while :; do
         taskset -c 1 "$BW" "${ST_BW_ARGS[@]}" -part 2 -npart 2 >"$WORK/bw.log" 2>&1 ||
           { echo "bench-neighbors: bw failed: $(tail -n 3 "$WORK/bw.log" | tr '\n' ' ')" >&2; exit 1; }
       done) </dev/null &
      NEIGHBOR=$!
      set +m ;;
  esac
  sleep 0.2
  kill -0 "$NEIGHBOR" 2>/dev/null || die "the $1 neighbor did not start"
}

# Stops case $1's neighbor, which must still be running (one that ended during the run fails the
# script: the run was not beside it), and waits until no process of its group is left.
stop_neighbor() {
  [ -n "$NEIGHBOR" ] || return 0
  local pid=$NEIGHBOR status=0 waited=0
  NEIGHBOR=""
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || status=$?
    die "the $1 neighbor ended during the worker's run (status $status)"
  fi
  kill -- -"$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  while kill -0 -- -"$pid" 2>/dev/null; do
    waited=$((waited + 1))
    [ "$waited" -le 500 ] || die "the $1 neighbor's processes did not end within 5 s"
    sleep 0.01
  done
}

CASES=(alone compute memory shard1 bw)
declare -A walls
for round in $(seq 1 "$ROUNDS"); do
  for c in "${CASES[@]}"; do
    start_neighbor "$c"
    worker 0 0
    stop_neighbor "$c"
    wall=$(grep -o '"wall_seconds":[^,}]*' "$WORK/shard0/telemetry.json" | cut -d: -f2) ||
      die "round $round: no wall_seconds in the worker's telemetry.json"
    walls[$c]+="$wall "
  done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'; }
read -r base _ _ <<<"$(echo "${walls[alone]}" | median)"
echo "$MODEL shard 0 of 2 on CPU 0, $ROUNDS rounds ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
for c in "${CASES[@]}"; do
  read -r med lo hi <<<"$(echo "${walls[$c]}" | median)"
  awk -v c="$c" -v m="$med" -v lo="$lo" -v hi="$hi" -v b="$base" \
    'BEGIN { printf "  %-8s wall %.3f s (%.3f-%.3f), %.3f of alone\n", c, m, lo, hi, m / b }'
done
