#!/usr/bin/env bash
# examples/hybrid_llama decodes the pure scope policy's tokens, and each token's scope gives back
# everything it made (no more live tensors than after set-up).
set -euo pipefail
out=$("$1")
echo "$out"
grep -q "same tokens as scope: yes" <<<"$out" || { echo "FAIL: tokens differ"; exit 1; }
grep -q "live tensors after 16 tokens: 0 more than after set-up" <<<"$out" || { echo "FAIL: tensors left"; exit 1; }
