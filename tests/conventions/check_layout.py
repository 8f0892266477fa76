#!/usr/bin/env python3
"""The layout's rules, checked over the repository's sources.

One list of rooms: the rooms are the lines of playgrounds/common/playground_list.hpp that
name a room client and server. No other source spells out two or more of them (as quoted
names in C++, CMake or JavaScript, or as words in the `vantage` script's code): that would
be a second list, which drifts. A file that needs a room's name reads the list (the catalog's
is_room() and room_names(), the list macro, or vantage_serve's own check).

One boundary: the folders say what may see the UI. core/, playgrounds/common/ and every
playgrounds/<name>/ folder are UI-free (vantage_core, vantage_playgrounds); only
playgrounds/app/ and playgrounds/views/ (vantage_app) may include an ImGui, SDL, OpenGL or
Emscripten header.

No measured figure in a header: a timing (ns, us), a throughput (MB/s, GB/s), a speed-up
("1.7x faster") or a run's date in a .hpp goes stale where nobody re-measures it. Figures
live in tests/bench/results/ and reach the docs through ./vantage docs.

Usage: check_layout.py             check the repository
       check_layout.py --self-test check that each rule still catches its example
Prints one TAP-style line per file ("ok <path>" / "not ok <path>"), then "#   <rule>: <what>"
per finding; exits 1 when any file fails. Run by `./vantage test conventions` and by CTest
(test `layout`).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIST = "playgrounds/common/playground_list.hpp"
UI_FOLDERS = ("playgrounds/app/", "playgrounds/views/")
MEASURED = re.compile(r"\d[\d.,]* ?(?:ns|us|µs|MB/s|GB/s)\b|\b20\d\d-[01]\d-[0-3]\d\b|"
                      r"\d[\d.]* ?x (?:faster|slower)\b|(?:faster|slower) by \d")
UI_HEADER = re.compile(r'^\s*#\s*include\s*[<"]\s*(imgui|SDL|GL/|GLES|emscripten|implot|stb_)', re.M)


def list_names(text):
    """(every playground's name, the rooms' names) from the list macro's lines."""
    macro = text[text.index("#define VANTAGE_PLAYGROUNDS"):]
    lines = re.findall(r'\bX\(\s*(\w+)\s*,\s*"([a-z0-9_]+)"(.*?)\)\s*(?:\\\s*)?$', macro.replace("\\\n", "\n"),
                       re.M | re.S)
    names = [name for _, name, _ in lines]
    # A room's line ends with its client and server types: ..., <X>Remote, <X>Room).
    rooms = [name for _, name, rest in lines if re.search(r",\s*\w+Remote\s*,\s*\w+Room\s*$", rest.strip())]
    return names, rooms


def strip_cpp_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def room_words(path, text, rooms):
    """The room names a file spells out as data (not in comments, not in #include paths)."""
    if path.endswith((".cpp", ".hpp", ".h", ".mjs", ".js")):
        code = strip_cpp_comments(text)
        code = re.sub(r"^\s*#\s*include[^\n]*", "", code, flags=re.M)
        quoted = " ".join(re.findall(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`[^`]*`', code))
    elif path.endswith((".txt", ".cmake")):
        code = re.sub(r"#[^\n]*", "", text)
        quoted = code  # CMake names are bare words
    else:  # the vantage script: its code, not its comments
        quoted = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return sorted({r for r in rooms if re.search(r"(?<![A-Za-z0-9])" + re.escape(r) + r"(?![A-Za-z0-9])", quoted)})


def check_file(path, text, rooms):
    problems = []
    if path != LIST and not path.startswith("tests/"):
        spelled = room_words(path, text, rooms)
        if len(spelled) >= 2:
            problems.append(f"rooms: names {', '.join(spelled)}: a second list of rooms "
                            f"(read them from {LIST} instead)")
    ui_free = path.startswith(("core/", "playgrounds/")) and not path.startswith(UI_FOLDERS + ("playgrounds/room/",))
    if ui_free and path.endswith((".cpp", ".hpp", ".h")):
        for m in UI_HEADER.finditer(strip_cpp_comments(text)):
            problems.append(f"boundary: includes a UI header ({m.group(0).strip()}) in a UI-free folder; "
                            "UI code lives in playgrounds/views/ or playgrounds/app/")
    if path.startswith(("core/", "playgrounds/")) and path.endswith(".hpp"):
        for comment in re.findall(r"//[^\n]*|/\*.*?\*/", text, re.S):
            m = MEASURED.search(comment)
            if m:
                problems.append(f"figures: a measured figure in a header comment ('{m.group(0)}'): "
                                "record it in tests/bench/results/, quote it in the docs")
    return problems


def sources():
    found = []
    for top in ("core", "playgrounds", "web"):
        for p in sorted((ROOT / top).rglob("*")):
            if "node_modules" in p.parts or not p.is_file():
                continue
            if p.suffix in (".cpp", ".hpp", ".h", ".mjs", ".js", ".cmake") or p.name == "CMakeLists.txt":
                found.append(p)
    found += [ROOT / "vantage", ROOT / "CMakeLists.txt"]
    return found


def self_test(rooms):
    """Each rule must still catch its example (so a rule that stops matching fails too)."""
    two = rooms[:2]
    cases = [
        ("playgrounds/app/x.cpp", 'bool is(std::string_view p) { return p == "%s" || p == "%s"; }' % tuple(two),
         "rooms"),
        ("vantage", '[[ $p == %s || $p == %s ]] || die "no"\n' % tuple(two), "rooms"),
        ("playgrounds/room/CMakeLists.txt", "add_library(r %s_room.cpp %s_room.cpp)\n" % tuple(two), "rooms"),
        ("playgrounds/horde/horde_sim.cpp", "#include <imgui.h>\n", "boundary"),
        ("playgrounds/common/host.cpp", '#include "SDL.h"\n', "boundary"),
        ("core/include/vantage/x.hpp", "// The build takes 97.5 us at 20k points.\nint x;\n", "figures"),
        ("playgrounds/horde/x.hpp", "/* measured 2026-12-04: 1.7x faster */\n", "figures"),
    ]
    fine = [
        ("playgrounds/app/x.cpp", '// %s or %s\n#include "room/%s_room.hpp"\n#include "room/%s_room.hpp"\n'
         % (two[0], two[1], two[0], two[1])),
        ("playgrounds/views/horde_view.cpp", "#include <imgui.h>\n"),
        ("core/include/vantage/x.hpp", "double latency_ms = 50;  // 16 buckets of 500 ms, 1.5 x step\n"),
    ]
    failures = []
    for path, text, rule in cases:
        if not any(p.startswith(rule + ":") for p in check_file(path, text, rooms)):
            failures.append(f"self-test: the {rule} rule no longer catches {path}: {text.strip()}")
    for path, text in fine:
        if check_file(path, text, rooms):
            failures.append(f"self-test: {path} is fine but was flagged: {text.strip()}")
    return failures


def main(argv):
    names, rooms = list_names((ROOT / LIST).read_text())
    if len(rooms) < 2 or not set(rooms) <= set(names):
        print(f"not ok {LIST}\n#   rooms: could not read the rooms from the list (found {rooms})")
        return 1
    if argv == ["--self-test"]:
        failures = self_test(rooms)
        print(("not ok" if failures else "ok") + " check_layout.py self-test")
        for f in failures:
            print("#   " + f)
        return 1 if failures else 0
    failed = 0
    for p in sources():
        rel = str(p.relative_to(ROOT))
        problems = check_file(rel, p.read_text(errors="replace"), rooms)
        print(("not ok " if problems else "ok ") + rel)
        for problem in problems:
            print("#   " + problem)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
