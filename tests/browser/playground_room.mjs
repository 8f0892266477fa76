// Browser tests of a room: `vantage_serve` (the native server, built by the native preset)
// serves the page and the WebSocket; two headless Chromium pages join it as players, over a
// real socket on 127.0.0.1.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { assert, assertEq } from './harness.mjs';

// Starts a room on a free port serving `siteDir`; resolves with {base, stop}.
export async function startRoom(siteDir, args = []) {
  const exe = resolve(siteDir, '../../native-release/playgrounds/room/vantage_serve');
  if (!existsSync(exe)) throw new Error(`${exe} is missing (the native build makes it)`);
  const child = spawn(exe, ['horde', '--port', '0', '--web', siteDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const base = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('vantage_serve printed no URL: ' + out)), 10000);
    const onData = (d) => {
      out += d.toString();
      const m = out.match(/Vantage room: (http:\/\/127\.0\.0\.1:\d+\/)#horde\/join/);
      if (m) { clearTimeout(timer); ok(m[1]); }
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
  return { base, stop, output: () => out };
}

async function join(page, base, name) {
  await page.goto(`${base}#horde/join&name=${name}`);
  await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
  await page.waitForFunction(() => window.vantage.state().room.connected && window.vantage.state().room.frames > 10,
    null, { timeout: 20000 });
}

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
        assert(r.rtt_ms > 40 && r.rtt_ms < 1000, `${name}: RTT ${r.rtt_ms} ms (the room adds 30 ms each way)`);
        assert(r.knows > 0, `${name}: holds ${r.knows} enemies`);
      }
      // A real key on the first page: its player moves away from the nearest side wall.
      const before = await room(page);
      const key = before.me.x < 1500 ? 'ArrowRight' : 'ArrowLeft';
      await page.bringToFront();
      await page.mouse.click(800, 450);  // focus the canvas
      await page.keyboard.down(key);
      await page.waitForTimeout(1500);
      await page.keyboard.up(key);
      const after = await room(page);
      const moved = (after.me.x - before.me.x) * (key === 'ArrowRight' ? 1 : -1);
      assert(moved > 150, `held ${key} for 1.5 s: moved ${moved.toFixed(0)} units (190 units/s expected)`);
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

  suite.test('room: a full room refuses a page with the reason', async ({ page }) => {
    const server = await startRoom(suite.siteDir, ['--seats', '1']);
    try {
      await join(page, server.base, 'one');
      const second = await page.context().newPage();
      await second.goto(`${server.base}#horde/join&name=two`);
      await second.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
      await second.waitForFunction(() => window.vantage.state().room.status.startsWith('refused'), null, { timeout: 10000 });
      const r = await room(second);
      assertEq(r.status, 'refused: room is full (1 seats)', 'status');
      assertEq(r.connected, false, 'connected');
      await second.close();
    } finally {
      await server.stop();
    }
  });
}
