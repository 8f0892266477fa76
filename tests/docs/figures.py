#!/usr/bin/env python3
"""The figures the README and the docs quote, generated from the latest recorded runs.

A document marks each generated region:

    <!-- figures:NAME ARG... -->
    ...generated text...
    <!-- /figures -->

and this tool rewrites what lies between the markers from the recorded results in
tests/bench/results/ (latest.md: the benchmarks, native and wasm; room-latest.md: the room
under load). The sources are files, never a fresh run, so the figures change only when a run
is recorded (`./vantage bench`) and then `./vantage docs` is run.

Figures (NAME ARG...):
  bench-summary                 one sentence: the run's date, machine, count, median ratio
  bench-table REGEX             the latest.md rows whose benchmark name matches REGEX
  paired-table REGEX            the same from latest.md's paired ratios
  playground-ticks              each playground's tick at its defaults and at its largest
  tick PLAYGROUND               one sentence: that playground's tick, defaults and largest
  room-load                     the room's tick, bandwidth and memory per bot count
  room-transports               UDP and WebSocket seats under real loss, and the UDP bots one
                                room holds (the latest room-udp-*.md)
  rtc-capacity                  DataChannel peers one room process holds, and the bytes DTLS
                                and SCTP add (the latest rtc-*.md)
  transports-line               one sentence from both: datagrams against the WebSocket under
                                real loss, and what one room holds
  headline PLAYGROUND PRESET    one sentence: that preset's verdict, as the report tool
                                judged it (tests/bench/results/headlines.md)

The headlines come from the report tool (`vantage_report PLAYGROUND --preset NAME`, a seeded
simulated run: the same sources give the same verdict on any machine), recorded in
headlines.md for every headline a document quotes.

Usage:
  figures.py --write [--report BIN]
                       rewrite every marked region (./vantage docs); with --report, first
                       re-record headlines.md by running BIN (vantage_report)
  figures.py --check [--report BIN]
                       one line per Markdown file, "ok FILE" or "not ok FILE" with "#   "
                       lines naming each region that differs from its source and each
                       relative link whose target is not in the repository; with --report,
                       one more line for headlines.md: whether BIN still gives each recorded
                       verdict; exit 1 if any (./vantage test docs, and CTest's `docs`)
"""
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "bench" / "results"
REGION = re.compile(r"(<!-- figures:(?P<spec>[^>]*?) -->\n)(?P<body>.*?)(<!-- /figures -->)", re.S)
LINK = re.compile(r"\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")


class Problem(Exception):
    pass


def read(path):
    return path.read_text(encoding="utf-8")


# ---- sources ------------------------------------------------------------------------------

def bench_run():
    """latest.md: its date, machine, summary line, and both tables as {name: cells}."""
    text = read(RESULTS / "latest.md")
    date = re.search(r"^# .*\((\d{4}-\d{2}-\d{2})T", text, re.M)
    machine = re.search(r"^Machine: ([^,]+), (\d+) cores", text, re.M)
    summary = re.search(r"^Median wasm/native ratio ([\d.]+); (\d+) of (\d+) above 1\.5x\.", text, re.M)
    if not (date and machine and summary):
        raise Problem("tests/bench/results/latest.md: no date, machine or summary line")
    times, paired = {}, {}
    section = times
    for line in text.splitlines():
        if line.startswith("## Paired ratios"):
            section = paired
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| BM_"):
            section[cells[0]] = cells[1:]
    return {
        "date": date.group(1),
        "machine": f"{machine.group(1).replace('(R)', '')}, {machine.group(2)} cores",
        "median": summary.group(1), "above": summary.group(2), "count": summary.group(3),
        "times": times, "paired": paired,
    }


def room_run():
    text = read(RESULTS / "room-latest.md")
    date = re.search(r"^# .*?(\d{4}-\d{2}-\d{2})T", text, re.M)
    machine = re.search(r"^Machine: ([^,]+), (\d+) cores", text, re.M)
    if not (date and machine):
        raise Problem("tests/bench/results/room-latest.md: no date or machine line")
    header, rows = None, []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| bots"):
            header = cells
        elif header and line.startswith("| ") and cells[0].isdigit():
            rows.append(dict(zip(header, cells)))
    if not rows:
        raise Problem("tests/bench/results/room-latest.md: no table of bots")
    return {"date": date.group(1), "machine": f"{machine.group(1).replace('(R)', '')}, {machine.group(2)} cores",
            "rows": rows}


def latest(pattern, what):
    """The newest recorded run whose file name matches pattern (the names sort by time)."""
    found = sorted(p for p in RESULTS.iterdir() if re.fullmatch(pattern, p.name))
    if not found:
        raise Problem(f"tests/bench/results/ has no {what} ({pattern})")
    return found[-1]


def cells_of(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def machine_of(text, path):
    machine = re.search(r"^Machine: ([^,;]+), (\d+) cores", text, re.M)
    date = re.search(r"(\d{4}-\d{2}-\d{2})T", path.name)
    if not (machine and date):
        raise Problem(f"tests/bench/results/{path.name}: no machine line or date")
    return f"{machine.group(1).replace('(R)', '')}, {machine.group(2)} cores", date.group(1)


def room_udp_run():
    """The latest room-udp-*.md in the bench's layout: for each frame rate under loss, the rows
    per transport and how long after the loss stopped the mirrors agreed; the capacity rows."""
    path = latest(r"room-udp-\d{4}-\d{2}-\d{2}T\d{6}Z\.md", "room transport run")
    text = read(path)
    runs, header, hz, capacity = [], None, None, None
    for line in text.splitlines():
        m = re.match(r"^### (\d+) frames a second", line)
        if m:
            hz = m.group(1)
            runs.append({"hz": hz, "rows": {}, "cleared": {}})
        elif line.startswith("## ") and "no loss" in line:
            hz, capacity = None, {}
        elif line.startswith("| transport") or line.startswith("| bots"):
            header = cells_of(line)
        elif line.startswith("| ") and header and not line.startswith("|---"):
            row = dict(zip(header, cells_of(line)))
            if "transport" in row and hz:
                runs[-1]["rows"][row["transport"]] = row
            elif "tick mean ms" in row and capacity is not None:
                capacity = row
        cleared = re.match(r"^loss cleared at .*?: udp (\d+) ms later, websocket (\d+) ms later", line)
        if cleared and hz:
            runs[-1]["cleared"] = {"udp": cleared.group(1), "websocket": cleared.group(2)}
        thread = re.search(r"the room's thread alone \d+ ms \(([\d.]+)% of one core, ([\d.]+) us per frame\)", line)
        if thread and capacity is not None:
            capacity = dict(capacity, room_cpu=thread.group(1), us_per_frame=thread.group(2))
    if not runs or not all(r["rows"] for r in runs) or not capacity:
        raise Problem(f"tests/bench/results/{path.name}: no loss table per frame rate, or no capacity row")
    machine, date = machine_of(text, path)
    return {"path": path, "runs": runs, "capacity": capacity, "machine": machine, "date": date}


def rtc_run():
    path = latest(r"rtc-\d{4}-\d{2}-\d{2}T\d{6}Z\.md", "DataChannel run")
    text = read(path)
    header, rows, wire = None, [], {}
    for line in text.splitlines():
        if line.startswith("| peers") or line.startswith("| direction"):
            header = cells_of(line)
        elif line.startswith("| ") and header and not line.startswith("|---"):
            row = dict(zip(header, cells_of(line)))
            if "peers" in row:
                rows.append(row)
            elif "direction" in row:
                wire[row["direction"]] = row
    if not rows:
        raise Problem(f"tests/bench/results/{path.name}: no table of peers")
    machine, date = machine_of(text, path)
    return {"path": path, "rows": rows, "wire": wire, "machine": machine, "date": date}


HEADLINES = RESULTS / "headlines.md"


def headline_specs(texts):
    """(playground, preset) for every headline region in the given documents' texts."""
    found = []
    for text in texts:
        for m in REGION.finditer(text):
            name, *args = m.group("spec").split()
            if name == "headline" and len(args) == 2 and tuple(args) not in found:
                found.append(tuple(args))
    return found


def run_headline(tool, playground, preset):
    """The verdict line the report tool prints for one preset ("holds: ..." or not)."""
    out = subprocess.run([tool, playground, "--preset", preset], capture_output=True, text=True, timeout=300)
    m = re.search(r"^verdict: (.*)$", out.stdout, re.M)
    if not m:
        raise Problem(f"{tool} {playground} --preset {preset} printed no verdict: {out.stderr.strip()[:200]}")
    return m.group(1).strip()


def recorded_headlines():
    if not HEADLINES.exists():
        return {}
    found = {}
    for line in read(HEADLINES).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 3 and cells[0] not in ("playground", "---"):
            found[(cells[0], cells[1])] = cells[2]
    return found


def record_headlines(tool, specs):
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    rows = [[pg, preset, run_headline(tool, pg, preset).replace("|", "/")] for pg, preset in specs]
    HEADLINES.write_text(
        "# Headline findings, as the report tool judges them\n\n"
        "Each row is `./vantage report PLAYGROUND --preset PRESET`: a seeded, simulated run, so the same\n"
        "sources give the same verdict on any machine. Recorded by `./vantage docs` for every headline\n"
        f"the README and the docs quote (tests/docs/figures.py), at commit {commit}.\n\n" +
        table(rows, ["playground", "preset", "verdict"]), encoding="utf-8")


# ---- figures ------------------------------------------------------------------------------

def link(doc, target):
    return os.path.relpath(ROOT / target, (ROOT / doc).parent)


def table(rows, header):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def rows_matching(section, pattern):
    rows = [(name, cells) for name, cells in sorted(section.items()) if re.search(pattern, name)]
    if not rows:
        raise Problem(f"no benchmark in latest.md matches {pattern!r}")
    return rows


def playground_ticks(run):
    found = {}
    for name, cells in run["times"].items():
        m = re.fullmatch(r"BM_PlaygroundTick/(\w+)/(defaults|largest)", name)
        if m:
            found.setdefault(m.group(1), {})[m.group(2)] = cells
    if not found:
        raise Problem("latest.md has no BM_PlaygroundTick rows")
    return found


def figure(doc, spec):
    name, *args = spec.split()
    if name == "bench-summary":
        r = bench_run()
        return (f"From the latest recorded run ([latest.md]({link(doc, 'tests/bench/results/latest.md')}), "
                f"{r['machine']}, {r['date']}): {r['count']} benchmarks, median wasm/native {r['median']}, "
                f"{r['above']} above 1.5x.\n")
    if name == "bench-table":
        r = bench_run()
        return table([[f"`{n}`"] + c[:3] for n, c in rows_matching(r["times"], args[0])],
                     ["benchmark", "native", "wasm", "wasm/native"])
    if name == "paired-table":
        r = bench_run()
        return table([[f"`{n}`"] + c[:2] for n, c in rows_matching(r["paired"], args[0])],
                     ["candidate over reference", "native", "wasm"])
    if name == "playground-ticks":
        r = bench_run()
        rows = []
        for pg, t in sorted(playground_ticks(r).items()):
            d, big = t.get("defaults"), t.get("largest")
            rows.append([pg, f"{d[0]} / {d[1]}" if d else "", f"{big[0]} / {big[1]}" if big else ""])
        return table(rows, ["playground", "tick at its defaults (native / wasm)", "at its largest setting"])
    if name == "tick":
        r = bench_run()
        t = playground_ticks(r).get(args[0])
        if not t:
            raise Problem(f"latest.md has no BM_PlaygroundTick/{args[0]} rows")
        text = f"A tick at its defaults: {t['defaults'][0]} natively, {t['defaults'][1]} in wasm"
        if "largest" in t:
            text += f"; at its largest setting {t['largest'][0]} / {t['largest'][1]}"
        return text + f" ({r['machine']}, {r['date']}).\n"
    if name == "room-load":
        r = room_run()
        rows = [[x["bots"], x["tick mean ms"], x["tick worst ms"], x["KiB/s per client"], x["RSS MiB"]] for x in r["rows"]]
        return (table(rows, ["bots", "tick mean ms", "tick worst ms", "KiB/s per client", "RSS MiB"]) +
                f"\n{r['machine']}, {r['date']} ([room-latest.md]({link(doc, 'tests/bench/results/room-latest.md')})).\n")
    if name == "room-transports":
        r = room_udp_run()
        rows = []
        for run in r["runs"]:
            for transport in ("udp", "websocket"):
                x = run["rows"].get(transport)
                if x:
                    rows.append([transport, run["hz"], x["frame age p50 ms (mean)"], x["frame age p99 ms (worst bot)"],
                                 x["stalls"], x["frames lost"], x["mirror agreed %"], run["cleared"].get(transport, "")])
        c = r["capacity"]
        source = link(doc, "tests/bench/results/" + r["path"].name)
        return (table(rows, ["transport", "frames/s", "frame age p50 ms", "p99 ms (worst seat)", "stalls", "frames lost",
                             "mirror agreed %", "agreed again after the loss, ms"]) +
                f"\n16 seats of each in one room, 20% of packets dropped by nftables in `unshare -n` for 8 s. "
                f"{c['bots']} UDP bots, no loss: tick mean {c['tick mean ms']} ms of 16.7, "
                f"the room's thread {c.get('room_cpu', '?')}% of one core, {c['RSS MiB']} MiB. "
                f"{r['machine']}, {r['date']} ([{r['path'].name}]({source})).\n")
    if name == "transports-line":
        u, r = room_udp_run(), rtc_run()
        fast = max(u["runs"], key=lambda run: int(run["hz"]))
        udp, ws = fast["rows"].get("udp"), fast["rows"].get("websocket")
        if not (udp and ws):
            raise Problem(f"{u['path'].name}: no udp and websocket rows at {fast['hz']} frames a second")
        held = [x for x in r["rows"] if x["frames/s"] == "16" and x["late ticks"].startswith("0 of")]
        if not held:
            raise Problem(f"{r['path'].name}: no run at 16 frames a second without a late tick")
        peers = max(held, key=lambda x: int(x["peers"]))
        c = u["capacity"]
        return (f"Under 20% real loss at {fast['hz']} frames a second, a datagram seat's newest frame aged "
                f"{udp['frame age p99 ms (worst bot)']} ms at p99 against the WebSocket's "
                f"{ws['frame age p99 ms (worst bot)']} ms, and its mirror agreed again "
                f"{fast['cleared'].get('udp', '?')} ms after the loss stopped "
                f"(WebSocket {fast['cleared'].get('websocket', '?')} ms); one room held {c['bots']} UDP bots at a "
                f"{c['tick mean ms']} ms mean tick and {peers['peers']} DataChannel peers at 16 frames a second with no "
                f"late tick "
                f"({u['machine']}, {u['date']}: [{u['path'].name}]({link(doc, 'tests/bench/results/' + u['path'].name)}), "
                f"[{r['path'].name}]({link(doc, 'tests/bench/results/' + r['path'].name)})).\n")
    if name == "rtc-capacity":
        r = rtc_run()
        rows = [[x["peers"], x["frames/s"], x["late ticks"], x["room CPU"], x["threads"].split(" ")[0],
                 x["RSS MiB"].split(" ")[0], x.get("refused", "")] for x in r["rows"]]
        text = table(rows, ["peers", "frames/s", "late ticks", "room CPU", "threads", "RSS MiB",
                            "refused (sender behind)"])
        down = r["wire"].get("room to pages")
        if down:
            text += (f"\nOn the wire (nftables counters, IP and UDP headers, ICE, DTLS and SCTP included), frames of "
                     f"600 bytes grew by {down['added']}.")
        source = link(doc, "tests/bench/results/" + r["path"].name)
        return text + f"\n{r['machine']}, {r['date']} ([{r['path'].name}]({source})).\n"
    if name == "headline":
        if len(args) != 2:
            raise Problem("headline takes PLAYGROUND PRESET")
        verdict = recorded_headlines().get((args[0], args[1]))
        if verdict is None:
            raise Problem(f"headlines.md has no verdict for {args[0]} {args[1]} (run ./vantage docs)")
        # A verdict that holds is quoted as the finding; one that does not says so.
        finding = verdict[len("holds: "):] if verdict.startswith("holds: ") else verdict
        return (f"Headline (`./vantage report {args[0]} --preset {args[1]}`, "
                f"[recorded]({link(doc, 'tests/bench/results/headlines.md')})): {finding}\n")
    raise Problem(f"unknown figure {name!r}")


# ---- documents ----------------------------------------------------------------------------

def documents():
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard", "*.md"], check=True, capture_output=True,
                             text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.md") if not {"node_modules", "build"} & set(p.parts)]
    # Recorded runs are history: their links and figures stay as they were written.
    return sorted(d for d in out if not d.startswith("tests/bench/results/") or d.endswith("history.md"))


def regenerate(doc, text, problems):
    def replace(m):
        try:
            return m.group(1) + figure(doc, m.group("spec")) + m.group(4)
        except (Problem, OSError, KeyError, IndexError) as e:
            problems.append(f"figures:{m.group('spec')}: {e}")
            return m.group(0)
    return REGION.sub(replace, text)


def broken_links(doc, text):
    found = []
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        for m in LINK.finditer(line):
            target = m.group("target")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if path and not (ROOT / doc).parent.joinpath(path).resolve().exists():
                found.append(f"link to {target}: no such file")
    return found


def main(argv):
    mode, tool = (argv[0] if argv else None), None
    if len(argv) == 3 and argv[1] == "--report":
        tool = argv[2]
    if mode not in ("--write", "--check") or len(argv) not in (1, 3) or (len(argv) == 3 and not tool):
        print(__doc__, file=sys.stderr)
        return 2
    write = mode == "--write"
    docs = documents()
    failed = 0
    if tool:
        specs = headline_specs(read(ROOT / d) for d in docs)
        if write:
            record_headlines(tool, specs)
            print(f"recorded {len(specs)} headlines in {HEADLINES.relative_to(ROOT)}")
        else:
            recorded, problems = recorded_headlines(), []
            for pg, preset in specs:
                try:
                    now = run_headline(tool, pg, preset).replace("|", "/")
                except (Problem, OSError, subprocess.SubprocessError) as e:
                    problems.append(str(e))
                    continue
                if recorded.get((pg, preset)) != now:
                    problems.append(f"{pg} {preset}: the report tool now says '{now}', recorded "
                                    f"'{recorded.get((pg, preset))}' (run ./vantage docs)")
            print(("not ok " if problems else "ok ") + str(HEADLINES.relative_to(ROOT)))
            for p in problems:
                print(f"#   {p}")
            failed += bool(problems)
    for doc in docs:
        text = read(ROOT / doc)
        problems = []
        new = regenerate(doc, text, problems)
        if write:
            if new != text:
                (ROOT / doc).write_text(new, encoding="utf-8")
                print(f"rewrote {doc}")
            for p in problems:
                print(f"{doc}: {p}", file=sys.stderr)
            failed += bool(problems)
            continue
        if new != text:
            for old_m, new_m in zip(REGION.finditer(text), REGION.finditer(new)):
                if old_m.group(0) != new_m.group(0):
                    problems.append(f"figures:{old_m.group('spec')} differs from its source (run ./vantage docs)")
        problems += broken_links(doc, text)
        if problems:
            failed += 1
            print(f"not ok {doc}")
            for p in problems:
                print(f"#   {p}")
        else:
            print(f"ok {doc}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
