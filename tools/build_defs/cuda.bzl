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
must be gated the same way. if_cuda() picks attribute values (srcs, deps, defines) by the same flag.
"""

def requires_cuda():
    """target_compatible_with value for targets that need the CUDA toolkit."""
    return select({
        "//tools/build_defs:cuda_enabled": [],
        "//conditions:default": ["//tools/build_defs:incompatible"],
    })

def if_cuda(if_true, if_false = []):
    """`if_true` under --config=cuda, else `if_false`."""
    return select({
        "//tools/build_defs:cuda_enabled": if_true,
        "//conditions:default": if_false,
    })
