#!/usr/bin/env python3
"""The mechanical parts of core/docs/conventions.md, checked over every public header.

Usage: check_conventions.py [HEADER...]   (default: core/include/vantage/*.hpp)
       check_conventions.py --self-test  (bad_header.hpp.txt gives exactly expected_findings.txt)

Prints one TAP-style line per header ("ok <path>" or "not ok <path>") followed by one
"#   <rule>: <what>" line per finding, and exits 1 when any header fails. A header's .cpp
(core/src/<name>.cpp) is read too, for to_string definitions that live there. Comments and
string literals are stripped before matching, so prose never trips a rule and a rule is
never satisfied by prose; only the appending rule reads the comments, because a function's
documented behaviour is what it checks.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Success is spelled Ok in these (rule 2); an enumerator with one of these names never is.
STATUS_SUFFIXES = ("Status", "Error", "Result")
NOT_OK_SPELLINGS = {"None", "Success", "Okay", "Good", "Valid", "NoError"}
# Rule 3 has no exceptions today; a type listed here would be one, named in conventions.md.
SINK_EXCEPTIONS = set()
# Vec2 and Vec3 are built from their coordinates; nothing else takes (x, y) floats.
XY_EXEMPT = {"vec.hpp"}


def strip_comments_and_strings(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def enums(code):
    """(name, enumerators) for every enum class, nested ones by their own name."""
    found = []
    for m in re.finditer(r"\benum\s+class\s+(\w+)\s*(?::\s*[\w:]+\s*)?\{(.*?)\}", code, re.S):
        names = [e.split("=")[0].strip() for e in m.group(2).split(",")]
        found.append((m.group(1), [n for n in names if n]))
    return found


def check(path):
    header = path.read_text()
    code = strip_comments_and_strings(header)
    src = ROOT / "core" / "src" / (path.stem + ".cpp")
    src_code = strip_comments_and_strings(src.read_text()) if src.exists() else ""
    both = code + "\n" + src_code
    problems = []

    # 1. validate(): std::string_view validate() const.
    for m in re.finditer(r"([\w:<>*&\s]+?)\s*\bvalidate\s*\(\s*\)\s*const", code):
        ret = " ".join(m.group(1).split()[-2:]) if m.group(1).split() else ""
        ret = ret.split()[-1] if ret else ""
        if ret != "std::string_view":
            problems.append(f"validate: returns '{ret}', not std::string_view")

    # 2. enums: enum class, a to_string naming every enumerator, Ok for statuses.
    for m in re.finditer(r"\benum\s+(?!class\b)(\w+)", code):
        problems.append(f"enum: '{m.group(1)}' is not an enum class")
    for name, values in enums(code):
        sig = re.search(r"\bto_string\s*\(\s*(?:\w+::)*" + name + r"\b", both)
        if not sig:
            problems.append(f"to_string: no to_string({name}) in the header or its .cpp")
        else:
            for v in values:
                if not re.search(r"\bcase\s+(?:\w+::)*" + name + r"::" + v + r"\s*:", both):
                    problems.append(f"to_string: to_string({name}) has no case for {v}")
        if name.endswith(STATUS_SUFFIXES) and (not values or values[0] != "Ok"):
            problems.append(f"status: {name} must start with Ok (its success value)")
        for v in values:
            if v in NOT_OK_SPELLINGS:
                problems.append(f"status: {name}::{v}: success is spelled Ok")

    # 5. counters: <Type>Counters, reached through counters(), no duplicate getters.
    for m in re.finditer(r"\bstruct\s+(\w+)Counters\s*\{(.*?)\};", code, re.S):
        owner, body = m.group(1), m.group(2)
        if not re.search(r"\b(?:class|struct)\s+" + owner + r"\b", code):
            problems.append(f"counters: {owner}Counters is not named after a type in this header")
        if not re.search(r"\b" + owner + r"Counters\s*&\s*counters\s*\(\s*\)\s*const", code):
            problems.append(f"counters: no 'const {owner}Counters& counters() const'")
        for field in re.findall(r"std::uint64_t\s+(\w+)\s*=", body):
            if re.search(r"std::uint64_t\s+" + field + r"\s*\(\s*\)\s*const", code.replace(body, "")):
                problems.append(f"counters: getter {field}() repeats {owner}Counters::{field}")
    for m in re.finditer(r"([\w:]+)\s*&\s*counters\s*\(\s*\)\s*const", code):
        if not m.group(1).endswith("Counters"):
            problems.append(f"counters: counters() returns {m.group(1)}, not a <Type>Counters struct")

    # 4. outputs: a non-const vector& out-parameter is cleared and filled, unless append_*.
    lines = header.split("\n")
    for i, line in enumerate(lines):
        decl = re.search(r"\b(\w+)\s*\([^;{]*std::vector<[^;{]*>\s*&\s*\w+", line)
        if not decl or "const std::vector" in line.split(decl.group(1), 1)[1].split("&")[0]:
            continue
        doc = []
        j = i - 1
        while j >= 0 and lines[j].strip().startswith("//"):
            doc.insert(0, lines[j].strip())
            j -= 1
        if re.search(r"\bappend(s|ing)?\b", " ".join(doc), re.I) and not decl.group(1).startswith("append_"):
            problems.append(f"outputs: {decl.group(1)}() is documented as appending; clear and fill, or name it append_*")

    # 6. positions: Vec2, never a float x followed by a float y, in the public part (a
    # private section runs to the end of its class, a "};" at the start of a line).
    public = re.sub(r"\bprivate:.*?\n\};", "};", code, flags=re.S)
    if path.name not in XY_EXEMPT:
        for m in re.finditer(r"\b(\w+)\s*\(([^()]*)\)", public):
            if re.search(r"\b(?:float|double)\s+(\w*)x\s*,\s*(?:float|double)\s+\1y\b", m.group(2)):
                params = " ".join(m.group(2).split())
                problems.append(f"positions: {m.group(1)}({params}) takes (x, y): use Vec2")

    # 3. events: no virtual sinks or listeners.
    for m in re.finditer(r"\b(?:class|struct)\s+(\w*(?:Sink|Listener|Observer|Callback)\w*)\b", code):
        if m.group(1) not in SINK_EXCEPTIONS:
            problems.append(f"events: {m.group(1)}: deliver events through events()/clear_events()")

    # The umbrella header includes every public header (README: "Using the library").
    umbrella = ROOT / "core" / "include" / "vantage" / "vantage.hpp"
    if path.parent.resolve() == umbrella.parent.resolve() and path.name != umbrella.name:
        if f'#include "vantage/{path.name}"' not in umbrella.read_text():
            problems.append(f"umbrella: vantage/vantage.hpp does not include vantage/{path.name}")

    return sorted(set(problems))


def self_test():
    """The checker must still fail bad_header.hpp.txt with exactly expected_findings.txt, so a
    rule that stops catching anything fails too."""
    here = pathlib.Path(__file__).resolve().parent
    got = [f"#   {p}" for p in check(here / "bad_header.hpp.txt")]
    want = (here / "expected_findings.txt").read_text().splitlines()
    print(("ok" if got == want else "not ok") + " check_conventions.py self-test (bad_header.hpp.txt)")
    for line in sorted(set(want) - set(got)):
        print("#   no longer reported: " + line.strip("# "))
    for line in sorted(set(got) - set(want)):
        print("#   newly reported: " + line.strip("# "))
    return 0 if got == want else 1


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    paths = [pathlib.Path(a) for a in argv] or sorted((ROOT / "core" / "include" / "vantage").glob("*.hpp"))
    failed = 0
    for path in paths:
        problems = check(path)
        shown = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
        print(("not ok " if problems else "ok ") + str(shown))
        for p in problems:
            print(f"#   {p}")
        failed += bool(problems)
    print(f"# {len(paths) - failed} of {len(paths)} headers follow core/docs/conventions.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
