// Browser tests of a room: `vantage_serve` (the native server, built by the native preset)
// serves the page and the WebSocket; two headless Chromium pages join it as players, over a
// real socket on 127.0.0.1.
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { assert, assertEq, skip } from './harness.mjs';
import { lanAddresses } from '../../web/serve.mjs';

// Starts a room (horde or blackhole) on a free port serving `siteDir`; resolves with {base,
// token, stop, lan, pid, output}.
export async function startRoom(siteDir, args = [], playground = 'horde') {
  const exe = resolve(siteDir, '../../native-release/playgrounds/room/vantage_serve');
  if (!existsSync(exe)) throw new Error(`${exe} is missing (the native build makes it)`);
  const child = spawn(exe, [playground, '--port', '0', '--web', siteDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let token = '';
  const base = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('vantage_serve printed no URL: ' + out)), 10000);
    const onData = (d) => {
      out += d.toString();
      const m = out.match(new RegExp(`Vantage room: (http://127\\.0\\.0\\.1:\\d+/)#${playground}/join`));
      const t = out.match(new RegExp(`Teacher console: \\S+#${playground}/teach&token=([0-9a-f]+)`));
      if (m && t) { clearTimeout(timer); token = t[1]; ok(m[1]); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => { out += d.toString(); });
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`vantage_serve exited ${code}: ${out}`)); });
  });
  const stop = () => new Promise((ok) => {
    if (child.exitCode !== null) { ok(child.exitCode); return; }
    child.once('exit', (code) => ok(code));
    child.kill('SIGINT');
  });
  const lan = () => (out.match(/Vantage room on the LAN: (http:\/\/[0-9.]+:\d+\/)#horde\/join/) || [])[1];
  return { base, token, stop, lan, pid: child.pid, output: () => out };
}

async function join(page, base, name, playground = 'horde') {
  await page.goto(`${base}#${playground}/join&name=${name}`);
  await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
  await page.waitForFunction(() => window.vantage.state().room.connected && window.vantage.state().room.frames > 10,
    null, { timeout: 20000 });
}

const NETCODE_PRESET = 'prediction-hides-latency';
const room = (page) => page.evaluate(() => window.vantage.state().room);

export function register(suite) {
  suite.test('room: two pages join a served horde room, see each other, steer, and a closed page frees its seat', async ({ page, errors, shot }) => {
    const server = await startRoom(suite.siteDir);
    try {
      await page.setViewportSize({ width: 1600, height: 900 });
      // Each page in its own browser context (its own window): a background tab is throttled.
      const browser = page.context().browser();
      const otherContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const other = await otherContext.newPage();
      await join(page, server.base, 'ann');
      await join(other, server.base, 'bob');
      await page.waitForFunction(() => window.vantage.state().room.players === 2, null, { timeout: 10000 });
      const a = await room(page), b = await room(other);
      assertEq(a.seat, 0, 'first page seat');
      assertEq(b.seat, 1, 'second page seat');
      assertEq(a.roster.map((e) => e.name).sort().join(','), 'ann,bob', 'roster on the first page');
      assertEq(b.roster.map((e) => e.name).sort().join(','), 'ann,bob', 'roster on the second page');
      for (const [name, r] of [['ann', a], ['bob', b]]) {
        assert(r.down_kib_s > 1, `${name}: down ${r.down_kib_s} KiB/s`);
        assert(r.up_kib_s > 0, `${name}: up ${r.up_kib_s} KiB/s`);
        // At least the 60 ms the room adds; the upper bound only rejects garbage (a page that
        // never heard a pong), since a loaded two-core machine can hold a pong for a second.
        assert(r.rtt_ms > 40 && r.rtt_ms < 5000, `${name}: RTT ${r.rtt_ms} ms (the room adds 30 ms each way)`);
        assert(r.knows > 0, `${name}: holds ${r.knows} enemies`);
      }
      // A real key on the first page: its player moves away from the nearest side wall.
      const before = await room(page);
      const key = before.me.x < 1500 ? 'ArrowRight' : 'ArrowLeft';
      await page.bringToFront();
      await page.mouse.click(800, 450);  // focus the canvas
      await page.keyboard.down(key);
      // Held until the player has gone 150 units that way (190 units/s; a loaded machine's
      // page draws slowly, so the time it takes is not the claim, the direction is).
      const sign = key === 'ArrowRight' ? 1 : -1;
      const went = await page.waitForFunction(([x0, s]) => (window.vantage.state().room.me.x - x0) * s > 150,
        [before.me.x, sign], { timeout: 10000 }).then(() => true, () => false);
      await page.keyboard.up(key);
      const after = await room(page);
      const moved = (after.me.x - before.me.x) * sign;
      assert(went, `held ${key}: moved ${moved.toFixed(0)} units in 10 s`);
      // The meters keep moving: more frames arrived.
      assert(after.frames > before.frames + 10, `frames ${before.frames} -> ${after.frames}`);
      await shot('room-1600x900');
      await otherContext.close();
      await page.waitForFunction(() => window.vantage.state().room.players === 1, null, { timeout: 10000 });
      // The freed seat is taken by a fresh page, which inherits nothing.
      const thirdContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const third = await thirdContext.newPage();
      await join(third, server.base, 'cy');
      const c = await room(third);
      assertEq(c.seat, 1, 'the freed seat');
      assertEq(c.frames_lost, 0, 'frames lost by the newcomer on a clean link');
      await thirdContext.close();
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    } finally {
      const code = await server.stop();
      assertEq(code, 0, 'vantage_serve exit status after Ctrl+C');
    }
  });

  suite.test('room: two pages join a served black-hole room, hold every pellet, see each other\'s hole, steer their own', async ({ page, errors, shot }) => {
    const server = await startRoom(suite.siteDir, ['--set', 'strategy=aggregated&latency_ms=40'], 'blackhole');
    try {
      await page.setViewportSize({ width: 1600, height: 900 });
      const browser = page.context().browser();
      const otherContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const other = await otherContext.newPage();
      await join(page, server.base, 'ann', 'blackhole');
      await join(other, server.base, 'bob', 'blackhole');
      await page.waitForFunction(() => window.vantage.state().room.players === 2, null, { timeout: 10000 });
      // The truth sample answers within a few seconds: the pellet error is measured.
      await page.waitForFunction(() => window.vantage.state().room.err_mean_px !== null, null, { timeout: 15000 });
      const a = await room(page), b = await room(other);
      assertEq(a.playground, 'blackhole', 'playground');
      assertEq([a.seat, b.seat].join(','), '0,1', 'seats');
      for (const [name, r] of [['ann', a], ['bob', b]]) {
        assertEq(r.knows, 2000, `${name}: pellets held (the join state)`);
        assert(r.down_kib_s > 0.5, `${name}: down ${r.down_kib_s} KiB/s`);
        assert(r.rtt_ms > 60 && r.rtt_ms < 1000, `${name}: RTT ${r.rtt_ms} ms (the room adds 40 ms and up to 15 ms each way)`);
        assert(r.me, `${name}: its own hole is in its field`);
        assertEq(r.phantoms, null, `${name}: no phantoms in the black holes`);
      }
      assert(a.err_mean_px >= 0 && a.err_mean_px < 400, `ann: pellet error ${a.err_mean_px} px`);
      const before = await room(page);
      const key = before.me.x < 1500 ? 'ArrowRight' : 'ArrowLeft';
      const sign = key === 'ArrowRight' ? 1 : -1;
      await page.bringToFront();
      await page.mouse.click(800, 450);
      await page.keyboard.down(key);
      const went = await page.waitForFunction(([x0, s]) => (window.vantage.state().room.me.x - x0) * s > 150,
        [before.me.x, sign], { timeout: 10000 }).then(() => true, () => false);
      await page.keyboard.up(key);
      const after = await room(page);
      assert(went, `held ${key}: the hole moved ${((after.me.x - before.me.x) * sign).toFixed(0)} units in 10 s`);
      await shot('room-blackhole-1600x900');
      await otherContext.close();
      await page.waitForFunction(() => window.vantage.state().room.players === 1, null, { timeout: 10000 });
      // A horde page at a black-hole room is refused with the reason.
      const wrong = await page.context().newPage();
      await wrong.goto(`${server.base}#horde/join&name=lost`);
      await wrong.waitForFunction(() => window.vantage && window.vantage.ready && window.vantage.state().room.status.startsWith('refused'), null, { timeout: 30000 });
      assertEq((await room(wrong)).status, 'refused: this room plays blackhole, not horde', 'status');
      await wrong.close();
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    } finally {
      const code = await server.stop();
      assertEq(code, 0, 'vantage_serve exit status after Ctrl+C');
    }
  });

  suite.test('room: a full room refuses a page with the reason', async ({ page }) => {
    const server = await startRoom(suite.siteDir, ['--seats', '1']);
    try {
      await join(page, server.base, 'one');
      const second = await page.context().newPage();
      await second.goto(`${server.base}#horde/join&name=two`);
      await second.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
      await second.waitForFunction(() => window.vantage.state().room.status.startsWith('refused'), null, { timeout: 10000 });
      const r = await room(second);
      assertEq(r.status, 'refused: the room is full (1 seats): ask the teacher for a seat, or follow the lesson with #horde/follow', 'status');
      assertEq(r.connected, false, 'connected');
      await second.close();
    } finally {
      await server.stop();
    }
  });

  suite.test('classroom: the teacher changes one seat\'s loss and the room\'s recovery, the students\' meters follow, a student is refused', async ({ page, errors, shot }) => {
    const server = await startRoom(suite.siteDir);
    try {
      const browser = page.context().browser();
      await page.setViewportSize({ width: 1600, height: 900 });
      await page.goto(`${server.base}#horde/teach&token=${server.token}`);
      await page.waitForFunction(() => window.vantage && window.vantage.ready && window.vantage.state().class &&
        window.vantage.state().class.connected, null, { timeout: 30000 });
      const contexts = [];
      const students = [];
      for (const name of ['ann', 'bob']) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        contexts.push(context);
        const p = await context.newPage();
        await join(p, server.base, name);
        students.push(p);
      }
      const teacher = () => page.evaluate(() => window.vantage.state().class);
      await page.waitForFunction(() => window.vantage.state().class.seats.length === 2 &&
        window.vantage.state().class.seats.every((s) => s.rtt_ms > 0), null, { timeout: 15000 });
      const t0 = await teacher();
      assertEq(t0.seats.map((s) => s.name).join(','), 'ann,bob', 'the seat table');
      assert(t0.urls.length >= 1 && t0.qr_size > 20, `class info: ${JSON.stringify(t0.urls)}, QR ${t0.qr_size}`);
      // Loss for bob's seat only, then naive recovery for the room.
      await page.evaluate(() => window.vantage.teach('impair', 'seat=2&loss=30&latency_ms=30&jitter_ms=0'));
      await page.evaluate(() => window.vantage.teach('strategy', 'recovery=0'));
      await page.waitForFunction(() => { const c = window.vantage.state().class;
        return c.seats[1].loss === 30 && c.seats[0].loss === 0 && c.recovery === false; }, null, { timeout: 10000 });
      // The console's own controls show the room's state (its settings message), not what was last clicked.
      await page.waitForFunction(() => window.vantage.state().class.controls.recovery === false, null, { timeout: 5000 });
      await students[1].waitForFunction(() => window.vantage.state().room.frames_lost > 5, null, { timeout: 15000 });
      // Naive recovery never heals a lost "left": bob's phantoms pile up, ann's stay at the lag
      // floor (enemies that died since the last frame).
      let ann, bob, annWorst = 0;
      const deadline = Date.now() + 30000;
      do {
        await page.waitForTimeout(500);
        [ann, bob] = [await room(students[0]), await room(students[1])];
        annWorst = Math.max(annWorst, ann.phantoms, (await teacher()).seats[0].phantoms);
      } while (!(bob.phantoms > 2 * ann.phantoms + 5) && Date.now() < deadline);
      // Ann's link is clean: what she holds is never dead for long (the measurement waits
      // one answer before it calls a held enemy a phantom; deaths in flight are not).
      assert(annWorst < 1, `a clean seat read ${annWorst} phantoms`);
      assertEq(ann.frames_lost, 0, 'frames lost by ann (her seat was not impaired)');
      assert(bob.phantoms > 2 * ann.phantoms + 5, `phantoms: bob ${bob.phantoms} (30% loss, naive) vs ann ${ann.phantoms}`);
      await page.waitForFunction(() => window.vantage.state().class.seats[1].frames_lost > 5, null, { timeout: 10000 });
      // A student's page asks for the same: the server refuses, nothing changes.
      await students[0].evaluate(() => window.vantage.teach('impair', 'loss=40'));
      await students[0].waitForFunction(() => window.vantage.state().room.error !== '', null, { timeout: 10000 });
      assertEq((await room(students[0])).error, 'only the teacher can change room settings', 'the refusal');
      await page.waitForTimeout(1200);
      assertEq((await teacher()).seats[0].loss, 0, 'ann\'s loss after her own request');
      // A room preset: the console's recovery box and sliders follow it.
      await page.evaluate(() => window.vantage.teach('preset', 'name=acknowledged-baselines-heal'));
      await page.waitForFunction(() => { const c = window.vantage.state().class;
        return c.preset === 'acknowledged-baselines-heal' && c.controls.recovery === true && c.controls.loss === 25; },
      null, { timeout: 10000 });
      // On a projector: 1280x720 at 1.5x, the seat table and the recovery box on screen.
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.evaluate(() => window.vantage.uiScale(1.5));
      await page.waitForFunction(() => window.vantage.uiScale() === 1.5);
      await page.waitForTimeout(500);
      const l = await page.evaluate(() => window.vantage.layout());
      assert(l['console.seats'] && l['console.seats'][3] <= 720, `seat table at ${l['console.seats']}`);
      assert(l['console.recovery'] && l['console.recovery'][3] <= 720, `recovery box at ${l['console.recovery']}`);
      await shot('teacher-console-1280x720x1.5');
      await shot('teacher-console-1600x900');
      for (const c of contexts) await c.close();
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    } finally {
      await server.stop();
    }
  });

  suite.test('classroom: a follower page reaches the teacher\'s preset and the same checksum', async ({ page }) => {
    const server = await startRoom(suite.siteDir);
    try {
      const browser = page.context().browser();
      await page.goto(`${server.base}#netcode/teach&token=${server.token}`);
      await page.waitForFunction(() => window.vantage && window.vantage.ready && window.vantage.state().class.connected,
        null, { timeout: 30000 });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const follower = await context.newPage();
      await follower.goto(`${server.base}#meter/follow`);
      await follower.waitForFunction(() => window.vantage && window.vantage.ready && window.vantage.state().class, null, { timeout: 30000 });
      // The teacher picks a netcode preset, a seed, and pauses.
      const chosen = NETCODE_PRESET;
      await page.evaluate((p) => { window.vantage.set('preset', p); window.vantage.set('seed', 5); window.vantage.set('paused', 1); }, chosen);
      await follower.waitForFunction((p) => { const s = window.vantage.state();
        return s.playground === 'netcode' && s.seed === 5 && s.paused; }, chosen, { timeout: 10000 });
      const [ts, fs] = [await page.evaluate(() => window.vantage.state()), await follower.evaluate(() => window.vantage.state())];
      assertEq(JSON.stringify(fs.settings), JSON.stringify(ts.settings), 'the follower\'s settings');
      assertEq(fs.class.role, 'follower', 'role');
      // The same 240 ticks on both: the same checksum.
      for (const p of [page, follower]) {
        await p.evaluate(() => { window.vantage.set('seed', 5); for (let i = 0; i < 240; i++) window.vantage.step(); });
      }
      const sums = [await page.evaluate(() => window.vantage.state().checksum), await follower.evaluate(() => window.vantage.state().checksum)];
      assertEq(sums[1], sums[0], 'checksum after 240 ticks');
      await context.close();
    } finally {
      await server.stop();
    }
  });

  suite.test('room: serve --lan answers on the LAN URL it prints and a page joins there; without --lan only loopback', async ({ page }) => {
    const addresses = lanAddresses();
    if (addresses.length === 0) skip('this machine has no non-internal IPv4 address');
    const status = (url) => new Promise((ok) => {
      get(url, (res) => { res.resume(); ok(res.statusCode); }).on('error', (e) => ok(e.code));
    });
    const local = await startRoom(suite.siteDir);
    try {
      const port = new URL(local.base).port;
      assertEq(await status(local.base), 200, 'loopback without --lan');
      const other = await status(`http://${addresses[0]}:${port}/`);
      assert(other !== 200, `reached the room at ${addresses[0]} without --lan (${other})`);
      assertEq(local.lan(), undefined, 'a LAN URL printed without --lan');
    } finally {
      await local.stop();
    }
    const room = await startRoom(suite.siteDir, ['--lan']);
    try {
      const url = room.lan();
      assert(url, 'serve --lan printed no LAN URL: ' + room.output());
      assertEq(await status(url), 200, `${url} with --lan`);
      assert(room.output().includes('\u2588'), 'no QR code in the terminal');
      await page.goto(`${url}#horde/join&name=lan`);
      await page.waitForFunction(() => window.vantage && window.vantage.ready && window.vantage.state().room.connected,
        null, { timeout: 30000 });
      console.log(`        --lan printed ${url}; a page opened there joined; without --lan ${addresses[0]} refused`);
    } finally {
      await room.stop();
    }
  });
}
