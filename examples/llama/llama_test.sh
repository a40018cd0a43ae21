#!/usr/bin/env bash
# Runs examples/llama built for one policy ($2) and checks its output: BOS and 8 token ids within the
# vocabulary. (That every policy, backend and libtorch decode the same ids is //workloads/llama:llama_test.)
set -euo pipefail
out=$("$1" --tokens=8)
echo "$out"
grep -qF "llama: policy $2, backend " <<<"$out" || { echo "FAIL: wrong policy" >&2; exit 1; }
ids=$(grep "^tokens: " <<<"$out" | sed 's/^tokens: //')
set -- $ids
[[ $# -eq 9 && $1 -eq 1 ]] || { echo "FAIL: expected BOS and 8 tokens, got: $ids" >&2; exit 1; }
for t in "$@"; do (( t >= 0 && t < 32000 )) || { echo "FAIL: token $t outside the vocabulary" >&2; exit 1; }; done
grep -qE "^8 tokens in [0-9.]+ ms" <<<"$out" || { echo "FAIL: no timing line" >&2; exit 1; }
