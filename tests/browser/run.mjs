// Browser tests: the real page in headless Chromium (Debian's), moving real controls and
// reading real meters. Usage: node run.mjs SITE_DIR REPORT_JSON
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { Suite, assert, assertEq, openApp, goldenChecksum } from './harness.mjs';
import { decodePng, variance } from './image.mjs';
import { serve } from '../../web/serve.mjs';

const [siteDir, report, bundleDir] = process.argv.slice(2);
if (!siteDir || !report) { console.error('usage: node run.mjs SITE_DIR REPORT_JSON [BUNDLE_DIR]'); process.exit(2); }
const suite = new Suite(siteDir, report);

suite.test('page loads, renders the UI and reports no errors', async ({ page, errors, base, shot }) => {
  await openApp(page, base, '', 60);
  const loadingDone = await page.evaluate(() => document.getElementById('loading').classList.contains('done'));
  assert(loadingDone, 'the loading screen is still shown');
  const progress = await page.evaluate(() => {
    const p = document.getElementById('progress');
    return { width: parseFloat(p.style.width), bytes: Number(p.dataset.bytes) };
  });
  assert(progress.width >= 99.9, `the progress bar stopped at ${progress.width}%`);
  assertEq(progress.bytes, statSync(`${siteDir}/vantage.wasm`).size, 'bytes counted by the progress bar');
  const file = await shot('page');
  const v = variance(decodePng(readFileSync(file)));
  assert(v > 50, `canvas looks blank (pixel variance ${v.toFixed(1)})`);
  assert(errors.length === 0, 'errors: ' + errors.join(' | '));
});

suite.test('version and playgrounds are exposed on window.vantage', async ({ page, base }) => {
  await openApp(page, base);
  const version = await page.evaluate(() => window.vantage.version());
  assert(/^\d+\.\d+\.\d+$/.test(version), `version '${version}'`);
  const names = await page.evaluate(() => window.vantage.playgrounds().map((p) => p.name));
  assert(names.includes('meter'), 'playgrounds: ' + names.join(','));
});

suite.test('settings in the URL hash are applied and read back', async ({ page, base }) => {
  await openApp(page, base, 'meter/seed=9&rate_kib=300&burst=0.2');
  const s = await page.evaluate(() => window.vantage.state());
  assertEq(s.playground, 'meter', 'playground');
  assertEq(s.seed, 9, 'seed');
  assertEq(s.settings.rate_kib, 300, 'rate_kib');
  assertEq(s.settings.burst, 0.2, 'burst');
});

suite.test('window.vantage.set changes a setting and the URL follows', async ({ page, base }) => {
  await openApp(page, base, 'meter');
  await page.evaluate(() => window.vantage.set('step_to_kib', 512));
  const s = await page.evaluate(() => window.vantage.state());
  assertEq(s.settings.step_to_kib, 512, 'step_to_kib');
  const hash = await page.evaluate(() => location.hash);
  assert(hash.includes('step_to_kib=512'), 'hash ' + hash);
});

suite.test('a refused value throws a clear error and changes nothing', async ({ page, base }) => {
  await openApp(page, base, 'meter/rate_kib=100');
  const err = await page.evaluate(() => { try { window.vantage.set('rate_kib', 'NaN'); return ''; } catch (e) { return e.message; } });
  assert(err.includes('rate_kib'), 'message: ' + err);
  const err2 = await page.evaluate(() => { try { window.vantage.set('rate_kib', 99999); return ''; } catch (e) { return e.message; } });
  assert(err2.includes('between'), 'message: ' + err2);
  assertEq(await page.evaluate(() => window.vantage.state().settings.rate_kib), 100, 'rate_kib unchanged');
});

suite.test('a bad URL parameter shows a visible message and the rest still applies', async ({ page, base, shot }) => {
  await openApp(page, base, 'meter/rate_kib=abc&burst=0.3');
  await page.waitForSelector('#message:not([hidden])', { timeout: 5000 });
  const text = await page.textContent('#message-text');
  assert(text.includes('rate_kib'), 'message: ' + text);
  assert(await page.isVisible('#message'), 'message is not visible');
  assertEq(await page.evaluate(() => window.vantage.state().settings.burst), 0.3, 'burst');
  await shot('bad-url-parameter');
});

suite.test('an unknown playground in the URL is reported', async ({ page, base }) => {
  await openApp(page, base, 'nowhere/seed=3');
  const text = await page.textContent('#message-text');
  assert(text.includes("unknown playground 'nowhere'"), 'message: ' + text);
});

suite.test('a missing .wasm produces a visible error', async ({ page, base, shot }) => {
  await page.route('**/vantage.wasm', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(base);
  await page.waitForSelector('#message:not([hidden])', { timeout: 15000 });
  const text = await page.textContent('#message-text');
  assert(text.includes('vantage.wasm') && text.includes('404'), 'message: ' + text);
  assert(await page.isVisible('#message'), 'message not visible');
  await shot('missing-wasm');
});

// An engine without one of the features the module is compiled for, answering the page's
// probe as such an engine's validator would (a real validate is kept for every other module,
// so only the probe is refused): the feature's opcode prefix and first byte.
for (const [feature, opcode] of [['SIMD', [0xfd, 0x0c]], ['bulk memory', [0xfc, 0x0b]]]) {
  suite.test(`a browser without WebAssembly ${feature} is told so, and the app is not started`, async ({ page, base }) => {
    await page.addInitScript((op) => {
      const validate = WebAssembly.validate.bind(WebAssembly);
      WebAssembly.validate = (bytes) => {
        const b = new Uint8Array(bytes.buffer || bytes);
        const uses = b.some((v, i) => v === op[0] && b[i + 1] === op[1]);
        return uses ? false : validate(bytes);
      };
    }, opcode);
    await page.goto(base);
    await page.waitForSelector('#message:not([hidden])', { timeout: 15000 });
    const text = await page.textContent('#message-text');
    assert(text.includes(`no WebAssembly ${feature}`) && text.includes('Safari 16.4'), 'message: ' + text);
    await page.waitForTimeout(1000);
    // index.html preloads vantage.js and the .wasm for everyone; the app starts only when the
    // page adds the script, which it must not do here.
    assert(!(await page.evaluate(() => document.querySelector('script[src="vantage.js"]'))), 'vantage.js was started anyway');
    assert(!(await page.evaluate(() => window.vantage && window.vantage.ready)), 'the app reports ready');
  });
}

suite.test('meters are measured and move as the simulation runs', async ({ page, base }) => {
  await openApp(page, base, 'meter/seed=4', 120);
  const a = await page.evaluate(() => window.vantage.state());
  await page.waitForFunction((t) => window.vantage.state().tick >= t + 60, a.tick, { timeout: 20000 });
  const b = await page.evaluate(() => window.vantage.state());
  assert(b.meters.windowed_kib_s > 0, 'windowed meter reads ' + b.meters.windowed_kib_s);
  assert(b.meters.packets > a.meters.packets, 'packets did not grow');
  assert(b.time_s > a.time_s, 'time did not advance');
});

suite.test('pause stops the simulation; the hash and API agree', async ({ page, base }) => {
  await openApp(page, base, 'meter');
  await page.evaluate(() => window.vantage.set('paused', 1));
  const t0 = await page.evaluate(() => window.vantage.state().tick);
  await page.waitForTimeout(400);
  assertEq(await page.evaluate(() => window.vantage.state().tick), t0, 'tick while paused');
  assert((await page.evaluate(() => location.hash)).includes('paused=1'), 'hash lacks paused=1');
});

suite.test('the canvas follows window resizes', async ({ page, base }) => {
  await openApp(page, base);
  await page.setViewportSize({ width: 900, height: 600 });
  await page.waitForFunction(() => {
    const c = document.getElementById('canvas');
    return c.width === window.innerWidth && c.height === window.innerHeight;
  }, null, { timeout: 5000 });
});

suite.test('clicking the Pause button pauses (a real control)', async ({ page, base }) => {
  await openApp(page, base, 'meter');
  // The context bar's first button sits at the top-left of the ImGui window.
  await page.mouse.click(30, 20);
  await page.waitForFunction(() => window.vantage.state().paused === true, null, { timeout: 5000 });
});

suite.test('the same seed gives the same checksum as native', async ({ page, base }) => {
  // Pinned in tests/playgrounds/meter_sim_test.cpp: 600 ticks at 60 Hz from seed 5.
  await openApp(page, base, 'meter/seed=5&paused=1', 0);
  const sum = await page.evaluate(() => { for (let i = 0; i < 600; i++) window.vantage.step(); return window.vantage.state().checksum; });
  const expected = goldenChecksum('meter');
  assertEq(sum, expected, 'checksum after 600 ticks');
});

suite.test('a copied link reproduces the same scenario and numbers in a new browser', async ({ page, base }) => {
  await openApp(page, base, 'meter/seed=12&rate_kib=90&paused=1', 0);
  const link = await page.evaluate(() => window.vantage.copyLink());
  assert(link.startsWith(base) && link.includes('seed=12') && link.includes('rate_kib=90'), 'link ' + link);
  const run = async (p) => p.evaluate(() => { for (let i = 0; i < 300; i++) window.vantage.step(); return window.vantage.state(); });
  const a = await run(page);
  const other = await page.context().browser().newPage();
  await other.goto(link);
  await other.waitForFunction(() => window.vantage && window.vantage.ready);
  const b = await run(other);
  await other.close();
  assertEq(JSON.stringify(b.settings), JSON.stringify(a.settings), 'settings');
  assertEq(b.checksum, a.checksum, 'checksum after 300 ticks');
});

suite.test('a preset loads from the URL and shows its finding', async ({ page, base }) => {
  await openApp(page, base, 'meter/preset=average-lags-a-step', 1);
  const s = await page.evaluate(() => window.vantage.state());
  assertEq(s.settings.step_to_kib, 256, 'preset setting');
  assert((await page.evaluate(() => location.hash)).includes('preset=average-lags-a-step'), 'hash keeps the preset');
  const err = await page.evaluate(() => { try { window.vantage.set('preset', 'nope'); return ''; } catch (e) { return e.message; } });
  assert(err.includes("unknown preset 'nope'"), 'message: ' + err);
  // A self-contained run: pending with a countdown, judged once at 22 s, then frozen.
  await page.evaluate(() => { window.vantage.set('paused', 1); window.vantage.set('preset', 'average-lags-a-step'); });
  let p = (await page.evaluate(() => window.vantage.state())).preset;
  assertEq(p.name, 'average-lags-a-step', 'preset name');
  assertEq(p.verdict, 'pending', 'verdict before its moment');
  assertEq(p.remaining_s, 22, 'a fresh run counts down from the preset\'s 22 s');
  p = await page.evaluate(() => { for (let i = 0; i < 660; i++) window.vantage.step(); return window.vantage.state().preset; });
  assertEq(p.verdict, 'pending', 'verdict at 11 s');
  assert(Math.abs(p.remaining_s - 11) < 1e-6, 'remaining at 11 s: ' + p.remaining_s);
  p = await page.evaluate(() => { for (let i = 0; i < 660; i++) window.vantage.step(); return window.vantage.state().preset; });
  assertEq(p.verdict, 'holds', 'verdict at 22 s: ' + p.text);
  assert(/^holds: ten seconds after the step the lifetime average reads \d+ KiB\/s/.test(p.text), 'plain words: ' + p.text);
  const later = await page.evaluate(() => { for (let i = 0; i < 600; i++) window.vantage.step(); return window.vantage.state().preset; });
  assertEq(later.text, p.text, 'the verdict is frozen after its moment');
});

suite.test('history plots keep their run across a tab switch, a new seed starts a new one, presenter mode hides the sidebar', async ({ page, base }) => {
  await openApp(page, base, 'meter/seed=3', 1);
  const csvRows = () => page.evaluate(() => window.vantage.historyCsv().trim().split('\n'));
  await page.evaluate(() => window.vantage.set('speed', 4));
  await page.waitForFunction(() => window.vantage.state().time_s >= 6, null, { timeout: 60000 });
  const before = await csvRows();
  assert(before[0].startsWith('time_s,') && before[0].includes('windowed_kib_s'), 'CSV header: ' + before[0]);
  assert(before.length > 10, 'samples after 6 s: ' + before.length);
  const times = before.slice(1).map((r) => Number(r.split(',')[0]));
  assert(times.every((t, i) => i === 0 || t > times[i - 1]), 'sample times increase');
  // Away and back: the history is the same run, only longer.
  await page.evaluate(() => window.vantage.set('playground', 'netcode'));
  await page.waitForFunction(() => window.vantage.state().tick >= 10, null, { timeout: 30000 });
  await page.evaluate(() => window.vantage.set('playground', 'meter'));
  await page.waitForTimeout(300);
  const after = await csvRows();
  assertEq(after[1], before[1], 'the first sample survives a tab switch');
  assert(after.length >= before.length, `history kept: ${before.length} then ${after.length} rows`);
  // A restart is a new run: its history starts over.
  await page.evaluate(() => window.vantage.set('seed', 4));
  await page.waitForTimeout(300);
  const fresh = await csvRows();
  assert(fresh.length < before.length, `a new seed starts a new history (${fresh.length} rows)`);
  // Paused, the area under the bars is still: the sidebar's place shows the lanes instead.
  await page.evaluate(() => window.vantage.set('paused', 1));
  const sidebar = { x: 0, y: 300, width: 200, height: 200 };
  const shot = async () => (await page.screenshot({ clip: sidebar })).toString('base64');
  await page.waitForTimeout(300);
  const withSidebar = await shot();
  await page.waitForTimeout(200);
  assertEq(await shot(), withSidebar, 'a paused page draws the same sidebar twice');
  assertEq(await page.evaluate(() => window.vantage.presenter(true)), true, 'presenter on');
  assertEq((await page.evaluate(() => window.vantage.state())).presenter, true, 'state().presenter');
  await page.waitForTimeout(300);
  assert(await shot() !== withSidebar, 'presenter mode draws something else where the sidebar was');
  assertEq(await page.evaluate(() => window.vantage.presenter(false)), false, 'presenter off');
});

suite.test('the UI scale is remembered by this browser', async ({ page, base }) => {
  await openApp(page, base);
  await page.evaluate(() => window.vantage.uiScale(1.5));
  await page.waitForFunction(() => Math.abs(window.vantage.uiScale() - 1.5) < 1e-6);
  const err = await page.evaluate(() => { try { window.vantage.uiScale(9); return ''; } catch (e) { return e.message; } });
  assert(err.includes('0.75'), 'message: ' + err);
  await page.reload();
  await page.waitForFunction(() => window.vantage && window.vantage.ready);
  assertEq(await page.evaluate(() => window.vantage.uiScale()), 1.5, 'scale after reload');
});

if (bundleDir) {
  suite.test('the static bundle works with every non-local request blocked', async ({ page, errors }) => {
    const server = await serve(bundleDir, 0);
    const origin = `http://127.0.0.1:${server.address().port}`;
    const outside = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(origin + '/') || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    try {
      await openApp(page, origin + '/', 'meter/seed=2', 30);
      assertEq(outside.length, 0, 'requests outside the bundle: ' + outside.join(', '));
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    } finally {
      server.close();
    }
  });
}

suite.test('the performance overlay measures simulation, frame time and memory', async ({ page, base }) => {
  // Horde: a tick long enough for the browser's coarse timer to see (the meter tab's ~10 ns is not).
  await openApp(page, base, 'horde', 120);
  const p = await page.evaluate(() => window.vantage.perf());
  assert(p.sim_ms_per_tick > 0 && p.sim_ms_per_tick < 1000, 'sim ms/tick ' + p.sim_ms_per_tick);
  assert(p.frame_ms > 0, 'frame ms ' + p.frame_ms);
  assert(p.memory_bytes > 1 << 20, 'memory ' + p.memory_bytes);
});

(await import('./page_weight.mjs')).register(suite);
(await import('./workshop.mjs')).register(suite);
(await import('./stories.mjs')).register(suite);

// Each playground adds its own browser tests in tests/browser/playground_<name>.mjs, which
// exports register(suite).
for (const f of readdirSync(new URL('.', import.meta.url)).filter((f) => /^playground_.*\.mjs$/.test(f)).sort()) {
  (await import(`./${f}`)).register(suite);
}

process.exit((await suite.run()) ? 1 : 0);
