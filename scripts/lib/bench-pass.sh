# shellcheck shell=bash
# Whole-pass mode of scripts/bench-vs-bw.sh (--pass / MODE=pass): one complete training pass of
# pstrain (train, 1 and 2 jobs) against SphinxTrain's (bw in 1 and 2 parts, then norm). Sourced by
# bench-vs-bw.sh after its checks; uses its CORPUS, MODEL, SET, MANIFEST, NSEN, NGAU, TOPN, WORK, REPS,
# PSTRAIN, BW, BW_TIMEOUT, GNU_TIME, NORM, PASS2VAR and its die, now, median, record_run, per_round
# and minmedmax functions. What is measured and reported: the header of bench-vs-bw.sh.

bench_pass() {
  local frames_in n_utts load_start
  load_start=$(cut -d' ' -f1-3 /proc/loadavg)
  n_utts=$(grep -c . "$CORPUS/$SET.fileids")

  # The two bw passes as scripts, so that GNU time can measure each one as one command.
  local p
  for p in 1 2; do
    st_bw_pass_script "$BW" "$NORM" "$p" "$MODEL" "$CORPUS" "$SET" "$TOPN" "$PASS2VAR" "$BW_TIMEOUT" >"$WORK/bw_pass_$p.sh"
  done

  # run_cmd NAME OUT : one run of command NAME (ps1 ps2 bw1 bw2) into the fresh directory OUT;
  # prints "<wall s> <cpu s> <peak RSS KiB>".
  run_cmd() {
    local name="$1" out="$2" t0 t1 rc=0
    rm -rf "$out"
    mkdir -p "$out"
    local cmd=()
    case "$name" in
      ps1|ps2)
        st_pstrain_pass_args "$MODEL" "$MANIFEST" "$CORPUS" "$out/run" "${name#ps}" "$TOPN" "$PASS2VAR"
        cmd=(timeout "$BW_TIMEOUT" "$PSTRAIN" "${ST_PSTRAIN_PASS_ARGS[@]}") ;;
      bw1|bw2) cmd=(bash "$WORK/bw_pass_${name#bw}.sh" "$out") ;;
    esac
    t0=$(now)
    "$GNU_TIME" -f '%U %S %M' -o "$out/gnu-time" "${cmd[@]}" >"$out/stdout" 2>"$out/stderr" || rc=$?
    t1=$(now)
    [ "$rc" -eq 0 ] || die "$name failed with status $rc (timeout: 124): $(tail -n 5 "$out/stderr" | tr '\n' ' ')"
    awk -v a="$t0" -v b="$t1" 'NR == 1 { printf "%.4f %.2f %d\n", b - a, $1 + $2, $3 }' "$out/gnu-time"
  }

  # Aligned utterance ids of a finished run (sorted), and its input / aligned frames.
  aligned_ids() {
    case "$1" in
      ps*) cat "$2"/run/passes/001/shard-*/worker.log | awk '$1 == "utt>" && $5 != "skipped" { print $3 }' | sort ;;
      bw*) cat "$2"/bw.*.log | awk '$1 == "utt>" && NF == 12 { print $3 }' | sort ;;
    esac
  }
  input_frames() {
    case "$1" in
      ps*) cat "$2"/run/passes/001/shard-*/worker.log | awk '$1 == "utt>" { s += $4 } END { print s + 0 }' ;;
      bw*) cat "$2"/bw.*.log | awk '$1 == "utt>" { s += $4 } END { print s + 0 }' ;;
    esac
  }
  # "<aligned frames> <log-likelihood per frame>" of a finished run.
  pass_totals() {
    case "$1" in
      ps*) awk '/^pass 1:/ { print $3, $5 }' "$2/stdout" ;;
      bw*) cat "$2"/bw.*.log | awk '$1 == "overall>" { f += $3; l += $6 } END { printf "%d %.6f\n", f, (f > 0) ? l / f : 0 }' ;;
    esac
  }
  # What must not change from round to round: pstrain's model bytes, bw's overall> lines.
  result_digest() {
    case "$1" in
      ps*) (cd "$2/run/model" && sha256sum means variances mixture_weights transition_matrices) | sha256sum | cut -c1-16 ;;
      bw*) cat "$2"/bw.*.log | grep '^overall>' | sha256sum | cut -c1-16 ;;
    esac
  }

  local isa cpu_model
  cpu_model=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
  echo "bench-vs-bw --pass: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) CPUs, $cpu_model, load average $load_start"
  echo "corpus $CORPUS ($SET, $n_utts utterances), model $MODEL ($NSEN senones x $NGAU Gaussians, -topn $TOPN), -2passvar $PASS2VAR, $REPS rounds after 1 warm-up round"

  local names=(ps1 bw1 ps2 bw2) name
  declare -A digest frames_of
  # Warm-up round: also the runs whose outputs are compared.
  for name in "${names[@]}"; do
    run_cmd "$name" "$WORK/warm.$name" >/dev/null
    aligned_ids "$name" "$WORK/warm.$name" >"$WORK/warm.$name.aligned"
    digest[$name]=$(result_digest "$name" "$WORK/warm.$name")
    frames_of[$name]="$(input_frames "$name" "$WORK/warm.$name") $(pass_totals "$name" "$WORK/warm.$name")"
  done
  for name in ps2 bw1 bw2; do
    cmp -s "$WORK/warm.ps1.aligned" "$WORK/warm.$name.aligned" ||
      die "ps1 and $name aligned different utterances: $(diff "$WORK/warm.ps1.aligned" "$WORK/warm.$name.aligned" | grep '^[<>]' | head -5 | tr '\n' ' ')"
  done
  local n_aligned
  n_aligned=$(wc -l <"$WORK/warm.ps1.aligned")
  [ "$n_aligned" -gt 0 ] || die "no utterance aligned"
  for name in "${names[@]}"; do
    # input frames and aligned frames must agree; the per-frame log-likelihoods are printed.
    [ "$(echo "${frames_of[$name]}" | cut -d' ' -f1-2)" = "$(echo "${frames_of[ps1]}" | cut -d' ' -f1-2)" ] ||
      die "frame counts differ: ps1 ${frames_of[ps1]}, $name ${frames_of[$name]} (input frames, aligned frames, loglik/frame)"
  done
  frames_in=$(echo "${frames_of[ps1]}" | cut -d' ' -f1)
  local same_bytes="byte-identical"
  for f in means variances mixture_weights transition_matrices; do
    cmp -s "$WORK/warm.ps1/run/model/$f" "$WORK/warm.ps2/run/model/$f" || same_bytes="DIFFERENT ($f differs)"
  done
  isa=$(cat "$WORK"/warm.ps1/run/passes/001/shard-*/telemetry.json 2>/dev/null |
        grep -o '"isa" *: *"[^"]*"' | head -n 1 | sed 's/.*: *"//; s/"$//') || true
  [ -n "$isa" ] || isa=unknown
  echo "same utterances: $n_aligned/$n_utts aligned by all four commands, $frames_in input frames, $(echo "${frames_of[ps1]}" | cut -d' ' -f2) aligned frames"
  echo "log-likelihood per frame: pstrain $(echo "${frames_of[ps1]}" | cut -d' ' -f3) (1 job) $(echo "${frames_of[ps2]}" | cut -d' ' -f3) (2 jobs); bw $(echo "${frames_of[bw1]}" | cut -d' ' -f3) (1 part) $(echo "${frames_of[bw2]}" | cut -d' ' -f3) (2 parts)"
  echo "pstrain models of 1 and 2 jobs: $same_bytes; pstrain ISA level: $isa"

  # The pass time pstrain printed ("pass 1: ..., 2 shards, 1.607 s -> max-passes") and each shard's
  # wall:CPU seconds from its telemetry.json.
  pass_seconds() { st_pass_seconds "$1/stdout"; }
  shard_times() {
    local t out=""
    for t in "$1"/run/passes/001/shard-*/telemetry.json; do
      out="$out$(grep -o '"wall_seconds":[^,]*,"user_cpu_seconds":[^,]*,"system_cpu_seconds":[^,}]*' "$t" |
                  awk -F'[:,]' '{ printf "%.3f:%.3f ", $2, $4 + $6 }')"
    done
    echo "${out% }"
  }
  declare -A walls cpus rsss breakdown
  local r order res wall
  for r in $(seq 1 "$REPS"); do
    if [ $((r % 2)) -eq 1 ]; then order=(ps1 bw1 ps2 bw2); else order=(bw1 ps1 bw2 ps2); fi
    local line="round $r:"
    for name in "${order[@]}"; do
      res=$(run_cmd "$name" "$WORK/run.$name")
      wall=${res%% *}
      [ "$(result_digest "$name" "$WORK/run.$name")" = "${digest[$name]}" ] ||
        die "round $r: $name gave a different result than its warm-up run"
      case "$name" in ps*) breakdown[$name.$r]="$wall / $(pass_seconds "$WORK/run.$name") / $(shard_times "$WORK/run.$name")" ;; esac
      record_run "$name" "$res"
    done
    echo "$line"
  done

  local r1 r2 s_ps s_bw c1 c2
  r1=$(per_round "${walls[bw1]}" "${walls[ps1]}" | minmedmax)
  r2=$(per_round "${walls[bw2]}" "${walls[ps2]}" | minmedmax)
  s_ps=$(per_round "${walls[ps1]}" "${walls[ps2]}" | minmedmax)
  s_bw=$(per_round "${walls[bw1]}" "${walls[bw2]}" | minmedmax)
  c1=$(per_round "${cpus[bw1]}" "${cpus[ps1]}" | minmedmax)
  c2=$(per_round "${cpus[bw2]}" "${cpus[ps2]}" | minmedmax)

  echo
  printf '%-36s %12s %12s %12s %14s\n' command "median wall" "median cpu" "peak RSS" "frames/s"
  local label med_w med_c max_r
  for name in ps1 ps2 bw1 bw2; do
    case "$name" in
      ps1) label="pstrain train --jobs 1" ;;
      ps2) label="pstrain train --jobs 2" ;;
      bw1) label="bw (1 part) + norm" ;;
      bw2) label="bw -npart 2 (2 at once) + norm" ;;
    esac
    med_w=$(echo "${walls[$name]}" | median)
    med_c=$(echo "${cpus[$name]}" | median)
    max_r=$(echo "${rsss[$name]}" | tr ' ' '\n' | grep . | sort -n | tail -n 1)
    printf '%-36s %10.3f s %10.2f s %8.1f MiB %14.0f\n' "$label" "$med_w" "$med_c" \
      "$(awk -v k="$max_r" 'BEGIN { print k / 1024 }')" "$(awk -v f="$frames_in" -v t="$med_w" 'BEGIN { print f / t }')"
  done
  echo
  read -r a b c <<<"$r1"; echo "speed ratio pstrain/bw, 1 job vs 1 part   (bw wall / pstrain wall per round): min $a, median $b, max $c"
  read -r a b c <<<"$r2"; echo "speed ratio pstrain/bw, 2 jobs vs 2 parts (bw wall / pstrain wall per round): min $a, median $b, max $c"
  read -r a b c <<<"$c1"; echo "ratio by CPU time (bw cpu / pstrain cpu per round, less disturbed by other load): 1 proc median $b (min $a, max $c)"
  read -r a b c <<<"$c2"; echo "ratio by CPU time (bw cpu / pstrain cpu per round, less disturbed by other load): 2 proc median $b (min $a, max $c)"
  read -r a b c <<<"$s_ps"; echo "scaling 2 vs 1, pstrain (1-job wall / 2-job wall per round): median $b (min $a, max $c)"
  read -r a b c <<<"$s_bw"; echo "scaling 2 vs 1, bw      (1-part wall / 2-part wall per round): median $b (min $a, max $c)"
  echo "where pstrain's time goes (command wall / pass time pstrain printed / each shard's wall:CPU from telemetry.json, seconds):"
  for r in $(seq 1 "$REPS"); do
    echo "  round $r: jobs 1 ${breakdown[ps1.$r]}; jobs 2 ${breakdown[ps2.$r]}"
  done
  echo "machine: $cpu_model, nproc $(nproc); pstrain ISA level $isa; load average at the start $load_start, at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  read -r a b c <<<"$r1"
  local out1="$b (min $a, max $c)"
  read -r a b c <<<"$r2"
  echo "pass ratio pstrain/bw: 1 proc $out1, 2 proc $b (min $a, max $c)"
}
