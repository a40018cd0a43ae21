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
#                           13 libraries on the machine), then the folders `ldconfig -p` names.
#                           libcublas and libcublasLt come from one folder, the first that holds both:
#                           libcublas calls into the libcublasLt of its own release, and two folders
#                           (a toolkit's and a wheel's) may hold different releases
#   CUSTODY_REQUIRE_CUDA=1  a test whose GPU is missing fails instead of skipping (testing/device.h)
#   CUSTODY_GC_SYSTEM_DIRS  <bundle>/lib, /usr/local/nvidia and the CUDA folders chosen: the gc policy
#                           does not scan those libraries' static data at each collection (Note [Static
#                           roots], policies/gc/gc.h; libcublasLt alone has ~190 MB of it)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The folders that may hold LIBS, in the search order above (a folder may be listed twice).
candidate_dirs() {
  local cuda_home=${CUDA_HOME:-/usr/local/cuda} python=${PYTHON:-python3} sp d
  printf '%s\n' "$cuda_home/lib64" "$cuda_home/lib" "$cuda_home/targets/x86_64-linux/lib"
  if command -v "$python" >/dev/null 2>&1; then
    while IFS= read -r sp; do
      [[ -n $sp && -d $sp/nvidia ]] || continue
      for d in "$sp"/nvidia/*/lib "$sp"/nvidia/*/*/lib; do
        if [[ -d $d ]]; then echo "$d"; fi
      done
    done < <("$python" -c 'import site, sys
for p in site.getsitepackages() + [site.getusersitepackages()] + sys.path: print(p)' 2>/dev/null || true)
  fi
  if command -v ldconfig >/dev/null 2>&1; then
    # The folder of each entry for one of LIBS (the folder the loader would search for that name).
    ldconfig -p 2>/dev/null | awk -v libs=" $* " 'index(libs, " " $1 " ") { print $NF }' |
      while IFS= read -r f; do dirname "$f"; done || true
  fi
}

# The first candidate folder that holds every one of LIBS, or nothing.
find_dir_with() {
  local d lib all
  while IFS= read -r d; do
    all=1
    for lib in "$@"; do [[ -e $d/$lib ]] || { all=0; break; }; done
    if ((all)); then echo "$d"; return 0; fi
  done < <(candidate_dirs "$@")
  return 0
}

searched="${CUDA_HOME:-/usr/local/cuda}/lib64, the pip nvidia/*/lib folders of ${PYTHON:-python3}, ldconfig -p"

# Fills cuda_dirs (unique, in order) and reports each library's choice on stderr when asked. The
# libraries of system_libs.txt are looked for in groups that must share a folder: libcublas with
# libcublasLt, every other library on its own.
cuda_dirs=()
missing_libs=()
choose_libs() {
  local verbose=$1 lib d group_name where=()
  [[ -f $here/system_libs.txt ]] || return 0
  local blas=() others=()
  while IFS= read -r lib; do
    [[ -n $lib ]] || continue
    if [[ -e $here/lib/$lib ]]; then
      ((verbose)) && echo "launch: $lib: the bundle's ($here/lib)" >&2
      continue
    fi
    if [[ $lib =~ ^libcublas(Lt)?\.so ]]; then blas+=("$lib"); else others+=("$lib"); fi
  done <"$here/system_libs.txt"
  local groups=()
  if ((${#blas[@]})); then groups+=("${blas[*]}"); fi
  for lib in "${others[@]}"; do groups+=("$lib"); done
  for group_name in "${groups[@]}"; do
    local group=()
    read -ra group <<<"$group_name"
    d=$(find_dir_with "${group[@]}")
    if [[ -z $d ]]; then
      missing_libs+=("${group[@]}")
      if ((verbose)); then
        if ((${#group[@]} > 1)); then
          where=()
          for lib in "${group[@]}"; do d=$(find_dir_with "$lib"); where+=("$lib in ${d:-none}"); done
          echo "launch: ${group[*]}: NOT FOUND together in one folder (searched $searched; alone: $(IFS=';'; echo "${where[*]}" | sed 's/;/; /g'))" >&2
        else
          echo "launch: $group_name: NOT FOUND (searched $searched)" >&2
        fi
      fi
      continue
    fi
    if ((verbose)); then
      for lib in "${group[@]}"; do echo "launch: $lib: $d" >&2; done
    fi
    # The first group is libcublas's: its folder leads LD_LIBRARY_PATH, so a libcublas in a folder
    # chosen for another library is not the one loaded.
    [[ " ${cuda_dirs[*]} " == *" $d "* ]] || cuda_dirs+=("$d")
  done
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
  echo "launch: cannot find ${missing_libs[*]} (searched $searched; libcublas and libcublasLt in one folder); set CUDA_HOME, or install cuBLAS 13 (./launch --which-libs says more)" >&2
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
