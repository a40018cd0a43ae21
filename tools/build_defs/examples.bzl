"""Examples that the flags choose, and one variant per policy for their tests.

    policy_example(
        name = "mlp",
        srcs = ["mlp.cc"],
        policy_deps = ["//workloads/mlp:{policy}"],   # "{policy}" becomes each policy's name
        test_srcs = ["mlp_test.sh"],
    )

emits
  * `mlp`: the example built for --//policies:policy and --//backends:backend (custody::Tensor from
    //custody:tensor), so `./bazelw run --//policies:policy=gc //examples/mlp` runs it under gc;
  * `mlp_<policy>` for every policy: the same sources with the policy fixed (selected_policy_defines)
    and the backend still from the flag; separate targets, so one build has them all;
  * `mlp_<policy>_test` for every policy: `test_srcs` run with the variant's path and the policy name.
"""

load("//tools/build_defs:flags.bzl", "POLICIES", "selected_policy_defines")

def _policy_deps(policy_deps, policy):
    return [d.replace("{policy}", policy) for d in policy_deps]

def policy_example(name, srcs, policy_deps = [], deps = [], test_srcs = [], test_args = [], test_data = [],
                   test_size = "small"):
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + ["//custody:tensor"] + select({
            "//policies:policy_" + p: _policy_deps(policy_deps, p)
            for p in POLICIES
        }),
    )
    for p in POLICIES:
        variant = "{}_{}".format(name, p)
        native.cc_binary(
            name = variant,
            srcs = srcs,
            local_defines = selected_policy_defines(p),
            deps = deps + ["//custody:tensor_for_policy", "//policies/" + p] + _policy_deps(policy_deps, p),
        )
        if test_srcs:
            native.sh_test(
                name = variant + "_test",
                size = test_size,
                srcs = test_srcs,
                data = [":" + variant] + test_data,
                args = ["$(location :{})".format(variant), p] + test_args,
            )
