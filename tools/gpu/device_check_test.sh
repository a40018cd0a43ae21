#!/usr/bin/env bash
# tools/gpu/device_check.sh on fake bundles (shell scripts in place of the binaries), without a GPU:
#  A. no GPU: it stops at the preflight with a "no GPU" line and exit 3, having written its summary;
#     at most 8 files, at most two folders deep;
#  B. a fake GPU (a fake nvidia-smi) with a short budget: the preflight, the backend's tests, the first
#     conformance binary timed, the others NOT RUN for lack of time and listed, compare_cuda's table in
#     the summary, test cases counted, exit 4; the tests ran with CUSTODY_REQUIRE_CUDA=1 (the fake
#     tests fail without it);
#  C. a fake GPU and a failing test: exit 1, the failure named;
#  D. a fake GPU and a benchmark case that reported an error (its binary still exits 0): exit 1, the
#     case named with its error message (report.py --failed), and FAILED in report.md.
#   device_check_test.sh DEVICE_CHECK_SH LAUNCH_SH TEST_SUMMARY_PY REPORT_PY
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
  echo "commit: fake0123" >"$b/MANIFEST"
  cat >"$b/bin/cuda_preflight" <<'SH'
#!/usr/bin/env bash
if [[ -z ${FAKE_GPU:-} ]]; then echo "no GPU: no CUDA device found: fake driver"; exit 3; fi
echo "allocator: stream-ordered pool (cudaMallocFromPoolAsync)"
echo "add: 1 + 2 = 3: ok"
SH
  # A test: sleeps FAKE_SLEEP_<name> seconds, fails when FAKE_FAIL=<name> or when
  # CUSTODY_REQUIRE_CUDA is not 1 (the launcher must set it); writes GoogleTest XML.
  cat >"$b/bin/fake_test" <<'SH'
#!/usr/bin/env bash
name=$(basename "$0")
sleep_var=FAKE_SLEEP_$name
sleep "${!sleep_var:-0}"
xml=${1#--gtest_output=xml:}
if [[ ${CUSTODY_REQUIRE_CUDA:-} != 1 || ${FAKE_FAIL:-} == "$name" ]]; then
  echo '<testsuites><testsuite name="S"><testcase name="t" classname="S"><failure message="fake"/></testcase></testsuite></testsuites>' >"$xml"
  exit 1
fi
echo '<testsuites><testsuite name="S"><testcase name="t" classname="S" status="run" result="completed"/></testsuite></testsuites>' >"$xml"
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

# ---- A. no GPU ----
make_bundle "$tmp/a" "$2" "$3" "$4"
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
make_bundle "$tmp/b" "$2" "$3" "$4"
rc=0
FAKE_GPU=1 FAKE_SLEEP_conformance_tensor_ptr_cuda=25 PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/b" "$tmp/out-b" --budget 200 >"$tmp/b.log" 2>&1 || rc=$?
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
[[ $(tail -n 1 "$tmp/out-b/summary.txt") == "4 passed, 0 failed, 0 skipped" ]] ||
  fail "summary line: $(tail -n 1 "$tmp/out-b/summary.txt")"
(($(find "$tmp/out-b" -type f | wc -l) <= 8)) || fail "more than 8 files: $(find "$tmp/out-b")"
[[ -z $(find "$tmp/out-b" -mindepth 3) ]] || fail "deeper than two folders"
listing=$(tar -tzf "$tmp/out-b/results.tgz")
[[ $'\n'$listing$'\n' == *$'\ntests/cuda_test.xml\n'* ]] || fail "results.tgz lacks the XML: $listing"

# ---- C. a fake GPU and a failing test ----
make_bundle "$tmp/c" "$2" "$3" "$4"
rc=0
FAKE_GPU=1 FAKE_FAIL=cuda_test PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/c" "$tmp/out-c" --budget 400 >"$tmp/c.log" 2>&1 || rc=$?
summary=$(cat "$tmp/out-c/summary.txt")
((rc == 1)) || fail "a failed test: expected exit 1, got $rc: $summary"
expect_in "FAIL    cuda_test" "$summary"
expect_in "PASS    conformance_scope_cuda" "$summary"
expect_in "FAILED: cuda_test S.t" "$summary"
[[ $(tail -n 1 "$tmp/out-c/summary.txt") == "5 passed, 1 failed, 0 skipped" ]] ||
  fail "summary line: $(tail -n 1 "$tmp/out-c/summary.txt")"
# ---- D. a fake GPU, every test passing, a benchmark case that reported an error ----
make_bundle "$tmp/d" "$2" "$3" "$4"
rc=0
FAKE_GPU=1 FAKE_BENCH_ERROR=1 PATH=$tmp/fakebin:/usr/bin:/bin \
  "$check" "$tmp/d" "$tmp/out-d" --budget 400 >"$tmp/d.log" 2>&1 || rc=$?
summary=$(cat "$tmp/out-d/summary.txt")
((rc == 1)) || fail "a benchmark case with an error: expected exit 1, got $rc: $summary"
expect_in "FAIL    cuda_benchmark" "$summary"
expect_in "1 case(s) reported an error: softmax/cuda: synchronize: fake fault (1 of 2 repetitions)" "$summary"
expect_in "FAILED: softmax/cuda: synchronize: fake fault" "$(cat "$tmp/out-d/report.md")"
[[ $summary != *"FAIL    report.py"* ]] || fail "the case's error is the benchmark step's failure, not report.py's: $summary"
echo "device_check_test: ok"
