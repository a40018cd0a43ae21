#!/usr/bin/env python3
"""Checks custody's layer order (docs/design.md, "Layers") over the includes of production files and the
deps of production targets, and that no two Bazel packages depend on each other through any target.

    check_layers.py [--root DIR | --anchor FILE] [--self-test]

--anchor names a file at the workspace's root as Bazel lays it out for a test (a runfile symlink to the
source tree); the tree checked is the one it links to.

Prints one line per violation, `file:line: what`, and exits 1 if there is any.

The order, bottom to top (a layer may use the layers below it, never one above; see LAYERS):

    core                          core/, core/nn/
    machinery                     backends/host/, policies/internal/ (what several backends or policies share)
    policies | backends           policies/<p>/, backends/<b>/: siblings, neither uses the other
    lists, facade, report         custody/lists/ (generated lists), custody/ (the flag-chosen facade),
                                  custody/report/ (the report library)
    workloads                     workloads/
    apps                          tools/, examples/

Test code may use anything (it is a leaf): files named *_test.*, *_benchmark.*, *_fuzz*.*, *_suite.h
(typed test suites), headers and sources of a `testonly = True` target or a target tagged benchmark or
gpu_benchmark, and everything under testing/ and tests/. Production code may not
use test code: Bazel's testonly already refuses a production target depending on a testonly one, and this
check refuses a production file including a header of a testonly target or from testing/ or tests/.

Package cycles are counted over the libraries (every target but tests and binaries, which nothing
depends on): a backend's test may use a policy and a policy's test a backend without a cycle, but a
library of one package using another that uses it back is one.

BUILD files are read as this repository writes them (buildifier's layout: one rule call per top-level
block, attributes one per line); what a macro declares inside itself is not seen, so macros keep
their dependencies to what the layers allow (tools/build_defs).
"""

import argparse
import os
import re
import sys
import tempfile

# (layer, [package prefixes]) bottom to top. A package belongs to the longest prefix that matches it.
LAYERS = [
    ("core", ["core"]),
    ("machinery", ["backends/host", "policies/internal"]),
    ("policies|backends", ["policies", "backends"]),
    ("facade", ["custody"]),
    ("workloads", ["workloads"]),
    ("apps", ["tools", "examples"]),
]

# Within these layers each first-level subpackage is a unit of its own, and units do not use each other.
SIBLING_LAYERS = {"policies|backends"}

# Packages that are test code whatever their targets say.
TEST_PACKAGES = ("testing", "tests")

# Rules whose targets nothing depends on: they take no part in package cycles.
LEAF_RULES = ("cc_test", "py_test", "sh_test", "cc_fuzz_test", "cc_binary", "py_binary", "sh_binary",
              "test_suite", "conformance_matrix", "policy_example", "custody_workload")

EXTERNAL_PREFIXES = ("absl/", "benchmark/", "gtest/", "gmock/", "oneapi/", "torch/", "ATen/", "c10/",
                     "gc/", "Random123/", "cuda", "cub/", "thrust/", "nlohmann/", "dnnl", "gc.h")

TEST_FILE = re.compile(r"(_test|_benchmark|_fuzz\w*|_test_main)\.(cc|h|cu)$|_suite\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_EXT = (".h", ".cc", ".cu", ".cuh", ".inc")


def layer_of(package):
    """(layer index, unit) of a package path, or None outside the layers (third_party, testing, ...)."""
    best = None
    for index, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if package == prefix or package.startswith(prefix + "/"):
                if best is None or len(prefix) > len(best[2]):
                    best = (index, name, prefix)
    if best is None:
        return None
    index, name, prefix = best
    unit = prefix
    if name in SIBLING_LAYERS:
        rest = package[len(prefix) + 1:]
        unit = prefix + "/" + rest.split("/")[0] if rest else prefix
    return index, unit


def is_test_package(package):
    return any(package == p or package.startswith(p + "/") for p in TEST_PACKAGES)


def strip_comments(text):
    """BUILD text without # comments (strings in this repository's BUILD files hold no '#')."""
    return "\n".join(line.split("#", 1)[0] if '"#' not in line else line for line in text.splitlines())


def build_targets(build_text):
    """Yields (name, testonly, files, deps, line, leaf) for each rule call at the top level of a BUILD file."""
    text = strip_comments(build_text)
    for match in re.finditer(r"^(\w+)\(\n(.*?)^\)", text, re.S | re.M):
        body = match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        name = re.search(r'^\s*name\s*=\s*"([^"]+)"', body, re.M)
        if not name:
            continue
        testonly = bool(re.search(r"^\s*testonly\s*=\s*True", body, re.M)) or match.group(1) in (
            "cc_test", "py_test", "sh_test", "cc_fuzz_test")
        files, deps = [], []
        for attr in ("srcs", "hdrs", "textual_hdrs"):
            for block in re.finditer(r"^\s*%s\s*=\s*\[(.*?)\]" % attr, body, re.S | re.M):
                files += re.findall(r'"([^":]+)"', block.group(1))
        for block in re.finditer(r"^\s*deps\s*=\s*(.*?)(?=^\s*\w+\s*=|\Z)", body, re.S | re.M):
            deps += re.findall(r'"(//[^"]*|:[^"]*)"', block.group(1))
        tags = re.search(r"^\s*tags\s*=\s*\[(.*?)\]", body, re.S | re.M)
        if tags and re.search(r'"(gpu_)?benchmark"', tags.group(1)):
            testonly = True
        leaf = match.group(1) in LEAF_RULES or match.group(1).endswith("_test")
        yield name.group(1), testonly, files, deps, line, leaf


def dep_package(dep, package):
    if dep.startswith(":"):
        return package
    return dep[2:].split(":")[0]


def scan(root):
    """(packages: {package: [(target, testonly, files, deps, line)]}, test_files: set of paths)."""
    packages = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(("bazel-", ".")) and d != "third_party"]
        if "BUILD" in filenames:
            package = os.path.relpath(dirpath, root).replace(os.sep, "/")
            package = "" if package == "." else package
            with open(os.path.join(dirpath, "BUILD"), encoding="utf-8") as f:
                packages[package] = list(build_targets(f.read()))
    test_files = set()
    for package, targets in packages.items():
        for _, testonly, files, _, _, _ in targets:
            if testonly:
                test_files.update(f"{package}/{f}" if package else f for f in files)
    return packages, test_files


def package_of(path, packages):
    directory = os.path.dirname(path)
    while directory and directory not in packages:
        directory = os.path.dirname(directory)
    return directory


def is_test_file(path, package, test_files):
    return (is_test_package(package) or TEST_FILE.search(path) is not None or path in test_files)


def allowed(from_package, to_package):
    """None if a production file or target of from_package may use to_package, else the reason."""
    if is_test_package(to_package):
        return f"production code uses test code ({to_package}/)"
    src, dst = layer_of(from_package), layer_of(to_package)
    if src is None or dst is None:
        return None
    if dst[0] > src[0]:
        return (f"{from_package} (layer {LAYERS[src[0]][0]}) uses {to_package} "
                f"(layer {LAYERS[dst[0]][0]}, above it)")
    if dst[0] == src[0] and LAYERS[src[0]][0] in SIBLING_LAYERS and dst[1] != src[1]:
        return f"{src[1]} uses its sibling {dst[1]} (neither may use the other)"
    return None


def check(root):
    packages, test_files = scan(root)
    problems = []
    # Includes of production files.
    for package in sorted(packages):
        if is_test_package(package) or layer_of(package) is None:
            continue
        directory = os.path.join(root, package)
        for dirpath, dirnames, filenames in os.walk(directory):
            sub = os.path.relpath(dirpath, root).replace(os.sep, "/")
            dirnames[:] = [d for d in dirnames if f"{sub}/{d}" not in packages]
            for filename in sorted(filenames):
                if not filename.endswith(SOURCE_EXT):
                    continue
                path = f"{sub}/{filename}"
                if is_test_file(path, package, test_files):
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    lines = f.read().splitlines()
                for number, text in enumerate(lines, 1):
                    match = INCLUDE.match(text)
                    if not match or match.group(1).startswith(EXTERNAL_PREFIXES):
                        continue
                    included = match.group(1)
                    to_package = package_of(included, packages)
                    if included in test_files:
                        problems.append(f"{path}:{number}: production code includes {included}, "
                                        "a header of a testonly target")
                        continue
                    reason = allowed(package, to_package)
                    if reason:
                        problems.append(f"{path}:{number}: includes {included}: {reason}")
    # Deps of production targets; the package graph of every target.
    graph = {}
    for package, targets in sorted(packages.items()):
        for name, testonly, _, deps, line, leaf in targets:
            for dep in deps:
                to_package = dep_package(dep, package)
                if to_package != package and not leaf:
                    graph.setdefault(package, {}).setdefault(to_package, f"{package}/BUILD:{line} :{name}")
                if testonly or is_test_package(package):
                    continue
                reason = allowed(package, to_package)
                if reason:
                    problems.append(f"{package}/BUILD:{line}: :{name} depends on {dep}: {reason}")
    problems += cycles(graph)
    return problems


def cycles(graph):
    """One line per package cycle (its strongly connected component), naming one edge of each step."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                members = set(component)
                edges = sorted(f"{graph[a][b]} -> //{b}" for a in members for b in graph.get(a, {})
                               if b in members)
                out.append("package cycle between " + ", ".join("//" + c for c in sorted(component)) +
                           ": " + "; ".join(edges))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def self_test():
    """Plants each kind of violation in a small tree and checks that each is found; 0 if all are."""
    plants = {
        "core/BUILD": 'cc_library(\n    name = "core",\n    hdrs = ["a.h"],\n)\n',
        "core/a.h": '#include "backends/onednn/onednn.h"\n',
        "backends/onednn/BUILD": ('cc_library(\n    name = "onednn",\n    hdrs = ["onednn.h"],\n'
                                  '    deps = ["//core", "//policies/scope"],\n)\n'),
        "backends/onednn/onednn.h": '#include "policies/scope/scope.h"\n#include "core/a.h"\n',
        "policies/scope/BUILD": ('cc_library(\n    name = "scope",\n    hdrs = ["scope.h"],\n'
                                 '    deps = ["//core"],\n)\n\n'
                                 'cc_library(\n    name = "testing",\n    testonly = True,\n'
                                 '    hdrs = ["testing.h"],\n)\n'),
        "policies/scope/scope.h": '#include "testing/harness.h"\n',
        "policies/scope/testing.h": '#include "tests/conformance/suite.h"\n',
        "policies/scope/scope_test.cc": '#include "workloads/generic.h"\n',
        "workloads/BUILD": 'cc_library(\n    name = "generic",\n    hdrs = ["generic.h"],\n)\n',
        "workloads/generic.h": '#include "policies/scope/testing.h"\n',
        "testing/BUILD": 'cc_library(\n    name = "harness",\n    hdrs = ["harness.h"],\n)\n',
    }
    expected = [
        ("core/a.h:1", "above it"),                                  # upward include
        ("backends/onednn/onednn.h:1", "sibling"),                   # backend includes a policy
        ("backends/onednn/BUILD:1", "sibling"),                      # ... and depends on it
        ("policies/scope/scope.h:1", "test code"),                   # production includes testing/
        ("workloads/generic.h:1", "testonly"),                       # production includes a testonly header
        ("package cycle", "//backends/onednn, //core"),              # core -> onednn -> core
    ]
    with tempfile.TemporaryDirectory() as root:
        for path, text in plants.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        # A cycle needs a library edge from core to onednn too (a test's edge upwards makes none).
        with open(os.path.join(root, "core/BUILD"), "a", encoding="utf-8") as f:
            f.write('\ncc_library(\n    name = "a_testing",\n    testonly = True,\n'
                    '    deps = ["//backends/onednn"],\n)\n'
                    '\ncc_test(\n    name = "b_test",\n    deps = ["//workloads:generic"],\n)\n')
        problems = check(root)
    missing = [e for e in expected if not any(p.startswith(e[0]) and e[1] in p for p in problems)]
    unexpected = [p for p in problems if not any(p.startswith(e[0]) and e[1] in p for e in expected)]
    for e in missing:
        print(f"self-test: not caught: {e[0]} ({e[1]})")
    for p in unexpected:
        print(f"self-test: caught what was not planted: {p}")
    if not missing and not unexpected:
        print(f"self-test: all {len(expected)} planted violations caught, nothing else")
    return 1 if missing or unexpected else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.environ.get("BUILD_WORKSPACE_DIRECTORY", "."))
    parser.add_argument("--anchor", help="a runfile at the workspace root; check the tree it links to")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    root = os.path.dirname(os.path.realpath(args.anchor)) if args.anchor else args.root
    problems = check(root)
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} violation(s)" if problems else "check_layers: layers hold")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
