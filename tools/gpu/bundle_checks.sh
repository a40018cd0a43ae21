# tools/gpu/bundle_checks.sh — checks on the files of a GPU bundle, sourced by pack.sh and tested by
# bundle_checks_test.sh.

# check_no_rpath FILE... — fails (status 1), naming each file and its DT_RPATH, when any ELF file has
# one. A DT_RPATH is searched before LD_LIBRARY_PATH: the build machine's folders (Bazel's _solib_k8,
# /usr/local/cuda/lib64) would win over the bundle's launcher on the GPU machine. DT_RUNPATH, what the
# toolchain writes by default, is searched after LD_LIBRARY_PATH and is fine.
check_no_rpath() {
  local f rpath bad=0
  for f in "$@"; do
    [[ -f $f ]] || continue
    rpath=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p')
    if [[ -n $rpath ]]; then
      echo "pack.sh: $(basename "$f") has a DT_RPATH ($rpath), which LD_LIBRARY_PATH cannot override;" \
        "link it without -Wl,--disable-new-dtags (a RUNPATH is fine)" >&2
      bad=1
    fi
  done
  return "$bad"
}

# The CUDA libraries pack.sh --system-cuda-libs leaves for the GPU machine to provide: cuBLAS and
# cuBLASLt, 570 MiB that the machine's CUDA 13 toolkit or PyTorch's wheels have (the launcher finds
# them). The CUDA runtime, libcudart (0.7 MB), is always packed: the binaries then run on the runtime
# they were built with, whatever release the machine has or lacks.
left_to_system_re='^(libcublas|libcublasLt)\.so'

# left_to_system SONAME — whether --system-cuda-libs leaves SONAME out of the bundle.
left_to_system() { [[ $1 =~ $left_to_system_re ]]; }

# check_cuda_libs STAGE SYSTEM_CUDA — fails (status 1), naming what is wrong, unless the bundle at STAGE
# packs the CUDA runtime (lib/libcudart.so.*) and, with SYSTEM_CUDA=1, leaves libcublas and libcublasLt
# to the machine (not in lib/, listed in system_libs.txt, which lists nothing else), or, with
# SYSTEM_CUDA=0, packs both (lib/) and has no system_libs.txt.
check_cuda_libs() {
  local stage=$1 system_cuda=$2 bad=0 lib f
  if ! compgen -G "$stage/lib/libcudart.so.*" >/dev/null; then
    echo "pack.sh: the bundle has no lib/libcudart.so.*: the CUDA runtime is always packed" >&2
    bad=1
  fi
  for lib in libcublas libcublasLt; do
    if ((system_cuda)); then
      if compgen -G "$stage/lib/$lib.so.*" >/dev/null; then
        echo "pack.sh: --system-cuda-libs, yet lib/ holds $(cd "$stage/lib" && echo $lib.so.*)" >&2
        bad=1
      fi
      if ! grep -q "^$lib\.so\." "$stage/system_libs.txt" 2>/dev/null; then
        echo "pack.sh: --system-cuda-libs, yet system_libs.txt does not name $lib.so.*" >&2
        bad=1
      fi
    elif ! compgen -G "$stage/lib/$lib.so.*" >/dev/null; then
      echo "pack.sh: the bundle has no lib/$lib.so.* (packed without --system-cuda-libs)" >&2
      bad=1
    fi
  done
  if ((system_cuda)) && [[ -f $stage/system_libs.txt ]]; then
    while IFS= read -r f; do
      if [[ -z $f ]] || left_to_system "$f"; then continue; fi
      echo "pack.sh: system_libs.txt names $f, which the bundle packs (only cuBLAS is left out)" >&2
      bad=1
    done <"$stage/system_libs.txt"
  elif ((!system_cuda)) && [[ -e $stage/system_libs.txt ]]; then
    echo "pack.sh: system_libs.txt in a bundle that packs every CUDA library" >&2
    bad=1
  fi
  return "$bad"
}
