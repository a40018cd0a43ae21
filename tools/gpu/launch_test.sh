#!/usr/bin/env bash
# tools/gpu/launch.sh on a fake bundle: where it finds the CUDA libraries the bundle left out (CUDA_HOME,
# then the pip nvidia/*/lib folders of python3, then ldconfig), that libcublas and libcublasLt come from
# one folder holding both, that it says what it chose, that it fails naming what it could not find, and
# the environment it gives the binary (LD_LIBRARY_PATH with the bundle's folders first,
# CUSTODY_REQUIRE_CUDA=1, CUSTODY_GC_SYSTEM_DIRS).
#   launch_test.sh LAUNCH_SH
set -euo pipefail
launch_src=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/launch_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_in() { [[ $2 == *"$1"* ]] || fail "expected '$1' in: $2"; }

bundle=$tmp/custody-gpu
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/solib"
cp "$launch_src" "$bundle/launch"
chmod +x "$bundle/launch"
printf 'libcublas.so.13\nlibcublasLt.so.13\nlibcudart.so.13\n' >"$bundle/system_libs.txt"
cat >"$bundle/bin/show_env" <<'SH'
#!/usr/bin/env bash
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
echo "CUSTODY_REQUIRE_CUDA=$CUSTODY_REQUIRE_CUDA"
echo "CUSTODY_GC_SYSTEM_DIRS=$CUSTODY_GC_SYSTEM_DIRS"
echo "ARGS=$*"
SH
chmod +x "$bundle/bin/show_env"

# A python3 whose site-packages hold PyTorch's CUDA 13 wheels (nvidia/cu13/lib), and no ldconfig hit.
site=$tmp/site-packages
mkdir -p "$site/nvidia/cu13/lib" "$tmp/pybin"
for l in libcublas.so.13 libcublasLt.so.13 libcudart.so.13; do touch "$site/nvidia/cu13/lib/$l"; done
cat >"$tmp/pybin/python3" <<SH
#!/usr/bin/env bash
echo "$site"
SH
chmod +x "$tmp/pybin/python3"
export PYTHON=$tmp/pybin/python3
# An ldconfig that knows what $tmp/ldconfig.txt says (nothing at first); the real one stays off PATH.
cat >"$tmp/pybin/ldconfig" <<SH
#!/usr/bin/env bash
[[ -f $tmp/ldconfig.txt ]] && cat $tmp/ldconfig.txt
exit 0
SH
chmod +x "$tmp/pybin/ldconfig"
export PATH=$tmp/pybin:/usr/bin:/bin

# 1. Nothing under CUDA_HOME: the pip folder is chosen, and said.
export CUDA_HOME=$tmp/no-cuda
out=$("$bundle/launch" --which-libs 2>&1) || fail "--which-libs failed: $out"
expect_in "libcublasLt.so.13: $site/nvidia/cu13/lib" "$out"
env_out=$("$bundle/launch" show_env a b 2>&1)
expect_in "LD_LIBRARY_PATH=$bundle/solib:$bundle/lib:$site/nvidia/cu13/lib" "$env_out"
expect_in "CUSTODY_REQUIRE_CUDA=1" "$env_out"
expect_in "CUSTODY_GC_SYSTEM_DIRS=$bundle/lib:/usr/local/nvidia:$site/nvidia/cu13/lib" "$env_out"
expect_in "ARGS=a b" "$env_out"

# 2. CUDA_HOME has them: it wins over pip.
export CUDA_HOME=$tmp/cuda
mkdir -p "$CUDA_HOME/lib64"
for l in libcublas.so.13 libcublasLt.so.13 libcudart.so.13; do touch "$CUDA_HOME/lib64/$l"; done
out=$("$bundle/launch" --which-libs 2>&1) || fail "--which-libs failed: $out"
expect_in "libcublasLt.so.13: $CUDA_HOME/lib64" "$out"
env_out=$("$bundle/launch" show_env 2>&1)
expect_in "LD_LIBRARY_PATH=$bundle/solib:$bundle/lib:$CUDA_HOME/lib64" "$env_out"

# 3. A caller's CUSTODY_REQUIRE_CUDA=0 is kept (to see the skips on purpose).
env_out=$(CUSTODY_REQUIRE_CUDA=0 "$bundle/launch" show_env 2>&1)
expect_in "CUSTODY_REQUIRE_CUDA=0" "$env_out"

# 4. A library found nowhere: named, with where it looked; exit 127, the binary not run.
rm "$CUDA_HOME/lib64/libcublasLt.so.13" "$site/nvidia/cu13/lib/libcublasLt.so.13"
rc=0; out=$("$bundle/launch" --which-libs 2>&1) || rc=$?
((rc == 1)) || fail "--which-libs with a library missing: expected exit 1, got $rc: $out"
expect_in "libcublas.so.13 libcublasLt.so.13: NOT FOUND together in one folder" "$out"
expect_in "libcublasLt.so.13 in none" "$out"
expect_in "libcudart.so.13: $CUDA_HOME/lib64" "$out"
rc=0; out=$("$bundle/launch" show_env 2>&1) || rc=$?
((rc == 127)) || fail "expected exit 127 when a library is missing, got $rc: $out"
expect_in "cannot find libcublas.so.13 libcublasLt.so.13" "$out"
[[ $out != *"LD_LIBRARY_PATH="* ]] || fail "the binary ran without its libraries: $out"

# 4b. libcublasLt only in ldconfig's cache, libcublas only elsewhere: never one from each folder.
mkdir -p "$tmp/ldcache"
touch "$tmp/ldcache/libcublasLt.so.13"
printf '\tlibcublasLt.so.13 (libc6,x86-64) => %s\n' "$tmp/ldcache/libcublasLt.so.13" >"$tmp/ldconfig.txt"
rc=0; out=$("$bundle/launch" --which-libs 2>&1) || rc=$?
((rc == 1)) || fail "libcublas and libcublasLt in different folders: expected exit 1, got $rc: $out"
expect_in "NOT FOUND together in one folder" "$out"
expect_in "libcublas.so.13 in $CUDA_HOME/lib64; libcublasLt.so.13 in $tmp/ldcache" "$out"

# 4c. ldconfig's cache, last: used when it is the one folder holding both, even though CUDA_HOME (first
# in the search) has libcublas; that folder comes first on LD_LIBRARY_PATH, before CUDA_HOME's (chosen
# for libcudart), so the loader takes both from it.
touch "$tmp/ldcache/libcublas.so.13"
printf '\tlibcublas.so.13 (libc6,x86-64) => %s\n' "$tmp/ldcache/libcublas.so.13" >>"$tmp/ldconfig.txt"
out=$("$bundle/launch" --which-libs 2>&1) || fail "--which-libs failed: $out"
expect_in "libcublasLt.so.13: $tmp/ldcache" "$out"
expect_in "libcublas.so.13: $tmp/ldcache" "$out"
expect_in "libcudart.so.13: $CUDA_HOME/lib64" "$out"
env_out=$("$bundle/launch" show_env 2>&1)
expect_in "LD_LIBRARY_PATH=$bundle/solib:$bundle/lib:$tmp/ldcache:$CUDA_HOME/lib64" "$env_out"

# 4d. The pip wheel's folder holds both, CUDA_HOME only libcublas: the wheel's folder, for both.
rm "$tmp/ldconfig.txt"
touch "$site/nvidia/cu13/lib/libcublasLt.so.13"
out=$("$bundle/launch" --which-libs 2>&1) || fail "--which-libs failed: $out"
expect_in "libcublas.so.13: $site/nvidia/cu13/lib" "$out"
expect_in "libcublasLt.so.13: $site/nvidia/cu13/lib" "$out"

# 5. A bundle that carries its CUDA libraries: no search.
rm "$bundle/system_libs.txt"
out=$("$bundle/launch" --which-libs 2>&1) || fail "--which-libs failed: $out"
expect_in "carries every library" "$out"
env_out=$("$bundle/launch" show_env 2>&1)
expect_in "LD_LIBRARY_PATH=$bundle/solib:$bundle/lib" "$env_out"

# 6. Usage.
rc=0; "$bundle/launch" >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "no arguments: expected exit 2, got $rc"
rc=0; "$bundle/launch" nonesuch >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "unknown binary: expected exit 2, got $rc"
echo "launch_test: ok"
