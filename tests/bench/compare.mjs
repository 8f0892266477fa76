// Merges a native and a wasm Google Benchmark JSON run into one table: each benchmark's
// native time, wasm time and the wasm/native ratio. Prints it and writes it as CSV and
// Markdown under OUT_DIR, with the machine it came from. A full run (no FILTER) also
// becomes latest.md, the table the README quotes; a filtered run only gets its own file.
// Each side may be several runs, one per process, as a comma-separated list.
//   node compare.mjs NATIVE_JSON[,NATIVE_JSON...] WASM_JSON[,WASM_JSON...] OUT_DIR [FILTER [WARMUP_SECONDS]]
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { hostname } from 'node:os';

const [nativePath, wasmPath, outDir, filter = '', warmup = '0'] = process.argv.slice(2);
if (!nativePath || !outDir) { console.error('usage: node compare.mjs NATIVE_JSON WASM_JSON OUT_DIR'); process.exit(2); }

function load(paths) {
  const files = (paths || '').split(',').filter((p) => p && existsSync(p));
  // Google Benchmark writes a 0/0 counter of an aggregate (the _cv of a counter that is
  // always 0) as a bare NaN, which is not JSON; such values become null.
  const runs = files.flatMap((path) =>
    JSON.parse(readFileSync(path, 'utf8').replace(/:\s*-?(nan|NaN|inf|Infinity)\b/g, ': null')).benchmarks || []);
  const toNs = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
  // Only plain iterations (aggregates such as _mean would double count). Wall time on both
  // sides: under Node, Emscripten's process CPU clock IS the wall clock (library_wasi.js maps
  // every clock but realtime to performance.now), so native CPU time against wasm "CPU time"
  // charged every wait for a busy shared core to wasm alone. With several runs, the fastest
  // one: load on a shared machine only ever adds time, so the minimum is the best estimate
  // of the code's own cost. A paired benchmark's `ratio` counter: the median run's.
  const times = new Map(), ratios = new Map(), runsOf = new Map();
  for (const b of runs.filter((r) => (r.run_type || 'iteration') === 'iteration')) {
    const ns = b.real_time * (toNs[b.time_unit] || 1);
    times.set(b.name, Math.min(ns, times.get(b.name) ?? Infinity));
    runsOf.set(b.name, (runsOf.get(b.name) || 0) + 1);
    if (typeof b.ratio === 'number') ratios.set(b.name, [...(ratios.get(b.name) || []), b.ratio]);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { times, ratios: new Map([...ratios].map(([name, xs]) => [name, median(xs)])),
    repetitions: Math.max(1, ...runsOf.values()), processes: files.length };
}
const sh = (cmd) => { try { return execSync(cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return 'unknown'; } };

const nativeRun = load(nativePath), wasmRun = load(wasmPath);
const native = nativeRun.times, wasm = wasmRun.times;
// How many times each benchmark ran, read off the runs themselves.
const repetitions = nativeRun.repetitions;
const machine = {
  host: hostname(),
  cpu: sh("lscpu | sed -n 's/^Model name: *//p'"),
  cores: sh('nproc'),
  native_compiler: sh('g++ --version | head -1'),
  wasm_compiler: sh('emcc --version | head -1'),
  node: process.version,
  date: new Date().toISOString().slice(0, 19) + 'Z',
};

const fmt = (ns) => ns === undefined ? '' : ns >= 1e6 ? (ns / 1e6).toFixed(2) + ' ms' : ns >= 1e3 ? (ns / 1e3).toFixed(2) + ' us' : ns.toFixed(1) + ' ns';
// By name: with repetitions interleaved at random, the run order is not the suite's order.
const rows = [...native.keys()].sort().map((name) => {
  const n = native.get(name), w = wasm.get(name);
  return { name, n, w, ratio: w !== undefined ? w / n : undefined };
});

const width = Math.max(9, ...rows.map((r) => r.name.length));
const lines = [`${'benchmark'.padEnd(width)}  ${'native'.padStart(11)}  ${'wasm'.padStart(11)}  wasm/native`];
for (const r of rows) {
  lines.push(`${r.name.padEnd(width)}  ${fmt(r.n).padStart(11)}  ${fmt(r.w).padStart(11)}  ${r.ratio !== undefined ? r.ratio.toFixed(2).padStart(11) : ''}`);
}
const ratios = rows.filter((r) => r.ratio !== undefined).map((r) => r.ratio).sort((a, b) => a - b);
const median = ratios.length ? ratios[Math.floor(ratios.length / 2)] : undefined;
const over = rows.filter((r) => r.ratio > 1.5);
// Paired benchmarks (tests/bench/grid_bin_bench.cpp, run_paired): candidate over reference,
// timed in alternation inside one process, so the ratio does not depend on the load moving
// between two benchmarks.
const paired = [...nativeRun.ratios.keys()].sort().map((name) => ({ name, n: nativeRun.ratios.get(name), w: wasmRun.ratios.get(name) }));
const pairedLines = paired.length ? ['', `${'paired (candidate/reference)'.padEnd(width)}  ${'native'.padStart(11)}  ${'wasm'.padStart(11)}`,
  ...paired.map((p) => `${p.name.padEnd(width)}  ${p.n.toFixed(3).padStart(11)}  ${p.w !== undefined ? p.w.toFixed(3).padStart(11) : ''}`)] : [];
console.log(lines.concat(pairedLines).join('\n'));
console.log(`\n${rows.length} benchmarks; wasm/native median ${median !== undefined ? median.toFixed(2) : 'n/a'}; ${over.length} above 1.5x`);
console.log(`machine: ${machine.cpu}, ${machine.cores} cores; ${machine.native_compiler}; ${machine.wasm_compiler}; node ${machine.node}`);

mkdirSync(outDir, { recursive: true });
const stamp = machine.date.replace(/[:]/g, '').replace(/\..*/, '');
const csv = ['benchmark,native_ns,wasm_ns,wasm_over_native',
  ...rows.map((r) => `${r.name},${r.n ?? ''},${r.w ?? ''},${r.ratio !== undefined ? r.ratio.toFixed(3) : ''}`)].join('\n');
const md = [`# Benchmarks, native vs wasm (${machine.date})`, '',
  ...(filter ? [`A partial run: only the benchmarks matching \`${filter}\`.`, ''] : []),
  `Machine: ${machine.cpu}, ${machine.cores} cores (host ${machine.host}). Native: ${machine.native_compiler}, -O2.`,
  `Wasm: ${machine.wasm_compiler}, -O3, run under Node ${machine.node}. Wall time per iteration on both sides`,
  `(Emscripten's CPU clock is the wall clock, so native CPU time would not compare like with like); load average`,
  `at the end of the run: ${sh('cut -d" " -f1-3 /proc/loadavg')}.` +
  (Number(warmup) > 0 ? ` Each benchmark ran ${warmup} s untimed first (V8 times a long wasm call in its baseline compiler otherwise).` : '') +
  (repetitions > 1 ? ` ${repetitions} runs per side` + (nativeRun.processes > 1 ? ', each its own process, native and wasm alternating' : ', interleaved at random') +
    '; each time is the fastest run.' : ''), '',
  `Median wasm/native ratio ${median !== undefined ? median.toFixed(2) : 'n/a'}; ${over.length} of ${ratios.length} above 1.5x.`, '',
  '| benchmark | native | wasm | wasm/native |', '|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.n)} | ${fmt(r.w)} | ${r.ratio !== undefined ? r.ratio.toFixed(2) : ''} |`),
  ...(paired.length ? ['', '## Paired ratios', '',
    'Candidate time over reference time, both timed in alternation inside one benchmark (reference, candidate,',
    'candidate, reference per round; the median round), so a change of load between benchmarks does not enter',
    'the ratio. Names read Pair<candidate>Over<reference>.', '',
    '| benchmark | native | wasm |', '|---|---:|---:|',
    ...paired.map((p) => `| ${p.name} | ${p.n.toFixed(3)} | ${p.w !== undefined ? p.w.toFixed(3) : ''} |`)] : [])].join('\n');
writeFileSync(`${outDir}/bench-${stamp}.csv`, csv + '\n');
writeFileSync(`${outDir}/bench-${stamp}.md`, md + '\n');
if (!filter) writeFileSync(`${outDir}/latest.md`, md + '\n');
console.log(`wrote ${outDir}/bench-${stamp}.md and .csv`);
