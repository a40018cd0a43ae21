#!/usr/bin/env bash
# Runs examples/mlp built for one policy ($2): it must pass its accuracy bar and give every tensor back.
set -euo pipefail
out=$("$1")
echo "$out"
grep -qF "mlp: policy $2, backend " <<<"$out" || { echo "FAIL: wrong policy" >&2; exit 1; }
line=$(grep -F "passed the accuracy bar 0.90 after" <<<"$out") || { echo "FAIL: bar not passed" >&2; exit 1; }
accuracy=$(sed -E 's/.*\(accuracy ([0-9.]+)\).*/\1/' <<<"$line")
awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.90) }' || { echo "FAIL: accuracy $accuracy < 0.90" >&2; exit 1; }
grep -qF "live tensors after finish: 0" <<<"$out" || { echo "FAIL: tensors left after finish" >&2; exit 1; }
