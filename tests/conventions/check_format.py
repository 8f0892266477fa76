#!/usr/bin/env python3
"""Every C++ file of the repository as clang-format 14 writes it with the repository's
.clang-format: one line per file, "ok FILE" or "not ok FILE" (with the command that fixes it).

Usage: check_format.py [FILE...]   (default: every *.cpp, *.hpp and *.h git tracks)
Exit status 1 when a file is not formatted. Run by `./vantage test format` (which counts the
lines) and by CTest (test `format`).
"""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tracked_sources():
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "*.cpp", "*.hpp", "*.h"],
                             check=True, capture_output=True, text=True).stdout
        return [line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk the tree
        found = []
        for top in ("core", "playgrounds", "tests", "web"):
            for ext in ("*.cpp", "*.hpp", "*.h"):
                found += [str(p.relative_to(ROOT)) for p in (ROOT / top).rglob(ext) if "node_modules" not in p.parts]
        return sorted(found)


def main(argv):
    files = argv or tracked_sources()
    bad = 0
    for name in files:
        result = subprocess.run(["clang-format-14", "--dry-run", "-Werror", str(ROOT / name)],
                                capture_output=True, cwd=ROOT)
        if result.returncode == 0:
            print(f"ok {name}")
        else:
            bad += 1
            print(f"not ok {name} (clang-format-14 -i {name})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
