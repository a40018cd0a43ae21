#!/usr/bin/env bash
# tools/gpu/pack.sh — builds the CUDA tests, the GPU benchmark and the compare tool for the GPU and packs
# them, with every shared library they need, into one tar.gz for a GPU machine that has no Bazel and no
# Debian libraries (tools/gpu/README.md; run it there with tools/gpu/run.sh).
#
#   tools/gpu/pack.sh [--out DIR] [--system-cuda-libs] [--strict]
#
#   --out DIR            where custody-gpu.tar.gz (and a copy of run.sh beside it) go
#                        (default: bazel-gpu/ in the workspace, ignored by git like every bazel-*)
#   --system-cuda-libs   leave libcublas and libcublasLt out: the GPU machine's own cuBLAS 13 is used (the
#                        launcher searches $CUDA_HOME/lib64, the pip nvidia/*/lib folders of python3 and
#                        ldconfig, and says what it chose: launch --which-libs). libcudart is packed
#                        either way (0.7 MB: the runtime the binaries were built with)
#   --strict             fail when any of the targets below is missing or does not build (default:
#                        pack what builds, warn about the rest and record them in the bundle's MANIFEST
#                        as `missing:`, which run.sh prints in its summary)
#
#  1. ./bazelw build --config=cuda --config=opt --keep_going of
#       //backends/cuda:{errors_test,device_allocator_test,device_allocator_malloc_test,cuda_test}
#       //third_party/smoke:cuda_smoke_test //tests/conformance:kernels_cuda
#       //tests/conformance:conformance_<policy>_cuda, every policy of the matrix  (tests)
#       //backends/cuda:cuda_benchmark                                       (benchmarks)
#       //tools/compare:compare_cuda                                         (tools)
#       //tools/gpu:cuda_preflight                                       (device_check.sh's first step)
#     (which of them built comes from the build's event file, not from stale files in bazel-bin);
#  2. copies each binary to bin/ and every shared library `ldd` finds for it, custody's own (built by
#     Bazel) to solib/ and the others to lib/, except what
#     every Linux machine with an NVIDIA driver has: glibc (libc, libm, libmvec, libpthread, libdl,
#     librt, libutil, libresolv, ld-linux) and the driver's libcuda.so; libstdc++, libgcc_s, Abseil,
#     oneDNN, libgomp, ... are packed. Fails, naming the binary, if any of them links libtorch (the
#     cuda conformance binaries use the oneDNN oracle) or needs a library ldd cannot find;
#  3. `strip --strip-unneeded` on the copies (not on NVIDIA's libraries, which come stripped);
#  4. checks the bundle is self-contained (with LD_LIBRARY_PATH=solib:lib, ldd resolves every library
#     it packed into the bundle), fails if any packed file has a DT_RPATH (searched before
#     LD_LIBRARY_PATH, so the build machine's paths would win over the launcher's; DT_RUNPATH is
#     searched after it and is harmless), and records the newest glibc symbol version it needs
#     (MANIFEST: glibc_min); after step 5's lists, fails unless lib/ holds libcudart and cuBLAS is
#     packed or left out as asked (tools/gpu/bundle_checks.sh: check_cuda_libs);
#  5. writes launch (tools/gpu/launch.sh: LD_LIBRARY_PATH, the CUDA library search, CUSTODY_REQUIRE_CUDA,
#     CUSTODY_GC_SYSTEM_DIRS), run.sh, device_check.sh, report.py, torch_peer.py, gtest_shards.py,
#     test_summary.py, tests.txt, benchmarks.txt, tools.txt (the binaries of each kind that were packed,
#     one name a line), system_libs.txt (the libraries left for the machine to provide) and MANIFEST,
#     and tars everything into DIR/custody-gpu.tar.gz, printing its size; with --system-cuda-libs,
#     fails when that is over 55 MiB (what a lent GPU machine can take, sources included, is 64 MiB).
#
# Size, measured 2026 (CUDA 13.0, Debian 12): about 300 MiB with NVIDIA's libraries (libcublasLt alone
# is 517 MiB uncompressed), a few MiB with --system-cuda-libs (tools/gpu/README.md has the numbers).
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
workspace=$PWD
# left_to_system, check_no_rpath, check_cuda_libs.
source tools/gpu/bundle_checks.sh
bazel=(./bazelw)
build_flags=(--config=cuda --config=opt)

out=""
system_cuda=0
strict=0
while (($#)); do
  case "$1" in
    --out) out=${2?--out needs a directory}; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --system-cuda-libs) system_cuda=1; shift ;;
    --strict) strict=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "pack.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out=${out:-bazel-gpu}
mkdir -p "$out"
out=$(cd "$out" && pwd)

for tool in python3 ldd strip readelf objdump tar gzip git; do
  command -v "$tool" >/dev/null || { echo "pack.sh: needs $tool" >&2; exit 1; }
done

# The backend's own tests first (device_check.sh runs them in this order), then the matrix.
tests=(//backends/cuda:errors_test //backends/cuda:device_allocator_test
  //backends/cuda:device_allocator_malloc_test //third_party/smoke:cuda_smoke_test
  //backends/cuda:cuda_test //tests/conformance:kernels_cuda)
# Every policy's matrix binary on cuda, as the matrix generates them from the lists of
# tools/build_defs/flags.bzl (a new policy is packed with no edit here).
while IFS= read -r label; do
  tests+=("$label")
done < <("${bazel[@]}" query --noshow_progress 'filter("^//tests/conformance:conformance_[a-z_0-9]+_cuda$", //tests/conformance:all)' 2>/dev/null)
(( ${#tests[@]} > 6 )) || { echo "pack.sh: bazel query found no //tests/conformance:conformance_*_cuda target" >&2; exit 1; }
benchmarks=(//backends/cuda:cuda_benchmark)
tools=(//tools/compare:compare_cuda)
preflight=(//tools/gpu:cuda_preflight)
targets=("${tests[@]}" "${benchmarks[@]}" "${tools[@]}" "${preflight[@]}")

work=$(mktemp -d "${TMPDIR:-/tmp}/custody-gpu-pack.XXXXXX")
trap 'rm -rf "$work"' EXIT
bep="$work/bep.json"

# 1. Build. --keep_going: everything that can be built is; what cannot is named below.
echo "pack.sh: ./bazelw build ${build_flags[*]} ${targets[*]}" >&2
set +e
"${bazel[@]}" build "${build_flags[@]}" --keep_going --build_event_json_file="$bep" "${targets[@]}"
build_rc=$?
set -e
echo "pack.sh: bazel build exited $build_rc" >&2

# Which requested targets built, and their executables (from the event file).
built_list="$work/built.txt"
python3 - "$bep" "$workspace" "${targets[@]}" >"$built_list" <<'EOF'
import json, os, sys, urllib.parse
bep, workspace, labels = sys.argv[1], sys.argv[2], sys.argv[3:]
done = {}
with open(bep, encoding="utf-8", errors="replace") as f:
    for line in f:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        tid = ev.get("id", {}).get("targetCompleted")
        if not tid or "completed" not in ev:
            continue
        c = ev["completed"]
        if not c.get("success"):
            continue
        label = tid["label"].lstrip("@")
        pkg, name = label[2:].split(":", 1)
        files = []
        for o in c.get("importantOutput", []):
            uri = o.get("uri", "")
            if uri.startswith("file://"):
                files.append(urllib.parse.unquote(urllib.parse.urlparse(uri).path))
        exe = [p for p in files if p.endswith("/" + pkg + "/" + name)]
        if exe:
            done[label] = exe[0]
for label in labels:
    print(label, done.get(label, "-"))
EOF

mapfile -t built_rows <"$built_list"
packed_tests=()
packed_benchmarks=()
packed_tools=()
packed_preflight=()
missing=()
declare -A exe_of=()
for row in "${built_rows[@]}"; do
  label=${row%% *}
  exe=${row#* }
  if [[ $exe == - || ! -x $exe ]]; then
    missing+=("$label")
    continue
  fi
  exe_of[$label]=$exe
  if [[ " ${benchmarks[*]} " == *" $label "* ]]; then
    packed_benchmarks+=("$label")
  elif [[ " ${tools[*]} " == *" $label "* ]]; then
    packed_tools+=("$label")
  elif [[ " ${preflight[*]} " == *" $label "* ]]; then
    packed_preflight+=("$label")
  else
    packed_tests+=("$label")
  fi
done
if ((${#missing[@]})); then
  echo "pack.sh: WARNING: not built (missing, or failed to build; see the bazel output above):" >&2
  printf '  %s\n' "${missing[@]}" >&2
  if ((strict)); then
    echo "pack.sh: --strict: giving up" >&2
    exit 1
  fi
fi
if ((${#exe_of[@]} == 0)); then
  echo "pack.sh: nothing built; nothing to pack" >&2
  exit 1
fi

# 2. Binaries and their libraries.
stage="$work/custody-gpu"
mkdir -p "$stage/bin" "$stage/lib" "$stage/solib" "$stage/py"
# glibc's libraries and the loader, and the driver's libcuda: present on the GPU machine.
system_re='^(linux-vdso\.so|linux-gate\.so|ld-linux[^/]*\.so|libc\.so|libm\.so|libmvec\.so|libpthread\.so|libdl\.so|librt\.so|libutil\.so|libresolv\.so|libanl\.so|libcuda\.so)'
torch_re='^lib(torch|torch_cpu|torch_cuda|torch_global_deps|c10|c10_cuda)\.so'
declare -A lib_src=()
declare -A left_out=()  # CUDA libraries the machine provides (--system-cuda-libs)
failed=0
for label in "${packed_tests[@]}" "${packed_benchmarks[@]}" "${packed_tools[@]}" "${packed_preflight[@]}"; do
  exe=${exe_of[$label]}
  name=${label##*:}
  if [[ -e $stage/bin/$name ]]; then
    echo "pack.sh: two targets named $name" >&2
    exit 1
  fi
  cp -L "$exe" "$stage/bin/$name"
  chmod u+w "$stage/bin/$name"
  if ! ldd_out=$(ldd "$exe" 2>&1); then
    echo "pack.sh: ldd $exe failed: $ldd_out" >&2
    exit 1
  fi
  while read -r soname arrow path _; do
    [[ $arrow == "=>" ]] || continue  # the vdso and the loader itself
    if [[ $soname =~ $torch_re ]]; then
      echo "pack.sh: $label links libtorch ($soname => $path): the GPU bundle must not need" \
        "libtorch (cuda binaries use the oneDNN oracle, //tests/conformance:oracle_onednn)" >&2
      failed=1
      continue
    fi
    [[ $soname =~ $system_re ]] && continue
    if ((system_cuda)) && left_to_system "$soname"; then
      left_out[$soname]=1
      continue
    fi
    if [[ $path == not ]]; then
      echo "pack.sh: $label needs $soname, which ldd cannot find" >&2
      failed=1
      continue
    fi
    real=$(readlink -f "$path")
    if [[ -n ${lib_src[$soname]:-} && ${lib_src[$soname]} != "$real" ]]; then
      echo "pack.sh: $soname resolves to both ${lib_src[$soname]} and $real" >&2
      failed=1
      continue
    fi
    lib_src[$soname]=$real
  done <<<"$ldd_out"
done
if ((failed)); then exit 1; fi

# custody's own libraries (Bazel's _solib_*, bazel-out) to solib/, the rest to lib/: the launcher names
# lib/ as a system folder for the gc policy's root filter, solib/ stays scanned (Note [Static roots]).
for soname in "${!lib_src[@]}"; do
  case "${lib_src[$soname]}" in
    */bazel-out/*|*/_solib_*|*/execroot/*) dir=solib ;;
    *) dir=lib ;;
  esac
  cp -L "${lib_src[$soname]}" "$stage/$dir/$soname"
  chmod u+w "$stage/$dir/$soname"
done

# 3. Strip our binaries and the non-NVIDIA libraries (Debian's are mostly stripped already).
strip --strip-unneeded "$stage"/bin/*
for f in "$stage"/solib/* "$stage"/lib/*; do
  [[ -e $f ]] || continue
  case "$(basename "$f")" in
    libcu*|libnv*) ;;
    *) strip --strip-unneeded "$f" ;;
  esac
done

# 4. Self-contained? Every library packed resolves into the bundle with LD_LIBRARY_PATH=solib:lib alone.
for f in "$stage"/bin/*; do
  while read -r soname arrow path _; do
    [[ $arrow == "=>" ]] || continue
    for dir in solib lib; do
      if [[ -e $stage/$dir/$soname && $path != "$stage/$dir/$soname" ]]; then
        echo "pack.sh: $(basename "$f"): $soname resolves to $path, not to the bundle's $dir/" >&2
        failed=1
      fi
    done
  done < <(LD_LIBRARY_PATH="$stage/solib:$stage/lib" ldd "$f" 2>&1)
done
# No DT_RPATH: the launcher's LD_LIBRARY_PATH must decide (tools/gpu/bundle_checks.sh).
if ! check_no_rpath "$stage"/bin/* "$stage"/solib/* "$stage"/lib/*; then failed=1; fi
if ((failed)); then exit 1; fi
glibc_min=$(for f in "$stage"/bin/* "$stage"/solib/* "$stage"/lib/*; do objdump -T "$f" 2>/dev/null; done |
  grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)

# 5. Launcher, scripts, manifest, archive.
cp tools/gpu/launch.sh "$stage/launch"
chmod +x "$stage/launch"
cp tools/gpu/run.sh "$stage/run.sh"
cp tools/gpu/device_check.sh "$stage/device_check.sh"
chmod +x "$stage/device_check.sh"
cp tools/gpu/report.py tools/gpu/torch_peer.py tools/gpu/gtest_shards.py tools/test_summary/test_summary.py \
  "$stage/py/"
chmod +x "$stage/run.sh"
for label in "${packed_tests[@]}"; do echo "${label##*:}"; done >"$stage/tests.txt"
for label in "${packed_benchmarks[@]}"; do echo "${label##*:}"; done >"$stage/benchmarks.txt"
for label in "${packed_tools[@]}"; do echo "${label##*:}"; done >"$stage/tools.txt"
if ((system_cuda)); then
  printf '%s\n' "${!left_out[@]}" | sort >"$stage/system_libs.txt"
fi
check_cuda_libs "$stage" "$system_cuda" || exit 1

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -c . || true)
{
  echo "custody GPU bundle (tools/gpu/pack.sh)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "built_on: $(uname -srm), $(ldd --version | head -n 1)"
  echo "commit: $commit ($dirty uncommitted changes in the working tree)"
  echo "bazel_flags: ${build_flags[*]}"
  echo "cuda_toolkit: $(readlink -f "${CUDA_PATH:-/usr/local/cuda}")"
  echo "cuda_libs_packed: $( ((system_cuda)) && echo "libcudart only (--system-cuda-libs: the machine's cuBLAS 13)" || echo yes)"
  echo "glibc_min: ${glibc_min:-unknown}"
  echo "tests: ${packed_tests[*]}"
  echo "benchmarks: ${packed_benchmarks[*]}"
  echo "tools: ${packed_tools[*]}"
  echo "preflight: ${packed_preflight[*]}"
  echo "system_libs: $( ((system_cuda)) && printf '%s ' "${!left_out[@]}")"
  echo "missing: ${missing[*]}"
  echo "files:"
  (cd "$stage" && find bin solib lib -type f -printf '%s %p\n' | sort -k2 | awk '{printf "  %8.1f MiB  %s\n", $1 / 1048576, $2}')
} >"$stage/MANIFEST"

archive="$out/custody-gpu.tar.gz"
tar -C "$work" -cf - custody-gpu | gzip -6 >"$archive.tmp"
mv "$archive.tmp" "$archive"
cp tools/gpu/run.sh "$out/run.sh"
chmod +x "$out/run.sh"

raw=$(du -sb "$stage" | cut -f1)
size=$(stat -c %s "$archive")
cat "$stage/MANIFEST" >&2
# What can be copied to a lent GPU machine is 64 MiB, sources included: a bundle without NVIDIA's
# libraries must stay under 55 MiB (tools/gpu/README.md).
limit_mib=55
if ((system_cuda && size > limit_mib * 1048576)); then
  echo "pack.sh: $archive is $((size / 1048576)) MiB, over the ${limit_mib} MiB a GPU window can take;" \
    "see the file sizes in the MANIFEST above" >&2
  exit 1
fi
awk -v a="$archive" -v s="$size" -v r="$raw" -v t="${#packed_tests[@]}" -v b="${#packed_benchmarks[@]}" \
  -v o="${#packed_tools[@]}" -v m="${#missing[@]}" -v n="${#targets[@]}" 'BEGIN {
    printf "pack.sh: %s: %.1f MiB (%.1f MiB unpacked; %d tests, %d benchmarks, %d tools; %d of %d targets missing)\n",
      a, s / 1048576, r / 1048576, t, b, o, m, n }' >&2
echo "pack.sh: on the GPU machine: tar -xzf custody-gpu.tar.gz && custody-gpu/device_check.sh custody-gpu OUT" \
  "(the sized check, tools/gpu/README.md), or bash run.sh custody-gpu.tar.gz --out results (everything)" >&2
