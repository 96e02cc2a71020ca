#!/usr/bin/env bash
# The nightly determinism run: builds pstrain and the gates, builds the benchmark corpus, runs every
# gate (gates/*_gate.cpp) in the full profile (PSTRAIN_GATE_PROFILE=full: the 400-utterance
# benchmark corpus and more passes; docs/gates.md) with a fresh ledger, and prints a summary of the
# ledger: per gate its declaration (what it describes) and its checks (what it certified), with
# every failed check's detail.
#
#   scripts/nightly.sh            (BUILD_DIR, default build; JOBS, default nproc)
#
# Exit status: that of the gate run (0 when every gate passed), or the failing build step's.
# The ledger stays in BUILD_DIR/gate-ledger-full.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
LEDGER="$BUILD_DIR/gate-ledger-full.jsonl"

echo "nightly: building pstrain and gate_tests in $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$JOBS" --target pstrain gate_tests

echo "nightly: building the benchmark corpus in $BUILD_DIR/corpus/bench (nothing to do when up to date)"
bash scripts/prepare-bench-corpus.sh "$BUILD_DIR/corpus/bench"

echo "nightly: running the gates, full profile; ledger $LEDGER"
rm -f "$LEDGER"
status=0
PSTRAIN_GATE_PROFILE=full PSTRAIN_GATE_LEDGER="$LEDGER" "$BUILD_DIR/gates/gate_tests" || status=$?

echo
echo "nightly: ledger summary ($LEDGER)"
if [ ! -s "$LEDGER" ]; then
  echo "  the ledger is empty: no gate ran"
  [ "$status" -ne 0 ] || status=2
else
  python3 - "$LEDGER" <<'PY' || { [ "$status" -ne 0 ] || status=1; }
import json, sys
from collections import OrderedDict

gates = OrderedDict()
for number, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    record = json.loads(line)
    gate = gates.setdefault(record["gate"], {"declaration": None, "checks": []})
    if record["record"] == "declaration":
        gate["declaration"] = record
    else:
        gate["checks"].append(record)

failed_total = 0
for name, gate in gates.items():
    d = gate["declaration"]
    checks = gate["checks"]
    failed = [c for c in checks if c["result"] != "pass"]
    failed_total += len(failed)
    helpers = OrderedDict()
    for c in checks:
        helpers[c["helper"]] = helpers.get(c["helper"], 0) + 1
    verdict = "FAIL" if failed else ("PASS" if checks else "NO CHECKS")
    print(f"  {verdict:9} {name}")
    if d:
        print(f"            describes: {d['kind']}, shard counts {d['shard_counts']}, {d['passes']} passes (quick-profile declaration)")
    else:
        print("            describes: (no declaration recorded)")
    print(f"            checked:   {len(checks)} checks, {len(failed)} failed ({', '.join(f'{h} x{n}' for h, n in helpers.items()) or 'none'})")
    for c in failed:
        print(f"            FAILED {c['helper']} {c['subjects']}: {c['detail']}")
print(f"  {len(gates)} gates, {sum(len(g['checks']) for g in gates.values())} checks, {failed_total} failed")
sys.exit(1 if failed_total or any(not g["checks"] for g in gates.values()) else 0)
PY
fi
exit "$status"
