"""CUDA gating: targets that need CUDA are built only with --config=cuda (which sets --//tools/build_defs:cuda).

    cc_test(
        name = "cuda_backend_test",
        ...,
        deps = ["//third_party:cuda", ...],
        target_compatible_with = requires_cuda(),
    )

Without the flag such a target is incompatible with the platform (it requires the constraint value
//tools/build_defs:incompatible, which no platform has), so `bazel build //...` and `bazel test //...`
skip it silently, while naming it explicitly on the command line is an error. Anything that depends on it
must be gated the same way.
"""

def requires_cuda():
    """target_compatible_with value for targets that need the CUDA toolkit."""
    return select({
        "//tools/build_defs:cuda_enabled": [],
        "//conditions:default": ["//tools/build_defs:incompatible"],
    })

# nvcc's target GPUs: Hopper (sm_90) machine code plus compute_90 PTX, which the driver JIT-compiles
# for newer GPUs.
CUDA_GENCODE = ["-gencode", "arch=compute_90,code=[sm_90,compute_90]"]

def _nvcc_objects_impl(ctx):
    cc = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps]).compilation_context
    nvcc = ctx.file._nvcc
    objects = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_nvcc/{}/{}.pic.o".format(ctx.label.name, src.basename.rsplit(".", 1)[0]))
        args = ctx.actions.args()
        args.add_all(["-std=c++20", "-O3", "-Xcompiler", "-fPIC", "--expt-relaxed-constexpr"])
        args.add_all(CUDA_GENCODE)
        # 2810: nvcc flags assigning to an absl::Status (its operator= returns a [[nodiscard]] type).
        args.add_all(["-Xcudafe", "--diag_suppress=esa_on_defaulted_function_ignored", "-diag-suppress=2810"])
        args.add("-I.")
        args.add("-I" + ctx.bin_dir.path)
        for inc in cc.includes.to_list() + cc.quote_includes.to_list() + cc.system_includes.to_list():
            args.add("-I" + inc)
        for d in cc.defines.to_list():
            args.add("-D" + d)
        args.add_all(ctx.attr.copts)
        args.add_all(["-c", src.path, "-o", obj.path])
        ctx.actions.run_shell(
            # nvcc finds its own tools (cicc, ptxas) relative to where it is installed, so it runs
            # from its real path, not the repository's link to it.
            command = 'exec "$(readlink -f {})" "$@"'.format(nvcc.path),
            arguments = [args],
            inputs = depset([src, nvcc] + ctx.files.hdrs, transitive = [cc.headers]),
            outputs = [obj],
            # nvcc runs the host compiler (gcc) from PATH.
            env = {"PATH": "/usr/local/bin:/usr/bin:/bin"},
            mnemonic = "Nvcc",
            progress_message = "nvcc " + src.short_path,
        )
        objects.append(obj)
    return [DefaultInfo(files = depset(objects))]

_nvcc_objects = rule(
    implementation = _nvcc_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "_nvcc": attr.label(default = "//third_party:nvcc", allow_single_file = True),
    },
)

def cuda_library(name, srcs, hdrs = [], deps = [], copts = [], **kwargs):
    """A cc_library whose .cu sources are compiled by nvcc (sm_90 + PTX, C++20, -O3); gated by
    requires_cuda(). `deps` are cc_libraries whose headers the .cu files include (and which the
    library links); the CUDA runtime is added.

        cuda_library(
            name = "kernels",
            srcs = ["internal/kernels.cu"],
            hdrs = ["internal/kernels.h"],
            deps = ["//core"],
        )
    """
    _nvcc_objects(
        name = name + "_nvcc",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + ["//third_party:cuda_headers"],
        copts = copts,
        target_compatible_with = requires_cuda(),
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_nvcc"],
        hdrs = hdrs,
        deps = deps + ["//third_party:cuda"],
        target_compatible_with = requires_cuda(),
        **kwargs
    )
