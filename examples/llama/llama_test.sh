#!/usr/bin/env bash
# examples/llama/llama_test.sh EXAMPLE POLICY LIBTORCH_TOKENS — runs examples/llama built for one
# policy and checks its output: the policy, BOS and 8 token ids equal to those plain libtorch decodes
# with the same seeded weights (LIBTORCH_TOKENS), and the timing line.
set -euo pipefail
out=$("$1" --tokens=8)
echo "$out"
grep -qF "llama: policy $2, backend " <<<"$out" || { echo "FAIL: wrong policy" >&2; exit 1; }
got=$(grep "^tokens: " <<<"$out") || { echo "FAIL: no tokens line" >&2; exit 1; }
want=$("$3" --tokens=8)
[[ "$got" == "$want" ]] || { echo "FAIL: $got, but libtorch decodes $want" >&2; exit 1; }
set -- ${got#tokens: }
[[ $# -eq 9 && $1 -eq 1 ]] || { echo "FAIL: expected BOS and 8 tokens, got: $got" >&2; exit 1; }
grep -qE "^8 tokens in [0-9.]+ ms" <<<"$out" || { echo "FAIL: no timing line" >&2; exit 1; }
