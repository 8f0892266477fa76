// A soak of real browsers' DataChannels against one room process (`./vantage soak-rtc`; a
// benchmark, not a test). Starts `vantage_serve horde`, then for N cycles opens a page in
// headless Chromium, waits for its DataChannel to open and frames to arrive over it, and
// closes it: politely (the tab closes, its WebSocket says goodbye) on even cycles, by crashing
// the tab's renderer (CDP Page.crash: no goodbye from the page, its sockets die with it) on odd
// ones. The room process's threads and RSS (/proc/PID/status) are sampled before any page,
// after a warm-up cycle (GStreamer's plugins and the first peer's allocations stay), with each
// page's channel open, and once that page is gone (after its peer's threads have left, or 10 s);
// then once more after the last cycle. Prints a markdown table and writes it, with the machine,
// to OUT_DIR/rtc-soak-<UTC stamp>.md.
// Usage: node rtc_soak.mjs SITE_DIR OUT_DIR [--cycles N] [--rss-bound-mib M]
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { launch } from './harness.mjs';
import { startRoom } from './playground_room.mjs';
import { join, overChannels } from './playground_room_datachannel.mjs';

const args = process.argv.slice(2);
const [siteDir, outDir] = args;
let cycles = 30, rssBoundMib = 8;
for (let i = 2; i < args.length; i++) {
  if (args[i] === '--cycles' && /^[1-9]\d*$/.test(args[i + 1] || '')) cycles = Number(args[++i]);
  else if (args[i] === '--rss-bound-mib' && Number(args[i + 1]) > 0) rssBoundMib = Number(args[++i]);
  else { console.error(`rtc_soak: unknown or bad argument '${args[i]}'`); process.exit(2); }
}
if (!siteDir || !outDir) { console.error('usage: node rtc_soak.mjs SITE_DIR OUT_DIR [--cycles N] [--rss-bound-mib M]'); process.exit(2); }

// Threads and resident MiB of a process, from /proc.
function sample(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number((status.match(new RegExp(`^${name}:\\s+(\\d+)`, 'm')) || [])[1]);
  return { threads: field('Threads'), rss_mib: field('VmRSS') / 1024 };
}
// The names of a process's threads (/proc/PID/task/*/comm), counted: "gst-loop x1, ...".
function threadNames(pid) {
  const counts = new Map();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    let name = '?';
    try { name = readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim(); } catch {}
    counts.set(name, (counts.get(name) || 0) + 1);
  }
  return [...counts].sort().map(([n, c]) => `${n} x${c}`).join(', ');
}
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
// Samples until the room's threads are back to `threads` (its peer's are gone) or `ms` passed.
async function settle(pid, threads, ms) {
  const start = Date.now();
  let s = sample(pid);
  while (s.threads > threads && Date.now() - start < ms) {
    await sleep(100);
    s = sample(pid);
  }
  return { ...s, ms: Date.now() - start };
}

const server = await startRoom(siteDir);
const browser = await launch();
const rows = [];
let failure = '';
const mib = (v) => v.toFixed(1);
try {
  await sleep(2000);  // the DTLS certificate is made at start
  const idle = sample(server.pid);
  const idleNames = threadNames(server.pid);
  // One cycle: a page joins, its channel opens and carries frames, the page goes.
  async function cycle(i) {
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    const page = await context.newPage();
    const t0 = Date.now();
    await join(page, server.base, `soak${i}`);
    await overChannels([page], 20, 20000);
    const openMs = Date.now() - t0;
    const during = sample(server.pid);
    const polite = i % 2 === 0;
    if (polite) {
      await context.close();
    } else {
      const cdp = await context.newCDPSession(page);
      const crashed = new Promise((ok) => page.once('crash', () => ok(true)));
      cdp.send('Page.crash').catch(() => {});  // the renderer dies: the call is never answered
      if (!(await Promise.race([crashed, sleep(5000).then(() => false)]))) throw new Error(`cycle ${i}: the tab did not crash`);
      await context.close();
    }
    return { openMs, during, polite };
  }
  const warm = await cycle(0);
  const warmed = await settle(server.pid, idle.threads, 10000);
  const warmNames = threadNames(server.pid);
  for (let i = 1; i <= cycles; i++) {
    const c = await cycle(i);
    const after = await settle(server.pid, warmed.threads, 10000);
    rows.push({ i, ...c, after });
    console.log(`cycle ${i}: ${c.polite ? 'closed' : 'crashed'}, open in ${c.openMs} ms, ` +
      `${c.during.threads} threads / ${mib(c.during.rss_mib)} MiB with the page, ` +
      `${after.threads} / ${mib(after.rss_mib)} after (${after.ms} ms)`);
  }
  await sleep(3000);
  const end = sample(server.pid);
  const endNames = threadNames(server.pid);
  const rssGrowth = end.rss_mib - warmed.rss_mib;
  // The baseline is the warm level: the first peer starts threads GStreamer keeps for the
  // process (named below); every later peer's must go with it.
  const threadsBack = end.threads <= warmed.threads;
  // RSS after each cycle against the cycle number: the least-squares slope, MiB per cycle, over
  // every cycle and over the second half (the allocator's arenas fill during the first cycles).
  const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
  const slopeOf = (list) => {
    if (list.length < 2) return 0;
    const xs = list.map((r) => r.i), ys = list.map((r) => r.after.rss_mib);
    const [mx, my] = [mean(xs), mean(ys)];
    return xs.reduce((a, x, k) => a + (x - mx) * (ys[k] - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  };
  const kib = (v) => `${v >= 0 ? '+' : ''}${(v * 1024).toFixed(0)} KiB`;
  const slope = slopeOf(rows), lateSlope = slopeOf(rows.slice(Math.floor(rows.length / 2)));
  const rssFlat = rssGrowth <= rssBoundMib;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z').replace(/^(\d{4})(\d{2})(\d{2})/, '$1-$2-$3');
  let model = cpus()[0].model;
  try { model = execSync("lscpu | sed -n 's/^Model name:[[:space:]]*//p'", { encoding: 'utf8' }).trim() || model; } catch {}
  let commit = 'unknown';
  try { commit = execSync('git describe --always --dirty', { encoding: 'utf8', cwd: new URL('.', import.meta.url).pathname }).trim(); } catch {}
  const crashed = rows.filter((r) => !r.polite);
  const slowest = (list) => Math.max(...list.map((r) => r.after.ms));
  const md = [
    `# DataChannel soak with real browsers, ${stamp}`,
    '',
    `Machine: ${model}, ${cpus().length} cores; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')} at the end; commit ${commit}.`,
    `Tool: \`./vantage soak-rtc --cycles ${cycles}\` (tests/browser/rtc_soak.mjs): one \`vantage_serve horde\` process;`,
    'per cycle one headless Chromium page joins, its DataChannel opens and carries 20 frames, and the page',
    'goes: closed (even cycles) or its renderer crashed (odd cycles, CDP Page.crash). Threads and RSS are',
    'the room process\'s (/proc/PID/status): with the page\'s channel open, and once the page is gone',
    '(sampled until the threads are back to the warm level, at most 10 s; "gone in" is that wait; the',
    'warm-up waits the whole 10 s for the start level, which the first peer\'s GStreamer threads never reach).',
    '',
    '| cycle | page goes | page opened to 20 frames over its channel (ms) | threads with the page | RSS MiB with the page | threads after | RSS MiB after | gone in (ms) |',
    '|---|---|---|---|---|---|---|---|',
    `| start | - | - | - | - | ${idle.threads} | ${mib(idle.rss_mib)} | - |`,
    `| warm-up | closed | ${warm.openMs} | ${warm.during.threads} | ${mib(warm.during.rss_mib)} | ${warmed.threads} | ${mib(warmed.rss_mib)} | ${warmed.ms} |`,
    ...rows.map((r) => `| ${r.i} | ${r.polite ? 'closed' : 'crashed'} | ${r.openMs} | ${r.during.threads} | ${mib(r.during.rss_mib)} | ${r.after.threads} | ${mib(r.after.rss_mib)} | ${r.after.ms} |`),
    `| end (+3 s) | - | - | - | - | ${end.threads} | ${mib(end.rss_mib)} | - |`,
    '',
    `Threads: ${idle.threads} before any page (${idleNames}); ${warmed.threads} once the warm-up page had gone ` +
      `(${warmNames}); ${end.threads} after ${cycles} more cycles (${endNames}): ` +
      (threadsBack ? 'back to the warm baseline.' : `**not** back to the warm baseline (${end.threads - warmed.threads} more).`),
    `RSS: ${mib(idle.rss_mib)} MiB before any page, ${mib(warmed.rss_mib)} MiB after the warm-up cycle, ` +
      `${mib(end.rss_mib)} MiB after ${cycles} more cycles (${rssGrowth >= 0 ? '+' : ''}${mib(rssGrowth)} MiB; ` +
      `bound ${rssBoundMib} MiB): ${rssFlat ? 'within the bound' : '**grew past the bound**'}; ` +
      `per cycle ${kib(slope)} over all of them, ${kib(lateSlope)} over the second half.`,
    `A closed page's peer was gone within ${slowest(rows.filter((r) => r.polite))} ms; a crashed one's within ` +
      `${crashed.length ? slowest(crashed) : '-'} ms (its WebSocket ends with the renderer, and the seat's peer with it).`,
    '',
  ].join('\n');
  console.log('\n' + md);
  mkdirSync(outDir, { recursive: true });
  const file = `${outDir}/rtc-soak-${stamp}.md`;
  writeFileSync(file, md);
  console.log(`written to ${file}`);
  if (!threadsBack || !rssFlat) failure = 'threads or RSS did not come back (see the table)';
} catch (e) {
  failure = e.message;
} finally {
  await browser.close();
  await server.stop();
}
if (failure) { console.error('rtc soak: ' + failure); process.exit(1); }
