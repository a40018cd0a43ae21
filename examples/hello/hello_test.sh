#!/usr/bin/env bash
# Runs examples/hello built for one policy ($2) and checks what it prints.
set -euo pipefail
out=$("$1")
echo "$out"
expect() {
  grep -qF -- "$1" <<<"$out" || { echo "FAIL: expected a line with: $1" >&2; exit 1; }
}
expect "custody hello: policy $2, backend "
expect "x = tensor([[0., 1., 2.],"
expect "x @ x.t() = tensor([[ 5., 14.],"
expect "        [14., 50.]])"
expect "rows of softmax sum to 2"
expect "live tensors after release: 0"
