#!/usr/bin/env python3
"""The documentation lint: Notes that resolve, and code and main docs that state what is, not history.

    doc_lint.py [--root DIR | --root-of FILE] [--self-test | --notes-index]

Checks, over every code file and Markdown file of the repository (bazel-*, .git and tools/lint's own
files left out):

  (a) every Note is defined exactly once. A definition is a comment line `// Note [Title]` (or
      `# Note [Title]`) whose next line is a comment of tildes only (`// ~~~~`), as c10 writes them;
  (b) every reference `Note [Title]` resolves: when a file follows it (`Note [T], core/stats.h`,
      `Note [T] in policies/gc/gc.h`, `(Note [T], `core/x.cc`)`; a bare name such as `gc.cc` is a
      file in the referencing file's directory, else the one file of that name), the Note is defined
      in that file; otherwise it is defined somewhere;
  (c) no code comment and no main doc (MAIN_DOCS) narrates history: rounds and sessions of work,
      "tried before", "not kept", commit hashes, dated runs, measurement diaries ("62.6→32.8 ns",
      "was 41 ms, now 12"). History belongs in docs/decisions.md (and generated tables in
      docs/benchmarks.md), which are exempt, and in commit messages;
  (d) the Notes index of docs/design.md (the list between `<!-- notes index -->` and
      `<!-- /notes index -->`) names every Note with the file that defines it, and nothing else.
      `--notes-index` prints the list as it should be.

Prints `file:line: reason` for each violation and exits 1 if there is any. `--self-test` plants each
kind of violation in a temporary tree and checks that each is caught (and that a clean tree passes).
"""

import argparse
import os
import re
import sys
import tempfile

# Main docs: what a reader takes as the current truth (history check (c) applies to them).
MAIN_DOCS = ("README.md", "docs/design.md", "docs/reference.md", "docs/extending.md")
# Where history belongs: exempt from (c).
HISTORY_DOCS = ("docs/decisions.md", "docs/benchmarks.md")

CODE_EXTENSIONS = (".h", ".hpp", ".cc", ".cpp", ".c", ".cu", ".cuh", ".py", ".sh", ".bzl", ".bazelrc",
                   ".js", ".css")
CODE_NAMES = ("BUILD", "BUILD.bazel", "WORKSPACE", "bazelw")
SKIP_DIRS = (".git", "compare-out", "external")
# The lint's own sources spell the patterns it looks for.
SKIP_FILES = ("tools/lint/doc_lint.py", "tools/lint/doc_lint_test.py")

FILE_RE = r"`?((?:[\w.-]+/)*[\w.-]+\.(?:h|hpp|cc|cpp|cu|cuh|py|sh|bzl|md))`?"
# What may stand between a reference's `]` and the file it names.
REF_FILE_RE = re.compile(r"\s*(?:,|\bin\b|\()\s*" + FILE_RE + r"(?![\w/])")
NOTE_RE = re.compile(r"Note \[([^\[\]]{1,120}?)\]")
COMMENT_LEADER = re.compile(r"^\s*(?:///?|#+|\*|/\*+)?\s?")
DEFINITION_RE = re.compile(r"^\s*(?://|#)\s*Note \[([^\[\]]+)\]\s*$")
UNDERLINE_RE = re.compile(r"^\s*(?://|#)\s*~{3,}\s*$")

# (c): each pattern with the reason printed for it.
_UNIT = r"(?:ns|µs|us|ms|s|KiB|MiB|GiB|%|×|x\b|instructions|misses)"
HISTORY_PATTERNS = [
    (re.compile(r"\b[Rr]ounds? \d+\b"), "names a round of work (history: docs/decisions.md)"),
    (re.compile(r"\b[Ss]essions? \d+\b"), "names a session (history: docs/decisions.md)"),
    (re.compile(r"\b(?:[Tt]ried (?:before|first|in|earlier|once)|[Tt]ried, not kept|was tried|"
                r"[Nn]ot kept|[Nn]o longer kept)\b"),
     "narrates what was tried (history: docs/decisions.md)"),
    (re.compile(r"\b(?:commit|at|tree at|since|before|after)\s+`?(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)"
                r"[0-9a-f]{7,40}\b`?"),
     "cites a commit (history: commit messages, docs/decisions.md)"),
    (re.compile(r"[`(](?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}[`)]"),
     "cites a commit (history: commit messages, docs/decisions.md)"),
    (re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"), "dates a run (history: docs/decisions.md; generated "
                                               "tables with their date: docs/benchmarks.md)"),
    # A measurement diary: two numbers joined by an arrow and a unit ("62.6→32.8 ns", "0.45× → 0.36×",
    # "593 -> 241 instructions"); not "256 -> 16" (shapes) or "320 us -> 0.8" (a formula's result).
    (re.compile(r"\d(?:[\d.,]*\d)?\s*" + _UNIT + r"\s*→\s*~?\d|"
                r"\d(?:[\d.,]*\d)?\s*(?:→|->)\s*~?\d(?:[\d.,]*\d)?\s*" + _UNIT),
     "a before→after measurement (history: docs/decisions.md)"),
    (re.compile(r"\b[Ww]as ~?\d[\d.,]*\s*(?:ns|µs|us|ms|s|KiB|MiB|GiB|%|×|x|instructions)\b[^.;]{0,80}?"
                r"\bnow\b"),
     "a was-then-now measurement (history: docs/decisions.md)"),
    (re.compile(r"\b(?:[Bb]efore|[Uu]ntil|[Ss]ince) (?:this|that|the last|the previous) (?:change|commit|round|"
                r"session|fix)\b"),
     "narrates a change (history: docs/decisions.md)"),
    (re.compile(r"\bcompiles? in \d[\d.]*\s*s\b|\b\d[\d.]*\s*s(?:econds)? (?:of |to )?compil"),
     "cites compile seconds (history: docs/decisions.md)"),
]


def is_code(rel):
    name = os.path.basename(rel)
    return name in CODE_NAMES or name.endswith(CODE_EXTENSIONS) or rel == ".ci/run"


def walk(root):
    """Repository-relative paths of the code files and the Markdown files under root."""
    code, docs = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("bazel-"))
        for f in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
            if rel in SKIP_FILES:
                continue
            if f.endswith(".md"):
                docs.append(rel)
            elif is_code(rel):
                code.append(rel)
    return code, docs


def read_lines(root, rel):
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            return f.read().splitlines()
    except (UnicodeDecodeError, OSError):
        return []


def comment_text(line, hash_comments):
    """The comment part of one code line ("" if none): a whole-line comment or a trailing one."""
    s = line.strip()
    if s.startswith(("//", "/*", "*")) or (hash_comments and s.startswith("#")):
        return s
    m = re.search(r"\s//\s" if not hash_comments else r"\s#\s", line)
    return line[m.start():].strip() if m else ""


def uses_hash_comments(rel):
    name = os.path.basename(rel)
    return (name in ("BUILD", "BUILD.bazel", "WORKSPACE", "bazelw") or rel == ".ci/run"
            or name.endswith((".py", ".sh", ".bzl", ".bazelrc")))


def joined(lines, strip_leaders):
    """The lines joined by spaces (a reference's title may wrap), and the line of each offset."""
    text, starts = [], []
    pos = 0
    for line in lines:
        piece = COMMENT_LEADER.sub("", line) if strip_leaders else line.strip()
        starts.append(pos)
        text.append(piece)
        pos += len(piece) + 1
    return " ".join(text), starts


def line_of(starts, offset):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def resolve_file(rel_from, named, all_files):
    """The repository path a reference's file name means, or None."""
    if named in all_files:
        return named
    if "/" not in named:
        sibling = os.path.join(os.path.dirname(rel_from), named).replace(os.sep, "/")
        if sibling in all_files:
            return sibling
        same = [f for f in all_files if os.path.basename(f) == named]
        if len(same) == 1:
            return same[0]
        return None
    # "policies/gc/gc.h" written from a doc in a subdirectory, or "gc/gc.h" from policies/.
    ends = [f for f in all_files if f.endswith("/" + named)]
    return ends[0] if len(ends) == 1 else None


NOTES_INDEX_FILE = "docs/design.md"
NOTES_INDEX_BEGIN = "<!-- notes index -->"
NOTES_INDEX_END = "<!-- /notes index -->"


def definitions(code, contents):
    """title -> [(file, line)] of every Note definition, and the set of (file, line) they are on."""
    defined = {}
    definition_lines = set()
    for rel in code:
        lines = contents[rel]
        for i, line in enumerate(lines):
            m = DEFINITION_RE.match(line)
            if m and i + 1 < len(lines) and UNDERLINE_RE.match(lines[i + 1]):
                defined.setdefault(m.group(1).strip(), []).append((rel, i + 1))
                definition_lines.add((rel, i + 1))
    return defined, definition_lines


def notes_index(defined):
    """The Notes index lines: one per Note, `* Note [Title] — `file``, by file, then by line."""
    rows = sorted((where[0][0], where[0][1], title) for title, where in defined.items())
    return ["* Note [%s] — `%s`" % (title, rel) for rel, _, title in rows]


def lint(root):
    """Violations as (path, line, reason), sorted."""
    code, docs = walk(root)
    all_files = set(code) | set(docs)
    contents = {rel: read_lines(root, rel) for rel in code + docs}
    violations = []

    # (a) definitions.
    defined, definition_lines = definitions(code, contents)
    for title, where in sorted(defined.items()):
        if len(where) > 1:
            for rel, n in where:
                others = ", ".join("%s:%d" % w for w in where if w != (rel, n))
                violations.append((rel, n, "Note [%s] is defined more than once (also %s)" % (title, others)))

    # (b) references.
    for rel in code + docs:
        text, starts = joined(contents[rel], strip_leaders=rel in code)
        for m in NOTE_RE.finditer(text):
            n = line_of(starts, m.start())
            if (rel, n) in definition_lines:
                continue
            title = re.sub(r"\s+", " ", m.group(1)).strip()
            if title in ("X", "Title", "...", "T") or "`" in title:
                continue  # a placeholder in prose about Notes
            fm = REF_FILE_RE.match(text, m.end())
            if fm:
                named = fm.group(1)
                target = resolve_file(rel, named, all_files)
                if target is None:
                    violations.append((rel, n, "Note [%s] names %s, which is no file here" % (title, named)))
                    continue
                if target.endswith(".md"):
                    target = None  # "Note [X] in README.md"-like: only that it exists somewhere
                elif not any(w[0] == target for w in defined.get(title, [])):
                    where = ", ".join(w[0] for w in defined.get(title, [])) or "nowhere"
                    violations.append((rel, n, "Note [%s] is referenced in %s but defined in %s" %
                                       (title, named, where)))
                    continue
            if title not in defined:
                violations.append((rel, n, "Note [%s] is referenced but never defined" % title))

    # (d) the Notes index.
    if NOTES_INDEX_FILE in contents:
        lines = contents[NOTES_INDEX_FILE]
        try:
            begin = lines.index(NOTES_INDEX_BEGIN)
            end = lines.index(NOTES_INDEX_END, begin)
        except ValueError:
            violations.append((NOTES_INDEX_FILE, 1, "no Notes index (%s ... %s)" %
                               (NOTES_INDEX_BEGIN, NOTES_INDEX_END)))
        else:
            have = [l for l in lines[begin + 1:end] if l.strip()]
            want = notes_index(defined)
            for l in sorted(set(want) - set(have)):
                violations.append((NOTES_INDEX_FILE, begin + 1, "the Notes index lacks: %s" % l))
            for l in sorted(set(have) - set(want)):
                violations.append((NOTES_INDEX_FILE, begin + 1 + have.index(l) + 1,
                                   "the Notes index lists what no file defines: %s" % l))

    # (c) history.
    for rel in code + docs:
        if rel in HISTORY_DOCS:
            continue
        if rel.endswith(".md") and rel not in MAIN_DOCS:
            continue
        hash_comments = uses_hash_comments(rel)
        in_fence = False
        for i, line in enumerate(contents[rel]):
            if rel.endswith(".md"):
                if line.lstrip().startswith("```"):
                    in_fence = not in_fence
                text = line
            else:
                text = comment_text(line, hash_comments)
            if not text or "doc-lint: allow" in text:
                continue
            for pattern, reason in HISTORY_PATTERNS:
                if pattern.search(text):
                    violations.append((rel, i + 1, "%s: %r" % (reason, pattern.search(text).group(0))))
                    break
    return sorted(set(violations))


def default_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def self_test():
    """Plants each violation in a temporary tree and checks that each is caught."""
    clean = {
        "core/a.h": "// Note [Alpha]\n// ~~~~~~~~~~~~\n// What is true.\nint a;  // Note [Beta], core/b.cc\n",
        "core/b.cc": "// Note [Beta]\n// ~~~~~~~~~~~\n// See Note [Alpha] in core/a.h and Note\n"
                     "// [Alpha], `a.h`.\n",
        "README.md": "The rule is Note [Alpha] (`core/a.h`). Rounds of work are in docs/decisions.md.\n",
        "docs/design.md": "## Notes index\n\n<!-- notes index -->\n* Note [Alpha] — `core/a.h`\n"
                          "* Note [Beta] — `core/b.cc`\n<!-- /notes index -->\n",
        "docs/decisions.md": "Round 3 (session 16, 2026-11-29): 62.6→32.8 ns at `faea7ae`; tried before.\n",
        "tools/x.py": "# 100 rounds per run; the handle is no longer usable after release.\n"
                      "# linear regression 256 -> 16; 400 us vs 320 us -> 0.8; uint8 + int8 → int16.\nx = 1\n",
    }
    plants = {
        "duplicate Note": ({"policies/p.h": "// Note [Alpha]\n// ~~~~~~~~~~~~\n// Something else.\n"},
                           "Note [Alpha] is defined more than once"),
        "reference to the wrong file": ({"core/c.cc": "// As Note [Alpha], core/b.cc says.\n"},
                                        "Note [Alpha] is referenced in core/b.cc but defined in core/a.h"),
        "reference to a missing file": ({"core/d.cc": "// (Note [Alpha] in core/nope.h)\n"},
                                        "names core/nope.h, which is no file here"),
        "undefined Note": ({"core/e.cc": "// Note [Gamma] says why.\n"}, "Note [Gamma] is referenced but never"),
        "wrapped undefined Note": ({"core/f.cc": "// as Note [Gamma\n// Delta] says.\n"},
                                   "Note [Gamma Delta] is referenced but never"),
        "round in a comment": ({"core/g.cc": "int g;  // Tried before, in round 3: slower.\n"},
                               "names a round of work"),
        "session in a BUILD comment": ({"core/BUILD": "# Added in session 16.\n"}, "names a session"),
        "tried, not kept": ({"core/h.h": "// A pool was tried, not kept.\n"}, "narrates what was tried"),
        "measurement diary": ({"core/i.cc": "// 62.6→32.8 ns per alias.\n"}, "before→after measurement"),
        "was-now": ({"core/j.cc": "// This was 41 ms per step, now 12.\n"}, "was-then-now measurement"),
        "commit hash": ({"docs/reference.md": "Built at `ec7382f` on main.\n"}, "cites a commit"),
        "commit hash in parentheses": ({"docs/extending.md": "The four runs took ~50 minutes (1da6e8d).\n"},
                                       "cites a commit"),
        "a Note missing from the index": ({"core/k.h": "// Note [Kappa]\n// ~~~~~~~~~~~~\n// True.\n"},
                                          "the Notes index lacks: * Note [Kappa]"),
        "an index entry no file defines": ({"docs/design.md": "<!-- notes index -->\n* Note [Alpha] — `core/a.h`\n"
                                            "* Note [Beta] — `core/b.cc`\n* Note [Gone] — `core/a.h`\n"
                                            "<!-- /notes index -->\n"},
                                           "the Notes index lists what no file defines"),
        "ASCII-arrow diary": ({"policies/q.cc": "// alias + dispose: 62.6 -> 32.8 ns on this VM.\n"},
                              "before→after measurement"),
        "tried first, in a doc": ({"docs/extending.md": "A disclaim procedure was tried first.\n"},
                                  "narrates what was tried"),
        "dated run in a main doc": ({"docs/reference.md": "Measured 2026-11-29 on a 2-core VM.\n"},
                                    "dates a run"),
        "history in README": ({"README.md": "Until session 18 the aten backend recorded late.\n"},
                              "names a session"),
    }
    failures = []

    def run(files):
        with tempfile.TemporaryDirectory() as root:
            for rel, body in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(body)
            return lint(root)

    got = run(clean)
    if got:
        failures.append("the clean tree has violations: %s" % got)
    for name, (extra, expected) in plants.items():
        files = dict(clean)
        files.update(extra)
        got = run(files)
        if not any(expected in v[2] for v in got):
            failures.append("planted %s: not caught (expected %r, got %s)" % (name, expected, got))
        else:
            print("self-test: planted %s: caught" % name)
    for f in failures:
        print("self-test FAILED: " + f)
    print("self-test: %d plants, %d failures" % (len(plants), len(failures)))
    return 1 if failures else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="the repository root (default: two levels above this file)")
    parser.add_argument("--root-of", help="a file at the repository root (Bazel: $(location //:README.md)); "
                                          "the root is where its real path lies")
    parser.add_argument("--self-test", action="store_true", help="plant violations and check each is caught")
    parser.add_argument("--notes-index", action="store_true", help="print the Notes index docs/design.md needs")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    if args.root:
        root = args.root
    elif args.root_of:
        root = os.path.dirname(os.path.realpath(args.root_of))
    else:
        root = default_root()
    if args.notes_index:
        code, _ = walk(root)
        defined, _ = definitions(code, {rel: read_lines(root, rel) for rel in code})
        print("\n".join(notes_index(defined)))
        return 0
    violations = lint(root)
    for rel, n, reason in violations:
        print("%s:%d: %s" % (rel, n, reason))
    if violations:
        print("doc_lint: %d violations (tools/lint/doc_lint.py says what each check wants)" % len(violations))
        return 1
    print("doc_lint: clean (%s)" % root)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
