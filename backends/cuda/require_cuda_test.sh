#!/usr/bin/env bash
# CUSTODY_REQUIRE_CUDA=1 (testing/device.h, set by tools/gpu's launcher) turns a CUDA test's "no device"
# skip into a failure; without it the same binary skips and passes. Run on the real
# device_allocator_test binary. On a machine with a GPU the binary must pass with the variable set.
#   require_cuda_test.sh DEVICE_ALLOCATOR_TEST
set -uo pipefail
bin=$1
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/require_cuda.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if command -v nvidia-smi >/dev/null && [[ $(nvidia-smi -L 2>/dev/null) == *"GPU "* ]]; then
  CUSTODY_REQUIRE_CUDA=1 "$bin" >"$tmp/gpu.log" 2>&1 || fail "a GPU is listed, yet: $(tail -n 20 "$tmp/gpu.log")"
  echo "require_cuda_test: a GPU is present; the binary passes under CUSTODY_REQUIRE_CUDA=1"
  exit 0
fi

# No GPU: skipped, and exit 0, by default.
rc=0; env -u CUSTODY_REQUIRE_CUDA "$bin" --gtest_output="xml:$tmp/skip.xml" >"$tmp/skip.log" 2>&1 || rc=$?
((rc == 0)) || fail "without CUSTODY_REQUIRE_CUDA the tests should skip: exit $rc: $(tail -n 20 "$tmp/skip.log")"
grep -q 'result="skipped"' "$tmp/skip.xml" || fail "no skipped case in $(cat "$tmp/skip.xml")"
grep -q '<failure' "$tmp/skip.xml" && fail "a failure without CUSTODY_REQUIRE_CUDA"

# With it: every case fails, saying why.
rc=0; CUSTODY_REQUIRE_CUDA=1 "$bin" --gtest_output="xml:$tmp/req.xml" >"$tmp/req.log" 2>&1 || rc=$?
((rc != 0)) || fail "CUSTODY_REQUIRE_CUDA=1 without a GPU passed: $(tail -n 20 "$tmp/req.log")"
grep -q 'CUSTODY_REQUIRE_CUDA=1 (a GPU is expected here), but: no CUDA device found' "$tmp/req.log" ||
  fail "the failure does not say why: $(tail -n 20 "$tmp/req.log")"
grep -q 'result="skipped"' "$tmp/req.xml" && fail "a case still skipped under CUSTODY_REQUIRE_CUDA=1"
echo "require_cuda_test: ok (skips by default, fails under CUSTODY_REQUIRE_CUDA=1)"
