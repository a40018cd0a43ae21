#!/usr/bin/env bash
# tests/lists/lists_test.sh --policies=a,b --backends=x,y --idioms=A,B IDIOMS COMPARE STRESS
#     POLICY_BENCHMARK FAILURE FUZZ...
# Runs each tool in a cheap listing mode and checks every policy (on every host backend) is there.
set -uo pipefail

policies="${1#--policies=}"; backends="${2#--backends=}"; idioms="${3#--idioms=}"
idioms_test="$4"; compare="$5"; stress="$6"; bench="$7"; failure="$8"; shift 8
fuzzers=("$@")
IFS=, read -r -a P <<<"$policies"
IFS=, read -r -a B <<<"$backends"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

# README's idioms: one TEST(Idioms, <CamelCase policy>) per policy users choose from.
"$idioms_test" --gtest_list_tests >"$tmp/idioms.txt" 2>&1 || fail "idioms_test --gtest_list_tests failed"
IFS=, read -r -a I <<<"$idioms"
for i in "${I[@]}"; do
  grep -Eq "^  $i\$" "$tmp/idioms.txt" || fail "examples/idioms: no TEST(Idioms, $i) for README"
done

# The compare tool: each workload on each backend has a contender of each policy ("p" or "p:mode").
if ! "$compare" --list_contenders --all_backends >"$tmp/compare.txt" 2>"$tmp/compare.err"; then
  fail "compare_all_policies --list_contenders failed: $(cat "$tmp/compare.err")"
fi
lines=$(wc -l <"$tmp/compare.txt")
[[ "$lines" -ge "${#B[@]}" ]] || fail "compare listed $lines workload lines for ${#B[@]} backends"
for b in "${B[@]}"; do
  grep -q "^$b/" "$tmp/compare.txt" || fail "compare: no workload on backend $b"
done
while read -r line; do
  for p in "${P[@]}"; do
    [[ " ${line#*:} " =~ \ $p(:[a-z_0-9A-Z]+)?\  ]] || fail "compare: no contender of $p in '$line'"
  done
done <"$tmp/compare.txt"

# The stress test: one thread per (policy, backend) pair, each doing iterations (the binary fails
# when a pair with a thread completed none).
"$stress" --seconds=1 --threads="$((${#P[@]} * ${#B[@]}))" >"$tmp/stress.txt" 2>&1 ||
  fail "stress failed: $(cat "$tmp/stress.txt")"
for p in "${P[@]}"; do
  grep -Eq "^$p: [1-9][0-9]* iterations$" "$tmp/stress.txt" || fail "stress: no iterations of $p"
done
for b in "${B[@]}"; do
  grep -Eq "^on $b: [1-9][0-9]* iterations$" "$tmp/stress.txt" || fail "stress: no iterations on $b"
  grep -Eq "^left on $b: 0 tensors, 0 bytes$" "$tmp/stress.txt" || fail "stress: something left on $b"
done

# The benchmarks: policy_benchmark registers every case for every policy on every host backend.
"$bench" --benchmark_list_tests=true >"$tmp/bench.txt" 2>&1 || fail "policy_benchmark --benchmark_list_tests failed"
for b in "${B[@]}"; do
  for p in "${P[@]}"; do
    grep -q "/$p:$b" "$tmp/bench.txt" || fail "policy_benchmark: nothing registered for $p:$b"
  done
done

# Failure injection: every workload under every policy on every host backend.
"$failure" >"$tmp/failure.txt" 2>&1 || fail "failure_injection_test failed: $(tail -20 "$tmp/failure.txt")"
for w in mlp llama ops; do
  for p in "${P[@]}"; do
    for b in "${B[@]}"; do
      grep -q "^$w under $p on $b: " "$tmp/failure.txt" || fail "failure injection: $w never ran under $p on $b"
    done
  done
done

# The fuzzers: one target per policy (Bazel built them: each must exist and be executable), each
# running programs on every host backend (CUSTODY_FUZZ_LIST_BACKENDS=1: tests/fuzz/lifetime_fuzz.h
# prints them and exits).
for p in "${P[@]}"; do
  found=0
  for f in "${fuzzers[@]}"; do
    [[ "$(basename "$f")" == "lifetime_${p}_fuzz_test" && -x "$f" ]] && found=1
  done
  [[ "$found" == 1 ]] || fail "no lifetime fuzzer for $p"
done
for f in "${fuzzers[@]}"; do
  name="$(basename "$f")"
  if ! CUSTODY_FUZZ_LIST_BACKENDS=1 "$f" >"$tmp/$name.txt" 2>&1; then
    fail "$name with CUSTODY_FUZZ_LIST_BACKENDS=1 failed: $(tail -5 "$tmp/$name.txt")"
    continue
  fi
  for b in "${B[@]}"; do
    grep -q "^lifetime fuzz backend: $b\$" "$tmp/$name.txt" || fail "$name: programs never run on backend $b"
  done
done

echo "checked ${#P[@]} policies (${P[*]}) on ${#B[@]} host backends (${B[*]})"
if [[ "$failures" -gt 0 ]]; then
  echo "$failures failures"
  exit 1
fi
echo PASS
