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
# --load=N (testing/bench/load.h, every binary's main): a malformed value is refused with exit 2,
# a good one starts the spinners and the binary runs as usual.
first=$1
"$first" --load=x --benchmark_list_tests=true >/dev/null 2>&1
if [[ $? -ne 2 ]]; then
  echo "FAIL: $(basename "$first") --load=x: expected exit 2"
  failures=$((failures + 1))
fi
loaded=$("$first" --load=1 --benchmark_list_tests=true 2>&1)
if [[ $loaded != *"1 spinning process"* ]]; then
  echo "FAIL: $(basename "$first") --load=1: no spinning process announced"
  failures=$((failures + 1))
fi
[[ $failures -eq 0 ]] && echo PASS || exit 1
