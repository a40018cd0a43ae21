"""custody_dependencies(): every repository custody needs, for custody's own WORKSPACE and for a
workspace that uses custody. Nothing is downloaded (README, "Using custody from another workspace"):

    local_repository(name = "custody", path = "/path/to/custody")
    load("@custody//:repositories.bzl", "custody_dependencies")
    custody_dependencies()

  * @rules_cc, @rules_java, @remote_coverage_tools: small local stubs (third_party/stubs). Bazel 4.2.3
    asks for them even for pure C++; Debian's bazel-rules-cc package is too new for it. A workspace
    that declares its own first keeps them.
  * @platforms: Debian's bazel-platforms.
  * @torch_api: libtorch's C++ frontend headers, outside gcc's default search path.
  * @local_cuda: the CUDA toolkit at $CUDA_PATH (default /usr/local/cuda), or stand-ins that fail
    clearly when a CUDA target is built without one.
  * the Python toolchain of custody's py_tests (Debian's /usr/bin/python3).
"""

load("@custody//third_party/cuda:cuda_configure.bzl", "cuda_configure")

def _stub_repository_impl(rctx):
    # The stub's files, linked from custody's source tree (third_party/stubs/<name>/).
    src = rctx.path(rctx.attr.workspace_file).dirname
    for child in src.readdir():
        rctx.symlink(child, child.basename)

_stub_repository = repository_rule(
    implementation = _stub_repository_impl,
    attrs = {"workspace_file": attr.label(allow_single_file = True)},
    local = True,
)

def custody_dependencies():
    existing = native.existing_rules()
    for stub in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        if stub not in existing:
            _stub_repository(
                name = stub,
                workspace_file = "@custody//third_party/stubs/{}:WORKSPACE".format(stub),
            )
    if "platforms" not in existing:
        # The same files Bazel 4.2.3 embeds; it has no :incompatible target, so custody's skipped
        # targets use //tools/build_defs:incompatible instead.
        native.local_repository(
            name = "platforms",
            path = "/usr/share/bazel/tools/platforms",
        )
    native.new_local_repository(
        name = "torch_api",
        build_file = "@custody//third_party/torch:BUILD.torch_api",
        path = "/usr/include/torch/csrc/api/include",
    )
    cuda_configure(name = "local_cuda")
    native.register_toolchains("@custody//tools/build_defs:python_toolchain")
