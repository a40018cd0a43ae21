#!/usr/bin/env bash
# tools/gpu/device_check.sh — the one command to run on a GPU machine lent for a short window: checks a
# custody GPU bundle (tools/gpu/pack.sh --system-cuda-libs) in at most --budget seconds (default 300, 5
# minutes, its own timeouts inside: a window is 15 minutes, the machine's start takes 2 to 4 of them, and
# a rerun must fit after the first run) and writes four files (tools/gpu/README.md, "The device check"):
#
#   tools/gpu/device_check.sh BUNDLE_DIR OUT_DIR [--budget SECONDS] [--shards N]
#
#   BUNDLE_DIR   the unpacked bundle (custody-gpu/, holding launch and bin/); a custody-gpu.tar.gz is
#                unpacked first into a temporary folder
#   OUT_DIR      where the results go: summary.txt (also printed), env.txt, report.md (the benchmark
#                against PyTorch, when it ran) and results.tgz (every log, GoogleTest XML and JSON)
#   --shards N   each test binary runs as N GoogleTest shards at once (py/gtest_shards.py: a shard that
#                times out or crashes loses only the cases it had not finished); default: half the
#                CPUs, 1 to 8
#
# In order, each under its own timeout, cut to the time left:
#   1. preflight: nvidia-smi (the GPU, driver, compute capability, memory), which CUDA libraries the
#      launcher chose (launch --which-libs), cuda_preflight (the allocator: memory pools or the cudaMalloc
#      fallback and why; a 1-element add, a small cuBLAS matmul, a CUB sum, argmax and softmax, each
#      against the host's answer). No GPU, or a failed preflight: stop here, naming the failed checks;
#   2. the backend's tests (errors, the allocator on both paths, the CUDA smoke test, cuda_test) and the
#      kernel suites (kernels_cuda: every op and dtype against the oneDNN oracle);
#   3. the five conformance_<policy>_cuda binaries (the lifetime suites and each policy's contract
#      suite): the first is timed, and a later one runs only if the
#      time left (less what steps 4 and 5 need) covers 1.5x the first one's time;
#   4. compare_cuda --quick: the five policies side by side on the GPU (its table goes in summary.txt);
#   5. cuda_benchmark (3 short repetitions; a case that reported an error fails the step) and PyTorch's
#      side (torch_peer.py --quick, when python3 has torch with CUDA), compared by report.py: the
#      issue's ratios.
# Time, at most, for the default budget of 300 s: preflight 60 (cuda_preflight; seconds, normally);
# steps 2 and 3 what is left above the 130 kept for steps 4 and 5, each backend binary at most 60,
# kernels_* and the first conformance binary at most 90; step 4 at most 45, keeping 85 for step 5;
# cuda_benchmark at most 40, keeping 45; torch_peer.py at most 35, keeping 10 for report.py and
# results.tgz. A larger --budget goes to steps 2 and 3.
# What did not run for lack of time is listed as NOT RUN with the reason, never dropped. Every test
# binary runs through ./launch, so CUSTODY_REQUIRE_CUDA=1: a missing GPU fails a test, never skips it.
#
# Exit status: 0 everything ran and passed; 1 a test, step or tool failed; 3 no GPU (stopped at the
# preflight); 4 nothing failed but something did not run for lack of time; 2 bad usage.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "device_check.sh: $*" >&2; exit 2; }

bundle_arg="" out="" budget=300 shards=""
while (($#)); do
  case "$1" in
    --budget) budget=${2:-}; shift 2 || die "--budget needs seconds" ;;
    --budget=*) budget=${1#--budget=}; shift ;;
    --shards) shards=${2:-}; shift 2 || die "--shards needs a number" ;;
    --shards=*) shards=${1#--shards=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      if [[ -z $bundle_arg ]]; then bundle_arg=$1
      elif [[ -z $out ]]; then out=$1
      else die "one bundle and one output folder (got also '$1')"; fi
      shift ;;
  esac
done
[[ -n $bundle_arg && -n $out ]] || die "usage: device_check.sh BUNDLE_DIR OUT_DIR [--budget SECONDS] [--shards N]"
[[ $budget =~ ^[0-9]+$ ]] && ((budget >= 60)) || die "--budget: whole seconds, at least 60 (got '$budget')"
if [[ -z $shards ]]; then
  cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
  shards=$((cpus / 2))
  ((shards > 8)) && shards=8
  ((shards < 1)) && shards=1
fi
[[ $shards =~ ^[0-9]+$ ]] && ((shards >= 1)) || die "--shards: a whole number, at least 1 (got '$shards')"
command -v timeout >/dev/null || die "needs timeout (coreutils)"
python=${PYTHON:-python3}
command -v "$python" >/dev/null || die "needs $python for the summary (set PYTHON)"

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/custody-device-check.XXXXXX") || die "cannot make a temporary folder"
mkdir -p "$work/tests" "$work/bench" "$work/compare" "$work/preflight"

if [[ -f $bundle_arg ]]; then
  tar -xzf "$bundle_arg" -C "$work" || die "cannot unpack $bundle_arg"
  bundle_arg=$work/custody-gpu
fi
[[ -d $bundle_arg && ! -x $bundle_arg/launch && -x $bundle_arg/custody-gpu/launch ]] &&
  bundle_arg=$bundle_arg/custody-gpu
[[ -x $bundle_arg/launch ]] || die "$bundle_arg: not a custody GPU bundle (no launch)"
bundle=$(cd "$bundle_arg" && pwd)
launch=$bundle/launch
[[ -f $bundle/py/gtest_shards.py ]] ||
  die "$bundle: no py/gtest_shards.py (a bundle packed before this device_check.sh: repack it)"

start=$SECONDS
deadline=$((start + budget))
left() { echo $((deadline - SECONDS)); }
# The allotments of the usage text above. What steps 4 and 5 need, kept back from steps 2 and 3: step
# 4's cap and what step 4 keeps for step 5.
compare_cap=45 compare_keeps=85
bench_cap=40 bench_keeps=45
peer_cap=35 peer_keeps=10
tail_reserve=$((compare_cap + compare_keeps))
backend_cap=60 kernels_cap=90 first_conformance_cap=90

steps=()      # one line per step: VERDICT name (seconds): detail
xml_args=()   # FILE=EXIT for test_summary.py
not_run=0 failed_steps=0
note() { steps+=("$1"); echo "device_check: $1" >&2; }

# run_step LIMIT LOG CMD... — CMD under `timeout` (LIMIT seconds, then KILL 10 s later) with output to
# LOG; sets step_rc and step_s.
run_step() {
  local limit=$1 log=$2 t0=$SECONDS
  shift 2
  step_rc=0
  timeout --kill-after=10 "$limit" "$@" </dev/null >"$log" 2>&1 || step_rc=$?
  step_s=$((SECONDS - t0))
}
why() {
  case "$1" in
    0) echo ok ;;
    124|137) echo "timed out" ;;
    *) if (($1 > 128)); then echo "killed by signal $(($1 - 128))"; else echo "exit status $1"; fi ;;
  esac
}

# run_test NAME LIMIT — one test binary as $shards GoogleTest shards at once (py/gtest_shards.py: the
# merged XML keeps the cases of a shard that timed out or crashed), counted by test_summary.py; sets
# step_rc and step_s. gtest_shards.py stops its shards at LIMIT; `timeout` only guards against it
# hanging itself (its SIGTERM makes it stop the shards and write what it has).
run_test() {
  local name=$1 limit=$2 xml=$work/tests/$1.xml t0=$SECONDS shard_line
  if [[ ! -x $bundle/bin/$name ]]; then
    note "FAIL    $name: not in the bundle (see MANIFEST: missing)"
    xml_args+=("$xml=1"); failed_steps=$((failed_steps + 1)); return
  fi
  step_rc=0
  shard_line=$(timeout --kill-after=10 $((limit + 20)) "$python" "$bundle/py/gtest_shards.py" \
    --shards "$shards" --timeout "$limit" --xml "$xml" --log "$work/tests/$name.log" \
    -- "$launch" "$name" </dev/null) || step_rc=$?
  step_s=$((SECONDS - t0))
  xml_args+=("$xml=$step_rc")
  local counts
  counts=$("$python" "$bundle/py/test_summary.py" --quiet --xml "$xml=$step_rc" 2>/dev/null | tail -n 1)
  if ((step_rc == 0)); then
    note "PASS    $name (${step_s} s, ${shard_line:-? shards}): $counts"
  else
    failed_steps=$((failed_steps + 1))
    note "FAIL    $name (${step_s} s, $(why "$step_rc"), limit ${limit} s; ${shard_line:-no shard report}): $counts"
  fi
}

write_results() {
  local summary_text summary_rc=0
  summary_text=$("$python" "$bundle/py/test_summary.py" --xml "${xml_args[@]}" 2>&1) || summary_rc=$?
  ((${#xml_args[@]})) || summary_text="0 passed, 0 failed, 0 skipped"
  {
    echo "custody device check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname 2>/dev/null || uname -n)"
    echo "GPU: $gpu"
    echo "bundle: commit $(sed -n 's/^commit: *//p' "$bundle/MANIFEST" 2>/dev/null | head -n 1)"
    echo "budget: ${budget} s; took $((SECONDS - start)) s; test binaries in $shards shards each"
    echo
    echo "== preflight"
    cat "$work/preflight/preflight.txt" 2>/dev/null
    echo
    echo "== steps"
    printf '%s\n' "${steps[@]}"
    if [[ -s $work/compare/table.txt ]]; then
      echo
      echo "== compare_cuda --quick"
      cat "$work/compare/table.txt"
    fi
    if [[ -s $work/report.md ]]; then
      echo
      echo "== cuda_benchmark against PyTorch (report.md)"
      cat "$work/report.md"
    fi
    echo
    printf '%s\n' "$summary_text"
  } >"$out/summary.txt" || { echo "device_check: cannot write $out/summary.txt" >&2; exit 1; }
  [[ -s $work/report.md ]] && cp "$work/report.md" "$out/report.md"
  cp "$work/preflight/env.txt" "$out/env.txt" 2>/dev/null
  cp "$out/summary.txt" "$work/summary.txt"
  tar -C "$work" -czf "$out/results.tgz.tmp" tests bench compare preflight summary.txt \
    $( [[ -f $work/report.md ]] && echo report.md ) 2>/dev/null &&
    mv "$out/results.tgz.tmp" "$out/results.tgz" ||
    echo "device_check: could not write $out/results.tgz (the logs are lost; summary.txt has the verdicts)" >&2
  cat "$out/summary.txt"
  echo "device_check: wrote $(cd "$out" && ls | tr '\n' ' ')in $out" >&2
}
trap 'rm -rf "$work"' EXIT

# ---- 1. preflight ---------------------------------------------------------------------------------
gpu="none found"
{
  echo "== nvidia-smi"
  if command -v nvidia-smi >/dev/null; then
    timeout 30 nvidia-smi -L 2>&1
    timeout 30 nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,memory.used \
      --format=csv 2>&1
  else
    echo "nvidia-smi not found"
  fi
  echo "== uname: $(uname -srm); glibc $(ldd --version 2>/dev/null | head -n 1 | grep -o '[0-9][0-9.]*$')"
  echo "== $python: $("$python" --version 2>&1); torch: $(timeout 30 "$python" -c 'import torch
print(torch.__version__, "CUDA", torch.version.cuda, "available:", torch.cuda.is_available())' 2>&1 | tail -n 1)"
  echo "== MANIFEST"
  cat "$bundle/MANIFEST" 2>/dev/null
} >"$work/preflight/env.txt" 2>&1
if command -v nvidia-smi >/dev/null; then
  gpu=$(timeout 30 nvidia-smi -L 2>/dev/null | grep '^GPU ' | sed -n '1s/ *(UUID:.*//p')
  gpu=${gpu:-none (nvidia-smi lists no GPU)}
else
  gpu="none (nvidia-smi not found)"
fi
{
  echo "gpu (nvidia-smi): $gpu"
  timeout 30 nvidia-smi --query-gpu=driver_version,compute_cap,memory.total --format=csv,noheader \
    2>/dev/null | sed 's/^/driver, compute capability, memory: /'
  echo "libraries (launch --which-libs):"
  "$launch" --which-libs 2>&1 | sed 's/^launch: /  /'
  libs_rc=${PIPESTATUS[0]}
  echo "cuda_preflight:"
} >"$work/preflight/preflight.txt"
run_step 60 "$work/preflight/cuda_preflight.txt" "$launch" cuda_preflight
sed 's/^/  /' "$work/preflight/cuda_preflight.txt" >>"$work/preflight/preflight.txt"
if [[ $gpu == none* ]] || ((step_rc == 3)); then
  why_none=$gpu
  ((step_rc == 3)) && why_none=$(grep -m1 '^no GPU' "$work/preflight/cuda_preflight.txt" || echo "$gpu")
  note "STOP    preflight: no GPU: ${why_none#no GPU: }; nothing else runs"
  write_results
  exit 3
fi
if ((step_rc != 0)); then
  # The checks that failed: `NAME: ...: WRONG` or `NAME: FAILED: why` (tools/gpu/cuda_preflight.cc).
  mapfile -t bad < <(grep -E ': WRONG$|: FAILED: |^failed: ' "$work/preflight/cuda_preflight.txt" | head -n 5)
  bad_checks=$(printf '%s | ' "${bad[@]}")
  bad_checks=${bad_checks% | }
  note "FAIL    preflight: cuda_preflight $(why "$step_rc") (libraries: $( ((libs_rc == 0)) && echo found || echo 'NOT all found'))${bad_checks:+: $bad_checks}; nothing else runs"
  write_results
  exit 1
fi
note "PASS    preflight (${step_s} s): $(grep -m1 '^allocator:' "$work/preflight/cuda_preflight.txt")"

# ---- 2. the backend's tests -----------------------------------------------------------------------
mapfile -t all_tests < <(grep -v '^[[:space:]]*$' "$bundle/tests.txt" 2>/dev/null)
backend_tests=() conformance=()
for t in "${all_tests[@]}"; do
  if [[ $t == conformance_* ]]; then conformance+=("$t"); else backend_tests+=("$t"); fi
done
for t in "${backend_tests[@]}"; do
  limit=$(( $(left) - tail_reserve ))
  cap=$backend_cap
  [[ $t == kernels_* ]] && cap=$kernels_cap  # the kernel suites: every op and dtype against the oracle
  ((limit > cap)) && limit=$cap
  if ((limit < 20)); then
    note "NOT RUN $t: no time left ($(left) s left)"; not_run=$((not_run + 1)); continue
  fi
  run_test "$t" "$limit"
done

# ---- 3. the conformance matrix on cuda ------------------------------------------------------------
first_s=0
for t in "${conformance[@]}"; do
  avail=$(( $(left) - tail_reserve ))
  if ((first_s == 0)); then
    limit=$((avail > first_conformance_cap ? first_conformance_cap : avail))
  else
    need=$((first_s * 3 / 2 + 10))
    if ((avail < need)); then
      note "NOT RUN $t: no time left (needs ~${need} s, 1.5x the first binary's; ${avail} s left before steps 4-5)"
      not_run=$((not_run + 1)); continue
    fi
    limit=$((avail > 3 * need ? 3 * need : avail))
  fi
  if ((limit < 20)); then
    note "NOT RUN $t: no time left (${avail} s left before steps 4-5)"; not_run=$((not_run + 1)); continue
  fi
  run_test "$t" "$limit"
  ((first_s == 0)) && first_s=$((step_s > 0 ? step_s : 1))
done

# ---- 4. compare_cuda --quick ----------------------------------------------------------------------
limit=$(( $(left) - compare_keeps ))
((limit > compare_cap)) && limit=$compare_cap
if [[ ! -x $bundle/bin/compare_cuda ]]; then
  note "FAIL    compare_cuda: not in the bundle"; failed_steps=$((failed_steps + 1))
elif ((limit < 20)); then
  note "NOT RUN compare_cuda --quick: no time left ($(left) s left)"; not_run=$((not_run + 1))
else
  run_step "$limit" "$work/compare/compare_cuda.log" "$launch" compare_cuda --quick "--out=$work/compare"
  # The tables: from the first "==" header on, without the "wrote ..." lines.
  sed -n '/^== /,$p' "$work/compare/compare_cuda.log" | grep -v '^wrote ' >"$work/compare/table.txt"
  if ((step_rc == 0)); then
    note "PASS    compare_cuda --quick (${step_s} s): tables below"
  else
    failed_steps=$((failed_steps + 1))
    note "FAIL    compare_cuda --quick (${step_s} s, $(why "$step_rc")): $(tail -n 3 "$work/compare/compare_cuda.log" | tr '\n' ' ')"
  fi
fi

# ---- 5. benchmarks against PyTorch ----------------------------------------------------------------
bench_json=$work/bench/cuda_benchmark.json
limit=$(( $(left) - bench_keeps ))
((limit > bench_cap)) && limit=$bench_cap
if [[ ! -x $bundle/bin/cuda_benchmark ]]; then
  note "FAIL    cuda_benchmark: not in the bundle"; failed_steps=$((failed_steps + 1))
elif ((limit < 20)); then
  note "NOT RUN cuda_benchmark: no time left ($(left) s left)"; not_run=$((not_run + 1))
else
  run_step "$limit" "$work/bench/cuda_benchmark.log" "$launch" cuda_benchmark \
    "--benchmark_out=$bench_json" --benchmark_out_format=json \
    --benchmark_report_aggregates_only=false --benchmark_repetitions=3 --benchmark_min_time=0.05
  # A case that calls SkipWithError still exits 0: report.py --failed names each case that reported
  # an error, with its message (exit 1; 2: the JSON is missing or unreadable).
  bench_errors=""
  if ((step_rc == 0)); then
    failed_rc=0
    failed_text=$("$python" "$bundle/py/report.py" --custody "$bench_json" --failed 2>&1) || failed_rc=$?
    if ((failed_rc == 1)); then
      mapfile -t failed_cases < <(printf '%s\n' "$failed_text" | sed -n 's/^FAILED: //p')
      bench_errors=$(printf '%s; ' "${failed_cases[@]:0:5}")
      bench_errors="${#failed_cases[@]} case(s) reported an error: ${bench_errors%; }"
      ((${#failed_cases[@]} > 5)) && bench_errors+="; ..."
    elif ((failed_rc != 0)); then
      bench_errors="no usable benchmark JSON: $(printf '%s\n' "$failed_text" | tail -n 1)"
    fi
  fi
  if ((step_rc == 0)) && [[ -z $bench_errors ]]; then
    note "PASS    cuda_benchmark (${step_s} s)"
  elif ((step_rc == 0)); then
    failed_steps=$((failed_steps + 1))
    note "FAIL    cuda_benchmark (${step_s} s): $bench_errors"
  else
    failed_steps=$((failed_steps + 1))
    note "FAIL    cuda_benchmark (${step_s} s, $(why "$step_rc"))"
  fi
fi
peer_json=""
torch_rc=0
torch_why=$(timeout 30 "$python" -c 'import torch; assert torch.cuda.is_available(), "torch.cuda.is_available() is false"' 2>&1) ||
  torch_rc=$?
# Measured after that check (importing torch takes seconds), so the peer ends by the deadline.
limit=$(( $(left) - peer_keeps ))
((limit > peer_cap)) && limit=$peer_cap
if ((torch_rc != 0)); then
  # Not a lack of time: the machine has no PyTorch to compare with (report.md says n/a).
  note "SKIPPED torch_peer.py: no PyTorch with CUDA in $python ($(printf '%s\n' "$torch_why" | tail -n 1))"
elif ((limit < 20)); then
  note "NOT RUN torch_peer.py: no time left ($(left) s left)"; not_run=$((not_run + 1))
else
  run_step "$limit" "$work/bench/torch_peer.log" "$python" "$bundle/py/torch_peer.py" \
    --out "$work/bench/torch_peer.json" --quick
  if ((step_rc == 0)); then
    peer_json=$work/bench/torch_peer.json
    note "PASS    torch_peer.py --quick (${step_s} s)"
  else
    failed_steps=$((failed_steps + 1))
    note "FAIL    torch_peer.py --quick (${step_s} s, $(why "$step_rc"))"
  fi
fi
if [[ -s $bench_json ]]; then
  report_args=(--custody "$bench_json" --json "$work/bench/report.json")
  [[ -n $peer_json ]] && report_args+=(--torch "$peer_json")
  # Exit 1: a case reported an error, already a FAIL of the cuda_benchmark step above.
  report_rc=0
  "$python" "$bundle/py/report.py" "${report_args[@]}" >"$work/report.md" 2>&1 || report_rc=$?
  if ((report_rc > 1)); then
    failed_steps=$((failed_steps + 1))
    note "FAIL    report.py (exit status $report_rc): see report.md"
  fi
fi

write_results
summary_line=$(tail -n 1 "$out/summary.txt")
if ((failed_steps > 0)) || [[ ! $summary_line =~ ^[0-9]+\ passed,\ 0\ failed ]]; then exit 1; fi
# A GPU was found: a run with tests and none passed found no device after all.
if [[ $summary_line =~ ^0\ passed ]]; then echo "device_check: a GPU is listed but no test passed" >&2; exit 1; fi
if ((not_run > 0)); then exit 4; fi
exit 0
