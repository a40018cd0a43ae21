#!/usr/bin/env bash
# launch — runs bin/NAME of a custody GPU bundle (tools/gpu/pack.sh copies this file to the bundle's
# top as `launch`) with the bundle's libraries, whatever the binaries' run paths say:
#
#   ./launch NAME [ARGS...]      runs bin/NAME
#   ./launch --which-libs        says which CUDA libraries it chose, and from where (exit 1: not found)
#
# Environment it sets for the binary (each can be overridden by setting it first):
#   LD_LIBRARY_PATH         <bundle>/solib (custody's own libraries), <bundle>/lib (every other library
#                           packed), then the folders of the CUDA libraries the bundle left out
#                           (system_libs.txt, when packed with --system-cuda-libs), found by searching,
#                           in order: $CUDA_HOME/lib64 (default /usr/local/cuda), the pip `nvidia/*/lib`
#                           folders of $PYTHON (default python3: PyTorch's wheels may hold the only CUDA
#                           13 libraries on the machine), then `ldconfig -p`
#   CUSTODY_REQUIRE_CUDA=1  a test whose GPU is missing fails instead of skipping (testing/device.h)
#   CUSTODY_GC_SYSTEM_DIRS  <bundle>/lib, /usr/local/nvidia and the CUDA folders chosen: the gc policy
#                           does not scan those libraries' static data at each collection (Note [Static
#                           roots], policies/gc/gc.h; libcublasLt alone has ~190 MB of it)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The folder holding `lib` for this machine, or nothing: the search order above.
find_lib_dir() {
  local lib=$1 cuda_home=${CUDA_HOME:-/usr/local/cuda} d sp f
  for d in "$cuda_home/lib64" "$cuda_home/lib" "$cuda_home/targets/x86_64-linux/lib"; do
    if [[ -e $d/$lib ]]; then echo "$d"; return; fi
  done
  local python=${PYTHON:-python3}
  if command -v "$python" >/dev/null 2>&1; then
    while IFS= read -r sp; do
      [[ -n $sp && -d $sp/nvidia ]] || continue
      for f in "$sp"/nvidia/*/lib/"$lib" "$sp"/nvidia/*/*/lib/"$lib"; do
        if [[ -e $f ]]; then dirname "$f"; return; fi
      done
    done < <("$python" -c 'import site, sys
for p in site.getsitepackages() + [site.getusersitepackages()] + sys.path: print(p)' 2>/dev/null || true)
  fi
  if command -v ldconfig >/dev/null 2>&1; then
    # awk reads to the end (no early exit: ldconfig must not die of SIGPIPE under pipefail).
    f=$(ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l && !found { print $NF; found = 1 }' || true)
    if [[ -n $f && -e $f ]]; then dirname "$(readlink -f "$f")"; return; fi
  fi
  return 0
}

# Fills cuda_dirs (unique, in order) and reports each library's choice on stderr when asked.
cuda_dirs=()
missing_libs=()
choose_libs() {
  local verbose=$1 lib d
  [[ -f $here/system_libs.txt ]] || return 0
  while IFS= read -r lib; do
    [[ -n $lib ]] || continue
    if [[ -e $here/lib/$lib ]]; then
      ((verbose)) && echo "launch: $lib: the bundle's ($here/lib)" >&2
      continue
    fi
    d=$(find_lib_dir "$lib")
    if [[ -z $d ]]; then
      missing_libs+=("$lib")
      ((verbose)) && echo "launch: $lib: NOT FOUND (searched ${CUDA_HOME:-/usr/local/cuda}/lib64, the pip nvidia/*/lib folders of ${PYTHON:-python3}, ldconfig -p)" >&2
      continue
    fi
    ((verbose)) && echo "launch: $lib: $d" >&2
    [[ " ${cuda_dirs[*]} " == *" $d "* ]] || cuda_dirs+=("$d")
  done <"$here/system_libs.txt"
}

if (($# == 0)); then
  echo "usage: launch NAME [ARGS...] | launch --which-libs; binaries: $(ls "$here/bin" | tr '\n' ' ')" >&2
  exit 2
fi
if [[ $1 == --which-libs ]]; then
  choose_libs 1
  if [[ ! -f $here/system_libs.txt ]]; then
    echo "launch: the bundle carries every library it needs (no system_libs.txt)" >&2
  fi
  ((${#missing_libs[@]} == 0)) || exit 1
  exit 0
fi

bin=$here/bin/$1
shift
[[ -x $bin ]] || { echo "launch: no binary $bin" >&2; exit 2; }
choose_libs 0
if ((${#missing_libs[@]})); then
  echo "launch: cannot find ${missing_libs[*]} (searched ${CUDA_HOME:-/usr/local/cuda}/lib64, the pip nvidia/*/lib folders of ${PYTHON:-python3}, ldconfig -p); set CUDA_HOME, or install the CUDA 13 runtime and cuBLAS" >&2
  exit 127
fi
path="$here/solib:$here/lib"
gc_dirs="$here/lib:/usr/local/nvidia"
for d in "${cuda_dirs[@]}"; do
  path+=":$d"
  gc_dirs+=":$d"
done
export LD_LIBRARY_PATH="$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUSTODY_REQUIRE_CUDA=${CUSTODY_REQUIRE_CUDA:-1}
export CUSTODY_GC_SYSTEM_DIRS=${CUSTODY_GC_SYSTEM_DIRS:-$gc_dirs}
exec "$bin" "$@"
