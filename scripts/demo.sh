#!/usr/bin/env bash
# The main job on the bundled default corpus: install dependencies, build, prepare the corpus,
# check it against the committed manifest, train from the shipped an4_ci_cont model until
# converged, print where the model is and its per-pass likelihoods, and audit it: the same
# training with one shard must give the same model bytes (audit bytes, audit compare), the last
# pass's artifacts must reject every mutation (audit mutate), and the gate scope must be current.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
CORPUS=${CORPUS:-$BUILD_DIR/corpus/default}
RUN=${RUN:-runs/default}
MODEL=/usr/share/pocketsphinx/test/data/an4_ci_cont

bash scripts/bootstrap.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target pstrain audit
PSTRAIN="$BUILD_DIR/trainer/pstrain"

bash scripts/prepare-corpus.sh "$CORPUS"
"$PSTRAIN" manifest check manifests/default-train.manifest --corpus-root "$CORPUS" \
  --dict "$CORPUS/corpus.dic" --filler "$CORPUS/corpus.filler"

echo "== training (log: $RUN.log)"
mkdir -p "$(dirname "$RUN")"
"$PSTRAIN" train --model "$MODEL" --manifest manifests/default-train.manifest --corpus-root "$CORPUS" \
  --dict "$CORPUS/corpus.dic" --filler "$CORPUS/corpus.filler" --out "$RUN" --jobs "${JOBS:-2}" | tee "$RUN.log"

echo "== per-pass log-likelihood (from $RUN/passes/*/pass.json)"
for summary in "$RUN"/passes/*/pass.json; do
  python3 - "$summary" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["totals"]
print(f"pass {s['pass']:3d}: {t['log_likelihood_per_frame']:.6f} per frame over {t['total_frames']} frames "
      f"(processed {t['processed']}, retried {t['retried']}, skipped {t['skipped']}) -> {s['stop_decision']}")
PY
done
echo "== held-out word error rate (pocketsphinx_batch)"
echo "starting model: $(bash scripts/decode-wer.sh "$MODEL" "$CORPUS" heldout | tail -n 1)"
echo "trained model:  $(bash scripts/decode-wer.sh "$RUN/model" "$CORPUS" heldout | tail -n 1)"
echo "== model: $(cd "$RUN/model" && pwd)"

echo "== audit: the same training with 1 shard instead of ${JOBS:-2} must give the same model bytes (exact reduction)"
"$PSTRAIN" train --model "$MODEL" --manifest manifests/default-train.manifest --corpus-root "$CORPUS" \
  --dict "$CORPUS/corpus.dic" --filler "$CORPUS/corpus.filler" --out "$RUN-1job" --jobs 1 --quiet > "$RUN-1job.log"
last_pass=$(ls "$RUN/passes" | tail -n 1)
"$BUILD_DIR/auditor/audit" bytes "$RUN/passes/$last_pass/model" "$RUN-1job/passes/$last_pass/model"
echo "== audit compare: the two models side by side (exit 1 = they differ somewhere; the explanation says where and why)"
rc=0
"$BUILD_DIR/auditor/audit" compare "$RUN/model" "$RUN-1job/model" --out "$RUN-compare.html" --format html || rc=$?
"$BUILD_DIR/auditor/audit" compare "$RUN/model" "$RUN-1job/model" | awk '/^differences:/{exit} f||/^result:/{f=1; print}' || true
[ "$rc" -le 1 ] || { echo "audit compare could not compare the models (exit $rc)" >&2; exit 1; }
echo "   (HTML page with the heat map and likelihood curves: $RUN-compare.html)"
echo "== audit mutate: every way of breaking the last pass's artifacts must be rejected by the validator"
"$BUILD_DIR/auditor/audit" mutate "$RUN" | tail -n 4
echo "== audit: what the determinism gates check (audit scope; details in docs/contract.md)"
"$BUILD_DIR/auditor/audit" scope --check docs/contract.md
"$BUILD_DIR/auditor/audit" scope | grep -E '^[0-9]+ gates'
