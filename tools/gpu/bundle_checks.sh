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
