# shellcheck shell=bash
# Drop-in mode of scripts/bench-vs-bw.sh (--dropin NPART / MODE=dropin): one SphinxTrain training
# pass as SphinxTrain's own stages run it (all NPART parts of bw at once, as its POSIX queue does,
# then norm), with the stock bw and norm against pstrain's (`pstrain sphinxtrain-bindir`, the
# $CFG_BIN_DIR of docs/sphinxtrain.md). Sourced by bench-vs-bw.sh after its checks; uses its CORPUS,
# MODEL, SET, TOPN, WORK, REPS, PSTRAIN, BW, BW_TIMEOUT, GNU_TIME, NORM, PASS2VAR, NPART and its die,
# now, median, record_run, per_round and minmedmax functions.
#
# One untimed warm-up of each, then REPS rounds, each running the two passes one after the other
# (odd rounds stock first). Each pass runs under GNU time for its CPU time (user + sys of all its
# processes) and its largest process's peak RSS. The script fails unless both aligned the same
# number of frames (the sum of the parts' overall> lines) and every timed run printed the same
# overall> lines as its warm-up. Reported: each pass's median wall and CPU time, the speed ratio
# (stock wall / drop-in wall, and the same by CPU time) as min / median / max over the rounds, the
# machine and the load average. The last line is
#   drop-in ratio pstrain/bw, NPART parts: <median> (min <x>, max <y>)

bench_dropin() {
  local load_start cpu_model
  load_start=$(cut -d' ' -f1-3 /proc/loadavg)
  cpu_model=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')

  "$PSTRAIN" sphinxtrain-bindir "$WORK/bindir" --stock "$(dirname "$BW")" >"$WORK/bindir.log" 2>&1 ||
    die "pstrain sphinxtrain-bindir failed: $(cat "$WORK/bindir.log")"
  st_bw_pass_script "$BW" "$NORM" "$NPART" "$MODEL" "$CORPUS" "$SET" "$TOPN" "$PASS2VAR" "$BW_TIMEOUT" >"$WORK/stock.sh"
  st_bw_pass_script "$WORK/bindir/bw" "$WORK/bindir/norm" "$NPART" "$MODEL" "$CORPUS" "$SET" "$TOPN" "$PASS2VAR" \
    "$BW_TIMEOUT" >"$WORK/dropin.sh"

  # run_pass NAME OUT : one pass (stock or dropin) into the fresh directory OUT; prints
  # "<wall s> <cpu s> <peak RSS KiB>".
  run_pass() {
    local name="$1" out="$2" t0 t1 rc=0
    rm -rf "$out"
    mkdir -p "$out"
    t0=$(now)
    "$GNU_TIME" -f '%U %S %M' -o "$out/gnu-time" bash "$WORK/$name.sh" "$out" >"$out/stdout" 2>"$out/stderr" || rc=$?
    t1=$(now)
    [ "$rc" -eq 0 ] || die "$name pass failed with status $rc: $(tail -n 5 "$out/stderr" | tr '\n' ' ')"
    awk -v a="$t0" -v b="$t1" 'NR == 1 { printf "%.4f %.2f %d\n", b - a, $1 + $2, $3 }' "$out/gnu-time"
  }
  overall_frames() { cat "$1"/bw.*.log | awk '$1 == "overall>" { f += $3 } END { print f + 0 }'; }
  overall_digest() { cat "$1"/bw.*.log | grep '^overall>' | sha256sum | cut -c1-16; }

  echo "bench-vs-bw --dropin $NPART: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) CPUs, $cpu_model, load average $load_start"
  echo "corpus $CORPUS ($SET), model $MODEL (-topn $TOPN), -2passvar $PASS2VAR; $NPART parts at once, then norm; $REPS rounds after 1 warm-up"
  local name
  declare -A digest walls cpus rsss
  for name in stock dropin; do
    run_pass "$name" "$WORK/warm.$name" >/dev/null
    digest[$name]=$(overall_digest "$WORK/warm.$name")
  done
  local frames
  frames=$(overall_frames "$WORK/warm.stock")
  [ "$frames" -gt 0 ] || die "the stock pass aligned no frame"
  [ "$(overall_frames "$WORK/warm.dropin")" = "$frames" ] ||
    die "aligned frames differ: stock $frames, drop-in $(overall_frames "$WORK/warm.dropin")"
  echo "same aligned frames: $frames"

  local r order res
  for r in $(seq 1 "$REPS"); do
    if [ $((r % 2)) -eq 1 ]; then order=(stock dropin); else order=(dropin stock); fi
    local line="round $r:"
    for name in "${order[@]}"; do
      res=$(run_pass "$name" "$WORK/run.$name")
      [ "$(overall_digest "$WORK/run.$name")" = "${digest[$name]}" ] || die "round $r: $name gave other overall> lines than its warm-up"
      record_run "$name" "$res"
    done
    echo "$line"
  done

  echo
  printf '%-40s %12s %12s %12s\n' pass "median wall" "median cpu" "peak RSS"
  for name in stock dropin; do
    printf '%-40s %10.3f s %10.2f s %8.1f MiB\n' "$([ "$name" = stock ] && echo "stock bw x $NPART + norm" || echo "pstrain as bw x $NPART + norm")" \
      "$(echo "${walls[$name]}" | median)" "$(echo "${cpus[$name]}" | median)" \
      "$(echo "${rsss[$name]}" | tr ' ' '\n' | grep . | sort -n | tail -n 1 | awk '{ print $1 / 1024 }')"
  done
  local a b c
  read -r a b c <<<"$(per_round "${cpus[stock]}" "${cpus[dropin]}" | minmedmax)"
  echo "ratio by CPU time (stock cpu / drop-in cpu per round): median $b (min $a, max $c)"
  echo "machine: $cpu_model, nproc $(nproc); load average at the start $load_start, at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  read -r a b c <<<"$(per_round "${walls[stock]}" "${walls[dropin]}" | minmedmax)"
  echo "drop-in ratio pstrain/bw, $NPART parts: $b (min $a, max $c)"
}
