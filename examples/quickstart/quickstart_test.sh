#!/usr/bin/env bash
# Checks the output of //examples/quickstart line by line.
set -euo pipefail
out=$("$1")
expect() {
  if ! grep -qF -- "$1" <<<"$out"; then
    echo "missing line: $1"
    echo "--- output ---"
    echo "$out"
    exit 1
  fi
}
expect "41 + 1 = 42"
expect "[1, 42, 1337] squared = tensor([      1.,    1764., 1787569.])"
expect "m + 1.5 = tensor([[2.5000, 3.5000, 4.5000],"
expect "        [5.5000, 6.5000, 7.5000]])"
expect "use_count after copy = 2"
expect "use_count after reset = 1"
expect "ints as double = tensor([1., 2., 3., 4., 5., 6.], dtype=torch.float64)"
expect "view of blob = tensor([2, 3], dtype=torch.int32), deleter ran: false"
expect "after the last view, deleter ran: true"
expect "resize to [2, 2]: ok, now [2, 2]"
expect "resize to [1, 3]: ok, now [1, 3]"
expect "resize to [3, 2]: ok, now [3, 2]"
expect "resize to [6, 1]: ok, now [6, 1]"
expect "resize to [4, 2]: resize: a DYNAMIC_BOUND tensor with capacity 6 elements cannot be resized"
echo "quickstart output OK"
