#!/usr/bin/env bash
# tools/gpu/device_check.sh on fake bundles (shell scripts in place of the binaries), without a GPU:
#  A. no GPU: it stops at the preflight with a "no GPU" line and exit 3, having written its summary;
#     at most 8 files, at most two folders deep;
#  B. a fake GPU (a fake nvidia-smi) with a short budget: the preflight, the backend's tests, the first
#     conformance binary timed, the others NOT RUN for lack of time and listed, compare_cuda's table in
#     the summary, test cases counted over the shards, exit 4; the tests ran with CUSTODY_REQUIRE_CUDA=1
#     (the fake tests fail without it), each as 2 GoogleTest shards;
#  C. a fake GPU and a failing test case, the default budget (300 s): exit 1, the failure named;
#  D. a fake GPU and a benchmark case that reported an error (its binary still exits 0): exit 1, the
#     case named with its error message (report.py --failed), and FAILED in report.md;
#  E. a fake GPU whose preflight checks fail: it stops there, naming them, exit 1;
#  F. a fake GPU and a test case that hangs: its shard is stopped at the binary's limit, the cases the
#     other shard and the hung shard finished are counted, the hung case fails saying so, exit 1.
# A fake torch module that cannot be imported keeps the torch checks fast and the timings steady.
#   device_check_test.sh DEVICE_CHECK_SH LAUNCH_SH TEST_SUMMARY_PY REPORT_PY GTEST_SHARDS_PY
set -euo pipefail
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/device_check_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_in() { [[ $2 == *"$1"* ]] || fail "expected '$1' in: $2"; }
check=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

make_bundle() {  # make_bundle DIR: a bundle of fake binaries
  local b=$1 t
  mkdir -p "$b/bin" "$b/lib" "$b/solib" "$b/py"
  cp "$2" "$b/launch"; chmod +x "$b/launch"
  cp "$3" "$b/py/test_summary.py"
  cp "$4" "$b/py/report.py"
  cp "$5" "$b/py/gtest_shards.py"
  echo "commit: fake0123" >"$b/MANIFEST"
  cat >"$b/bin/cuda_preflight" <<'SH'
#!/usr/bin/env bash
if [[ -z ${FAKE_GPU:-} ]]; then echo "no GPU: no CUDA device found: fake driver"; exit 3; fi
echo "allocator: stream-ordered pool (cudaMallocFromPoolAsync)"
echo "add: 1 + 2 = 3: ok"
if [[ -n ${FAKE_PREFLIGHT_WRONG:-} ]]; then
  echo "sum (CUB): FAILED: cuda sum: an illegal memory access was encountered"
  echo "softmax: 64 rows of 1000, largest relative error 1.0e+00; row 0 col 0: 0, host: 0.001: WRONG"
  exit 1
fi
echo "softmax: 64 rows of 1000, largest relative error 1.2e-07: ok"
SH
  # A test of four cases S.t0..S.t3, each shard (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX) running every
  # other one as GoogleTest does: sleeps FAKE_SLEEP_<name> seconds first; a case fails when
  # FAKE_FAIL=<name>:<case> or when CUSTODY_REQUIRE_CUDA is not 1 (the launcher must set it), hangs
  # when FAKE_HANG=<name>:<case>; prints GoogleTest's progress lines and writes its XML at the end.
  cat >"$b/bin/fake_test" <<'SH'
#!/usr/bin/env bash
name=$(basename "$0")
xml=""
for a in "$@"; do [[ $a == --gtest_output=xml:* ]] && xml=${a#--gtest_output=xml:}; done
echo "$name: shard ${GTEST_SHARD_INDEX:-none} of ${GTEST_TOTAL_SHARDS:-none}"
sleep_var=FAKE_SLEEP_$name
sleep "${!sleep_var:-0}"
body="" i=0
for c in S.t0 S.t1 S.t2 S.t3; do
  if ((i++ % ${GTEST_TOTAL_SHARDS:-1} == ${GTEST_SHARD_INDEX:-0})); then
    echo "[ RUN      ] $c"
    [[ ${FAKE_HANG:-} == "$name:$c" ]] && sleep 600
    if [[ ${CUSTODY_REQUIRE_CUDA:-} != 1 || ${FAKE_FAIL:-} == "$name:$c" ]]; then
      echo "[  FAILED  ] $c (0 ms)"
      body+="<testcase name=\"${c#S.}\" classname=\"S\"><failure message=\"fake\"/></testcase>"
    else
      echo "[       OK ] $c (0 ms)"
      body+="<testcase name=\"${c#S.}\" classname=\"S\" status=\"run\" result=\"completed\"/>"
    fi
  fi
done
echo "<testsuites><testsuite name=\"S\">$body</testsuite></testsuites>" >"$xml"
[[ $body != *"<failure"* ]]
SH
  chmod +x "$b/bin/cuda_preflight" "$b/bin/fake_test"
  for t in errors_test device_allocator_test cuda_test conformance_tensor_ptr_cuda \
    conformance_dispose_cuda conformance_scope_cuda; do
    ln -s fake_test "$b/bin/$t"
    echo "$t" >>"$b/tests.txt"
  done
  cat >"$b/bin/compare_cuda" <<'SH'
#!/usr/bin/env bash
echo "compare: starting"
echo "== mlp on cuda: fake"
echo "contender  median_ms"
echo "scope          0.100"
echo "wrote somewhere/compare.json"
SH
  # Google Benchmark's JSON; one repetition of softmax/cuda reported an error when FAKE_BENCH_ERROR is
  # set (the binary still exits 0).
  cat >"$b/bin/cuda_benchmark" <<'SH'
#!/usr/bin/env bash
for a in "$@"; do [[ $a == --benchmark_out=* ]] && out=${a#--benchmark_out=}; done
row() { echo "{\"name\": \"$1\", \"run_type\": \"iteration\", \"real_time\": 1.0, \"time_unit\": \"us\"}"; }
err=""
[[ -n ${FAKE_BENCH_ERROR:-} ]] &&
  err=", {\"name\": \"softmax/cuda\", \"run_type\": \"iteration\", \"error_occurred\": true, \"error_message\": \"synchronize: fake fault\"}"
echo "{\"benchmarks\": [$(row add/cuda), $(row softmax/cuda)$err]}" >"${out:-/dev/null}"
SH
  chmod +x "$b/bin/compare_cuda" "$b/bin/cuda_benchmark"
}

# A torch that cannot be imported (the machine's own would take seconds to load, twice per run).
mkdir -p "$tmp/notorch"
echo 'raise ImportError("no torch in device_check_test")' >"$tmp/notorch/torch.py"
export PYTHONPATH=$tmp/notorch

# ---- A. no GPU ----
make_bundle "$tmp/a" "$2" "$3" "$4" "$5"
rc=0; PATH=/usr/bin:/bin "$check" "$tmp/a" "$tmp/out-a" --budget 120 >"$tmp/a.log" 2>&1 || rc=$?
((rc == 3)) || fail "no GPU: expected exit 3, got $rc: $(cat "$tmp/a.log")"
[[ -f $tmp/out-a/summary.txt ]] || fail "no summary.txt"
summary=$(cat "$tmp/out-a/summary.txt")
expect_in "STOP    preflight: no GPU: no CUDA device found: fake driver" "$summary"
expect_in "GPU: none (nvidia-smi not found)" "$summary"
[[ $(tail -n 1 "$tmp/out-a/summary.txt") == "0 passed, 0 failed, 0 skipped" ]] || fail "summary line: $summary"
[[ -f $tmp/out-a/results.tgz ]] || fail "no results.tgz"
(($(find "$tmp/out-a" -type f | wc -l) <= 8)) || fail "more than 8 files: $(find "$tmp/out-a")"
[[ -z $(find "$tmp/out-a" -mindepth 3) ]] || fail "deeper than two folders: $(find "$tmp/out-a" -mindepth 3)"

# ---- B. a fake GPU, a budget too short for the whole matrix ----
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/nvidia-smi" <<'SH'
#!/usr/bin/env bash
if [[ $1 == -L ]]; then echo "GPU 0: Fake H100 (UUID: GPU-0)"; else echo "580.00, 9.0, 81559 MiB"; fi
SH
chmod +x "$tmp/fakebin/nvidia-smi"
make_bundle "$tmp/b" "$2" "$3" "$4" "$5"
rc=0
# 200 s less the 130 kept for steps 4-5: 70 for steps 2-3. The first conformance binary takes 25 s, so a
# later one needs 1.5 x 25 + 10 = 47 s, more than the 45 s left.
FAKE_GPU=1 FAKE_SLEEP_conformance_tensor_ptr_cuda=25 PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/b" "$tmp/out-b" --budget 200 --shards 2 >"$tmp/b.log" 2>&1 || rc=$?
summary=$(cat "$tmp/out-b/summary.txt")
((rc == 4)) || fail "some binaries not run for lack of time: expected exit 4, got $rc: $summary"
expect_in "GPU: GPU 0: Fake H100" "$summary"
expect_in "PASS    preflight" "$summary"
expect_in "allocator: stream-ordered pool" "$summary"
for t in errors_test device_allocator_test cuda_test conformance_tensor_ptr_cuda; do
  expect_in "PASS    $t" "$summary"
done
for t in conformance_dispose_cuda conformance_scope_cuda; do
  expect_in "NOT RUN $t: no time left" "$summary"
done
expect_in "PASS    compare_cuda --quick" "$summary"
expect_in "PASS    cuda_benchmark" "$summary"
[[ -f $tmp/out-b/report.md && $(cat "$tmp/out-b/report.md") != *FAILED* ]] ||
  fail "report.md missing or says FAILED: $(cat "$tmp/out-b/report.md" 2>&1)"
expect_in "scope          0.100" "$summary"
[[ $summary != *"wrote somewhere"* ]] || fail "compare's 'wrote' lines belong in the log only"
[[ $summary =~ "PASS    cuda_test ("[0-9]+" s, 2 shards): 4 passed, 0 failed, 0 skipped" ]] ||
  fail "cuda_test's line: $summary"
expect_in "budget: 200 s" "$summary"
expect_in "test binaries in 2 shards each" "$summary"
[[ $(tail -n 1 "$tmp/out-b/summary.txt") == "16 passed, 0 failed, 0 skipped" ]] ||
  fail "summary line: $(tail -n 1 "$tmp/out-b/summary.txt")"
(($(find "$tmp/out-b" -type f | wc -l) <= 8)) || fail "more than 8 files: $(find "$tmp/out-b")"
[[ -z $(find "$tmp/out-b" -mindepth 3) ]] || fail "deeper than two folders"
listing=$(tar -tzf "$tmp/out-b/results.tgz")
[[ $'\n'$listing$'\n' == *$'\ntests/cuda_test.xml\n'* ]] || fail "results.tgz lacks the XML: $listing"
log=$(tar -xzOf "$tmp/out-b/results.tgz" tests/cuda_test.log)
expect_in "== shard 1 of 2: exit status 0" "$log"
expect_in "cuda_test: shard 1 of 2" "$log"

# ---- C. a fake GPU and a failing test ----
make_bundle "$tmp/c" "$2" "$3" "$4" "$5"
rc=0
FAKE_GPU=1 FAKE_FAIL=cuda_test:S.t1 PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/c" "$tmp/out-c" >"$tmp/c.log" 2>&1 || rc=$?
summary=$(cat "$tmp/out-c/summary.txt")
((rc == 1)) || fail "a failed test: expected exit 1, got $rc: $summary"
expect_in "budget: 300 s" "$summary"
expect_in "FAIL    cuda_test" "$summary"
expect_in "PASS    conformance_scope_cuda" "$summary"
expect_in "FAILED: cuda_test S.t1" "$summary"
[[ $(tail -n 1 "$tmp/out-c/summary.txt") == "23 passed, 1 failed, 0 skipped" ]] ||
  fail "summary line: $(tail -n 1 "$tmp/out-c/summary.txt")"
# ---- D. a fake GPU, every test passing, a benchmark case that reported an error ----
make_bundle "$tmp/d" "$2" "$3" "$4" "$5"
rc=0
FAKE_GPU=1 FAKE_BENCH_ERROR=1 PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/d" "$tmp/out-d" --budget 400 --shards 2 >"$tmp/d.log" 2>&1 || rc=$?
summary=$(cat "$tmp/out-d/summary.txt")
((rc == 1)) || fail "a benchmark case with an error: expected exit 1, got $rc: $summary"
expect_in "FAIL    cuda_benchmark" "$summary"
expect_in "1 case(s) reported an error: softmax/cuda: synchronize: fake fault (1 of 2 repetitions)" "$summary"
expect_in "FAILED: softmax/cuda: synchronize: fake fault" "$(cat "$tmp/out-d/report.md")"
[[ $summary != *"FAIL    report.py"* ]] || fail "the case's error is the benchmark step's failure, not report.py's: $summary"

# ---- E. a fake GPU, preflight checks that fail ----
make_bundle "$tmp/e" "$2" "$3" "$4" "$5"
rc=0
FAKE_GPU=1 FAKE_PREFLIGHT_WRONG=1 PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/e" "$tmp/out-e" >"$tmp/e.log" 2>&1 || rc=$?
summary=$(cat "$tmp/out-e/summary.txt")
((rc == 1)) || fail "a failed preflight: expected exit 1, got $rc: $summary"
expect_in "FAIL    preflight: cuda_preflight exit status 1 (libraries: found): sum (CUB): FAILED: cuda sum: an illegal memory access was encountered | softmax: 64 rows of 1000" "$summary"
expect_in "host: 0.001: WRONG; nothing else runs" "$summary"
[[ $summary != *"errors_test"* ]] || fail "tests ran after a failed preflight: $summary"

# ---- F. a fake GPU, a test case that hangs ----
# errors_test runs first, with 160 - 130 (kept for steps 4-5) = 30 s less the preflight's second or so;
# its shard 0 (S.t0, S.t2) hangs in S.t2, shard 1 (S.t1, S.t3) passes. Nothing else fits before step 4.
make_bundle "$tmp/f" "$2" "$3" "$4" "$5"
rc=0
FAKE_GPU=1 FAKE_HANG=errors_test:S.t2 PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/f" "$tmp/out-f" --budget 160 --shards 2 >"$tmp/f.log" 2>&1 || rc=$?
summary=$(cat "$tmp/out-f/summary.txt")
((rc == 1)) || fail "a test that timed out: expected exit 1, got $rc: $summary"
expect_in "FAIL    errors_test (" "$summary"
expect_in "timed out, limit " "$summary"
expect_in "2 shards; shard 0 timed out while running S.t2): 3 passed, 1 failed, 0 skipped" "$summary"
expect_in "FAILED: errors_test S.t2" "$summary"
expect_in "NOT RUN device_allocator_test: no time left" "$summary"
expect_in "PASS    compare_cuda --quick" "$summary"
[[ $(tail -n 1 "$tmp/out-f/summary.txt") == "3 passed, 1 failed, 0 skipped" ]] ||
  fail "summary line: $(tail -n 1 "$tmp/out-f/summary.txt")"
xml=$(tar -xzOf "$tmp/out-f/results.tgz" tests/errors_test.xml)
expect_in "timed out while running (shard 0 of 2 timed out" "$xml"
echo "device_check_test: ok"
