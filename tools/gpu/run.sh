#!/usr/bin/env bash
# tools/gpu/run.sh — runs a custody GPU bundle (made by tools/gpu/pack.sh) on a machine with an NVIDIA
# GPU and its driver; no Bazel needed, PyTorch optional (tools/gpu/README.md).
#
#   bash run.sh [BUNDLE] [--out DIR] [--quick] [--filter REGEX] [--bench-filter REGEX] [--shards N]
#
#   BUNDLE               custody-gpu.tar.gz, or the directory it unpacks to (custody-gpu/); default:
#                        the bundle this run.sh is in, when it is in one
#   --out DIR            where the results go (default: custody-gpu-results); a tar.gz is unpacked to
#                        DIR/custody-gpu (replacing an earlier one there)
#   --quick              a smoke run: the benchmark and torch_peer.py do 3 repetitions of at least
#                        0.05 s instead of 10 of 0.5 s; the tools get --quick. The tests run in full
#   --filter REGEX       only the binaries (tests, benchmarks, tools) whose name matches REGEX (bash
#                        extended regex, unanchored): --filter conformance, --filter 'benchmark|compare'
#   --bench-filter REGEX only the benchmark cases matching REGEX (--benchmark_filter, and torch_peer.py
#                        --filter): --bench-filter 'add_|d2d'
#   --shards N           each test binary runs as N GoogleTest shards at once (py/gtest_shards.py: a
#                        shard that times out or crashes loses only the cases it had not finished);
#                        default: half the CPUs, 1 to 8
#
# In order, with the results in DIR:
#   env.txt              the GPUs and driver (nvidia-smi), uname, glibc, python/torch, the MANIFEST
#   tests/NAME.{xml,log} each binary of tests.txt: ./launch NAME in shards (--shards), their cases merged
#                        into tests/NAME.xml, their output into tests/NAME.log, all of them stopped
#                        after TEST_TIMEOUT (default 1800 s); a failure does not stop the run
#   bench/NAME.{json,log}  each binary of benchmarks.txt, Google Benchmark JSON with every repetition
#   bench/torch_peer.{json,log}  PyTorch's side (py/torch_peer.py), when python3 has torch with CUDA
#   report.md, report.json  py/report.py: the benchmark against PyTorch and the issue's three targets;
#                        a benchmark case that reported an error is a PROBLEM (FAILED, with its message)
#   NAME/ (NAME less _cuda)  each binary of tools.txt, run as NAME --out=DIR/NAME [--quick]; its log
#                        is NAME/NAME.log (compare_cuda: compare/compare.json, compare/compare_cuda.log)
#   summary.txt          what ran and what did not, the failed test cases, and last the line
#                        `N passed, N failed, N skipped` over the test cases of every test binary
#                        (py/test_summary.py --xml; a skipped case is never a pass, a binary that wrote
#                        no XML counts 1 failed)
#
# Environment: PYTHON (default python3: the interpreter for the scripts, and the one whose torch is
# measured), TEST_TIMEOUT / BENCH_TIMEOUT (seconds per binary; default 1800 / 3600), CUDA_HOME (for a
# bundle packed with --system-cuda-libs; default /usr/local/cuda).
# Exit status: 0 when every selected binary ran and no test case failed; 1 when a test failed, a
# binary, the peer or the report could not run, a benchmark case reported an error, a selected target
# was not packed, or nvidia-smi lists a GPU and no test case passed; 2 on bad usage.
# The issue's targets do not change the exit status: report.md says PASS, MISS or n/a.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "run.sh: $*" >&2; exit 2; }

bundle_arg=""
out=""
quick=0
filter=""
bench_filter=""
shards=""
while (($#)); do
  case "$1" in
    --out) out=${2?--out needs a directory}; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --quick) quick=1; shift ;;
    --filter) filter=${2?--filter needs a regex}; shift 2 ;;
    --filter=*) filter=${1#--filter=}; shift ;;
    --bench-filter) bench_filter=${2?--bench-filter needs a regex}; shift 2 ;;
    --bench-filter=*) bench_filter=${1#--bench-filter=}; shift ;;
    --shards) shards=${2?--shards needs a number}; shift 2 ;;
    --shards=*) shards=${1#--shards=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z $bundle_arg ]] || die "one bundle at a time ('$bundle_arg', '$1')"; bundle_arg=$1; shift ;;
  esac
done
if [[ -n $filter ]]; then
  rc=0; [[ "" =~ $filter ]] || rc=$?
  ((rc != 2)) || die "--filter: not a valid extended regex: $filter"
fi
if [[ -z $shards ]]; then
  cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
  shards=$((cpus / 2))
  ((shards > 8)) && shards=8
  ((shards < 1)) && shards=1
fi
[[ $shards =~ ^[0-9]+$ ]] && ((shards >= 1)) || die "--shards: a whole number, at least 1 (got '$shards')"
python=${PYTHON:-python3}
command -v "$python" >/dev/null || die "needs $python (3.6 or newer) for the summary and the report (set PYTHON)"
test_timeout=${TEST_TIMEOUT:-1800}
bench_timeout=${BENCH_TIMEOUT:-3600}
[[ $test_timeout =~ ^[0-9]+$ && $bench_timeout =~ ^[0-9]+$ ]] || die "TEST_TIMEOUT and BENCH_TIMEOUT are seconds"

out=${out:-custody-gpu-results}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# ---- the bundle -----------------------------------------------------------------------------------
if [[ -z $bundle_arg ]]; then
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  [[ -x $here/launch ]] || die "which bundle? bash run.sh custody-gpu.tar.gz [--out DIR] (see --help)"
  bundle_arg=$here
fi
if [[ -d $bundle_arg ]]; then
  if [[ ! -x $bundle_arg/launch && -x $bundle_arg/custody-gpu/launch ]]; then
    bundle_arg=$bundle_arg/custody-gpu
  fi
  [[ -x $bundle_arg/launch ]] || die "$bundle_arg: not a custody GPU bundle (no launch)"
  bundle=$(cd "$bundle_arg" && pwd)
elif [[ -f $bundle_arg ]]; then
  echo "run.sh: unpacking $bundle_arg into $out/custody-gpu" >&2
  rm -rf "$out/custody-gpu"
  tar -xzf "$bundle_arg" -C "$out" || die "cannot unpack $bundle_arg"
  bundle=$out/custody-gpu
  [[ -x $bundle/launch ]] || die "$bundle_arg: not a custody GPU bundle (no custody-gpu/launch inside)"
else
  die "no bundle $bundle_arg"
fi

# The binaries of each kind that were packed (a list may be absent in an older bundle).
read_list() { if [[ -f $bundle/$1 ]]; then grep -v '^[[:space:]]*$' "$bundle/$1" || true; fi; }
selected() { [[ -z $filter || $1 =~ $filter ]]; }
manifest_field() { sed -n "s/^$1: *//p" "$bundle/MANIFEST" 2>/dev/null | head -n 1; }
tests=() benchmarks=() tools=() not_packed=()
while read -r n; do if selected "$n"; then tests+=("$n"); fi; done < <(read_list tests.txt)
while read -r n; do if selected "$n"; then benchmarks+=("$n"); fi; done < <(read_list benchmarks.txt)
while read -r n; do if selected "$n"; then tools+=("$n"); fi; done < <(read_list tools.txt)
for label in $(manifest_field missing); do
  if selected "${label##*:}"; then not_packed+=("$label"); fi
done

if ((${#tests[@]} + ${#benchmarks[@]} + ${#tools[@]} + ${#not_packed[@]} == 0)); then
  die "no binary of the bundle is selected${filter:+ by --filter \"$filter\"} (see $bundle/tests.txt, benchmarks.txt, tools.txt)"
fi

rm -rf "$out/tests" "$out/bench" "$out/report.md" "$out/report.json" "$out/summary.txt"
mkdir -p "$out/tests" "$out/bench"
problems=()   # what could not run: each makes the exit status 1
notes=()      # what summary.txt says besides the test counts

have_timeout=0
command -v timeout >/dev/null && have_timeout=1
# run_logged SECONDS LOG COMMAND... — COMMAND's stdout and stderr to LOG, killed after SECONDS; its
# exit status (124: timed out).
run_logged() {
  local limit=$1 log=$2 rc=0
  shift 2
  if ((have_timeout)); then
    (cd "$out" && timeout --kill-after=30 "$limit" "$@") </dev/null >"$log" 2>&1 || rc=$?
  else
    (cd "$out" && "$@") </dev/null >"$log" 2>&1 || rc=$?
  fi
  return "$rc"
}
why_exit() {
  case "$1" in
    124) echo "timed out" ;;
    137) echo "killed (SIGKILL: timed out and did not stop, or out of memory)" ;;
    *) if (($1 > 128)); then echo "killed by signal $(($1 - 128))"; else echo "exit status $1"; fi ;;
  esac
}
seconds_since() { echo $((SECONDS - $1)); }

# ---- env.txt --------------------------------------------------------------------------------------
run_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
run_host=$(hostname 2>/dev/null || uname -n)
gpu="none found"
if command -v nvidia-smi >/dev/null; then
  gpu=$(nvidia-smi -L 2>/dev/null | head -n 1 | sed 's/ *(UUID:.*//')
  gpu=${gpu:-nvidia-smi lists none}
fi
glibc_min=$(manifest_field glibc_min)
glibc_here=$(ldd --version 2>/dev/null | head -n 1 | grep -o '[0-9][0-9.]*$' || true)
{
  echo "== run.sh $run_date on $run_host"
  echo "bundle: $bundle"
  echo "options: quick=$quick filter='${filter}' bench_filter='${bench_filter}' shards=$shards"
  echo
  echo "== nvidia-smi -L"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L 2>&1 || true
    echo
    echo "== nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1 || true
    echo
    echo "== nvidia-smi (header)"
    nvidia-smi 2>&1 | sed -n '1,4p' || true
  else
    echo "nvidia-smi not found: no NVIDIA driver here?"
  fi
  echo
  echo "== uname -a"
  uname -a
  echo
  echo "== glibc: ${glibc_here:-unknown} (the bundle needs at least ${glibc_min:-unknown})"
  echo "== $python: $("$python" --version 2>&1)"
  echo "== torch: $("$python" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda,
    "available:", torch.cuda.is_available())' 2>&1 | tail -n 1)"
  echo
  echo "== MANIFEST"
  cat "$bundle/MANIFEST" 2>/dev/null || echo "(no MANIFEST)"
} >"$out/env.txt"

if ! command -v nvidia-smi >/dev/null; then
  notes+=("WARNING: nvidia-smi not found; without a GPU the tests skip and the benchmarks fail")
  echo "run.sh: WARNING: nvidia-smi not found: is there an NVIDIA driver?" >&2
else
  while read -r cap; do
    if [[ $cap =~ ^[0-9]+\.[0-9]+$ ]] && [[ $(printf '%s\n9.0\n' "$cap" | sort -V | head -n 1) != 9.0 ]]; then
      notes+=("WARNING: a GPU of compute capability $cap: the binaries need sm_90 or newer")
      echo "run.sh: WARNING: GPU of compute capability $cap; the bundle needs 9.0 or newer" >&2
    fi
  done < <(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null || true)
fi
if [[ -n $glibc_min && -n $glibc_here && $glibc_min != unknown ]] &&
  [[ $(printf '%s\n%s\n' "$glibc_min" "$glibc_here" | sort -V | head -n 1) != "$glibc_min" ]]; then
  notes+=("WARNING: glibc $glibc_here here, the bundle needs $glibc_min or newer")
  echo "run.sh: WARNING: glibc $glibc_here here, the bundle needs at least $glibc_min" >&2
fi
for label in "${not_packed[@]}"; do
  problems+=("NOT PACKED: $label (it did not build where the bundle was packed; MANIFEST: missing)")
  echo "run.sh: not in the bundle: $label" >&2
done

# ---- tests ----------------------------------------------------------------------------------------
xml_args=()
for name in "${tests[@]}"; do
  xml=$out/tests/$name.xml
  log=$out/tests/$name.log
  echo "run.sh: test $name ($shards shards) ..." >&2
  t0=$SECONDS
  rc=0
  shard_line=""
  if [[ -f $bundle/py/gtest_shards.py ]]; then
    shard_line=$(cd "$out" && "$python" "$bundle/py/gtest_shards.py" --shards "$shards" \
      --timeout "$test_timeout" --xml "$xml" --log "$log" -- "$bundle/launch" "$name" </dev/null) || rc=$?
  else  # a bundle packed before gtest_shards.py: one process
    run_logged "$test_timeout" "$log" "$bundle/launch" "$name" "--gtest_output=xml:$xml" || rc=$?
  fi
  xml_args+=("$xml=$rc")
  line=$("$python" "$bundle/py/test_summary.py" --quiet --xml "$xml=$rc" | tail -n 1) || true
  verdict=ok
  ((rc == 0)) || verdict="FAILED ($(why_exit "$rc"))"  # counted by test_summary.py below
  echo "run.sh:   $verdict, $(seconds_since "$t0") s${shard_line:+, $shard_line}: $line" >&2
done

# ---- benchmarks -----------------------------------------------------------------------------------
if ((quick)); then
  bench_flags=(--benchmark_repetitions=3 --benchmark_min_time=0.05)
  peer_flags=(--quick)
else
  bench_flags=(--benchmark_repetitions=10)
  peer_flags=(--reps 10)
fi
if [[ -n $bench_filter ]]; then
  bench_flags+=("--benchmark_filter=$bench_filter")
  peer_flags+=(--filter "$bench_filter")
fi
for name in "${benchmarks[@]}"; do
  echo "run.sh: benchmark $name ${bench_flags[*]} ..." >&2
  t0=$SECONDS
  rc=0
  run_logged "$bench_timeout" "$out/bench/$name.log" "$bundle/launch" "$name" \
    "--benchmark_out=$out/bench/$name.json" --benchmark_out_format=json \
    --benchmark_report_aggregates_only=false "${bench_flags[@]}" || rc=$?
  if ((rc != 0)); then
    problems+=("benchmark $name: $(why_exit "$rc"); see bench/$name.log")
    echo "run.sh:   FAILED ($(why_exit "$rc")), $(seconds_since "$t0") s" >&2
  else
    echo "run.sh:   ok, $(seconds_since "$t0") s" >&2
  fi
done

# PyTorch's side, for cuda_benchmark (report.py compares the two).
peer_json=""
peer_status="not measured: //backends/cuda:cuda_benchmark was not run"
if [[ " ${benchmarks[*]} " == *" cuda_benchmark "* ]]; then
  if torch_why=$("$python" -c 'import torch; assert torch.cuda.is_available(), "torch.cuda.is_available() is false"' 2>&1); then
    echo "run.sh: PyTorch peer: $python py/torch_peer.py ${peer_flags[*]} ..." >&2
    t0=$SECONDS
    rc=0
    run_logged "$bench_timeout" "$out/bench/torch_peer.log" "$python" "$bundle/py/torch_peer.py" \
      --out "$out/bench/torch_peer.json" "${peer_flags[@]}" || rc=$?
    if ((rc == 0)); then
      peer_json=$out/bench/torch_peer.json
      peer_status="measured ($(sed -n 's/.*"torch": *"\([^"]*\)".*/torch \1/p' "$peer_json" | head -n 1))"
      echo "run.sh:   ok, $(seconds_since "$t0") s" >&2
    else
      peer_status="FAILED: torch_peer.py $(why_exit "$rc"); see bench/torch_peer.log"
      problems+=("PyTorch peer: torch_peer.py $(why_exit "$rc"); see bench/torch_peer.log")
      echo "run.sh:   FAILED ($(why_exit "$rc"))" >&2
      [[ -s $out/bench/torch_peer.json ]] && peer_json=$out/bench/torch_peer.json
    fi
  else
    peer_status="not measured: no PyTorch with CUDA in $python ($(printf '%s\n' "$torch_why" | tail -n 1))"
    echo "run.sh: the PyTorch peer was not measured: $(printf '%s\n' "$torch_why" | tail -n 1)" >&2
  fi
fi
notes+=("PyTorch peer: $peer_status")

# The report: cuda_benchmark against PyTorch, and the issue's targets.
custody_json=$out/bench/cuda_benchmark.json
if [[ -s $custody_json ]]; then
  report_args=(--custody "$custody_json" --json "$out/report.json")
  [[ -n $peer_json ]] && report_args+=(--torch "$peer_json")
  rc=0
  report_text=$("$python" "$bundle/py/report.py" "${report_args[@]}" 2>&1) || rc=$?
  {
    echo "# custody on the GPU: cuda_benchmark against PyTorch"
    echo
    echo "Run $run_date on $run_host; GPU: $gpu (env.txt). Bundle: commit $(manifest_field commit)."
    echo "PyTorch peer: $peer_status."
    echo
    echo '```'
    printf '%s\n' "$report_text"
    echo '```'
  } >"$out/report.md"
  # Exit 1: a benchmark case reported an error (its FAILED lines come first); 2: unreadable JSON.
  if ((rc > 1)); then
    problems+=("report.py: exit status $rc; see report.md")
  else
    while IFS= read -r line; do
      problems+=("benchmark case $line")
    done < <(printf '%s\n' "$report_text" | sed -n '/^FAILED: /p')
    notes+=("issue targets (report.md):")
    while IFS= read -r line; do notes+=("  $line"); done < <(printf '%s\n' "$report_text" |
      sed -n '/^== issue 11 GPU targets/,/^$/p' | sed '1d; /^$/d')
  fi
elif ((${#benchmarks[@]})); then
  notes+=("no report: bench/cuda_benchmark.json was not written")
fi

# ---- tools ----------------------------------------------------------------------------------------
for name in "${tools[@]}"; do
  dir=$out/${name%_cuda}
  rm -rf "$dir"
  mkdir -p "$dir"
  tool_flags=("--out=$dir")
  ((quick)) && tool_flags+=(--quick)
  echo "run.sh: tool $name ${tool_flags[*]} ..." >&2
  t0=$SECONDS
  rc=0
  run_logged "$bench_timeout" "$dir/$name.log" "$bundle/launch" "$name" "${tool_flags[@]}" || rc=$?
  if ((rc != 0)); then
    problems+=("tool $name: $(why_exit "$rc"); see ${dir#"$out"/}/$name.log")
    echo "run.sh:   FAILED ($(why_exit "$rc")), $(seconds_since "$t0") s" >&2
  else
    notes+=("tool $name: ok (${dir#"$out"/}/)")
    echo "run.sh:   ok, $(seconds_since "$t0") s" >&2
  fi
done

# ---- summary --------------------------------------------------------------------------------------
summary_rc=0
summary_text=$("$python" "$bundle/py/test_summary.py" --xml "${xml_args[@]}") || summary_rc=$?
{
  echo "custody GPU run $run_date on $run_host; GPU: $gpu"
  echo "bundle: commit $(manifest_field commit)"
  echo "binaries run: tests ${#tests[@]}, benchmarks ${#benchmarks[@]}, tools ${#tools[@]}${filter:+ (--filter $filter)}$( ((quick)) && echo ' (--quick)')"
  for n in "${notes[@]}"; do echo "$n"; done
  for p in "${problems[@]}"; do echo "PROBLEM: $p"; done
  printf '%s\n' "$summary_text"
} >"$out/summary.txt"

echo >&2
cat "$out/summary.txt" >&2
echo >&2
written=(summary.txt env.txt)
((${#tests[@]})) && written+=("tests/ (NAME.xml, NAME.log)")
((${#benchmarks[@]})) && written+=("bench/ (NAME.json, NAME.log${peer_json:+, torch_peer.json})")
[[ -f $out/report.md ]] && written+=(report.md report.json)
for t in "${tools[@]}"; do written+=("${t%_cuda}/"); done
[[ $bundle == "$out/custody-gpu" ]] && written+=("custody-gpu/ (the bundle: ./launch NAME runs one binary)")
echo "run.sh: results in $out: ${written[*]}" >&2
if ((summary_rc != 0 && summary_rc != 1)); then
  echo "run.sh: test_summary.py failed (exit status $summary_rc)" >&2
  exit 1
fi
# A GPU is listed but no test case passed: the tests found no device after all (a broken driver or
# library); the launcher's CUSTODY_REQUIRE_CUDA=1 makes such skips failures, and this catches the rest.
last_line=$(printf '%s\n' "$summary_text" | tail -n 1)
if [[ $gpu != "none found" && $gpu != "nvidia-smi lists none" && $last_line == "0 passed,"* ]] &&
  ((${#tests[@]})); then
  echo "run.sh: nvidia-smi lists $gpu, but no test case passed" >&2
  exit 1
fi
if ((summary_rc == 0 && ${#problems[@]} == 0)); then exit 0; fi
exit 1
