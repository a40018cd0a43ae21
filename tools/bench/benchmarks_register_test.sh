#!/usr/bin/env bash
# tools/bench/benchmarks_register_test.sh BENCHMARK... — each benchmark binary (tagged "benchmark",
# "manual": `test //...` would not even build them) builds, starts and registers cases.
set -uo pipefail
failures=0
for b in "$@"; do
  out=$("$b" --benchmark_list_tests=true 2>&1)
  rc=$?
  n=$(grep -c . <<<"$out")
  if [[ $rc -ne 0 || $n -eq 0 ]]; then
    echo "FAIL: $(basename "$b"): rc=$rc, $n cases: $out"
    failures=$((failures + 1))
  else
    echo "$(basename "$b"): $n cases"
  fi
done
[[ $failures -eq 0 ]] && echo PASS || exit 1
