#!/usr/bin/env bash
# tools/bench/run.sh — THE command that runs every micro-benchmark and writes JSON plus a ratio table.
#
#   tools/bench/run.sh [--filter REGEX] [--out DIR] [--no-build] [-- EXTRA_BENCHMARK_FLAGS...]
#   REPS=3 tools/bench/run.sh --filter 'tiny_add|matmul_2d/n=64/' -- --benchmark_min_time=0.05
#
#  1. builds every target tagged "benchmark" (bazel query 'attr(tags, "\bbenchmark\b", //...)') with
#     --config=opt;
#  2. runs each binary with --benchmark_repetitions=$REPS (default 10),
#     --benchmark_enable_random_interleaving=true and --benchmark_out=DIR/<binary>.json (JSON), plus
#     --benchmark_filter=REGEX and the extra flags (any --benchmark_* flag, and everything after --);
#     a binary with no benchmark matching the filter is skipped;
#  3. runs tools/bench/report.py over those files: DIR/bench-results.json (every benchmark with min and
#     median over the repetitions, its case's peer and the ratios to it), and the Markdown table
#     (case, contender, min, median, ratio vs peer min- and median-based), printed and written to
#     DIR/bench-results.md.
#
# DIR defaults to bazel-bench/<date>-<time> in the workspace (ignored by git like every bazel-*), and
# bazel-bench/latest points to the last run. Exit status: non-zero if the build or any binary failed
# (the report still covers the binaries that ran).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bazel=(./bazelw)

reps=${REPS:-10}
filter=""
out=""
build=1
extra=()
while (($#)); do
  case "$1" in
    --filter) filter=${2?--filter needs a regex}; shift 2 ;;
    --filter=*) filter=${1#--filter=}; shift ;;
    --out) out=${2?--out needs a directory}; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --no-build) build=0; shift ;;
    --benchmark_*) extra+=("$1"); shift ;;
    --) shift; extra+=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if [[ -z $out ]]; then
  out="bazel-bench/$(date +%Y%m%d-%H%M%S)"
  mkdir -p "$out"
  ln -sfn "$(basename "$out")" bazel-bench/latest
fi
mkdir -p "$out"

query_out=$("${bazel[@]}" query --noshow_progress 'attr(tags, "\bbenchmark\b", //...)') ||
  { echo "run.sh: bazel query failed" >&2; exit 1; }
mapfile -t targets < <(grep -v '^$' <<<"$query_out")
if ((${#targets[@]} == 0)); then
  echo "run.sh: no target tagged \"benchmark\"" >&2
  exit 1
fi
if ((build)); then
  "${bazel[@]}" build --config=opt "${targets[@]}"
fi
bin_dir=$("${bazel[@]}" info --config=opt bazel-bin 2>/dev/null)

failed=()
jsons=()
for target in "${targets[@]}"; do
  pkg=${target#//}
  pkg=${pkg%%:*}
  name=${target##*:}
  bin="$bin_dir/$pkg/$name"
  filter_flag=()
  if [[ -n $filter ]]; then
    filter_flag=(--benchmark_filter="$filter")
    if [[ -z $("$bin" --benchmark_list_tests=true "${filter_flag[@]}" 2>/dev/null) ]]; then
      continue
    fi
  fi
  echo "== $target" >&2
  json="$out/$name.json"
  if "$bin" --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
      --benchmark_out="$json" --benchmark_out_format=json "${filter_flag[@]}" "${extra[@]}" >&2; then
    jsons+=("$json")
  else
    echo "run.sh: $target failed (exit $?)" >&2
    failed+=("$target")
    if [[ -s $json ]]; then jsons+=("$json"); fi
  fi
done

if ((${#jsons[@]} == 0)); then
  echo "run.sh: no benchmark ran (filter: '${filter}')" >&2
  exit 1
fi
python3 tools/bench/report.py --out "$out/bench-results.json" --markdown "$out/bench-results.md" "${jsons[@]}"
echo "run.sh: results in $out/bench-results.json (table: $out/bench-results.md)" >&2
if ((${#failed[@]})); then
  echo "run.sh: failed: ${failed[*]}" >&2
  exit 1
fi
