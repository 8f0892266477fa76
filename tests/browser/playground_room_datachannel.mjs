// Browser tests of a room's DataChannels: a real page joins a real `vantage_serve` room, offers
// its RTCPeerConnection's channel over the room's WebSocket, and its seat's frames then arrive
// over the DataChannel (the page's transport meter says so). Two pages over their channels hold
// each other; a teacher moves a seat to the WebSocket and back; a page that cannot have one (no
// RTCPeerConnection, or UDP blocked by nftables: rtc_blocked.mjs) says why and keeps playing
// over the WebSocket. Loopback or a private network namespace only.
import { spawn, spawnSync } from 'node:child_process';
import { assert, assertEq, skip } from './harness.mjs';
import { startRoom } from './playground_room.mjs';

const room = (page) => page.evaluate(() => window.vantage.state().room);
const distance = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);

// Waits until `pages` all read transport "datachannel" with `n` frames over it; the reading
// of the first that does not, when none came within `ms`.
export async function overChannels(pages, n = 20, ms = 20000) {
  await Promise.all(pages.map((p) => p.waitForFunction((k) => {
    const r = window.vantage.state().room;
    return r.transport === 'datachannel' && r.datachannel === 'open' && r.datagram_frames > k;
  }, n, { timeout: ms }).catch(async () => {
    const r = await room(p);
    throw new Error(`${r.name}: transport ${r.transport}, datachannel ${r.datachannel} (${r.transport_why}), ` +
      `${r.datagram_frames} frames over it`);
  })));
}

export async function join(page, base, name) {
  await page.goto(`${base}#horde/join&name=${name}`);
  await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
  // Generous: on a loaded machine a page takes a while to compile, connect and be seated.
  await page.waitForFunction(() => window.vantage.state().room.connected && window.vantage.state().room.frames > 5,
    null, { timeout: 40000 });
}

export function register(suite) {
  suite.test('room datachannel: a page\'s frames arrive over its DataChannel, and the room keeps counting them', async ({ page, errors }) => {
    const server = await startRoom(suite.siteDir);
    try {
      await join(page, server.base, 'ann');
      // The room attaches the channel when it opens and says so (TransportState).
      const ok = await page.waitForFunction(() => {
        const r = window.vantage.state().room;
        return r.transport === 'datachannel' && r.datachannel === 'open' && r.datagram_frames > 20;
      }, null, { timeout: 15000 }).then(() => true, () => false);
      const a = await room(page);
      assert(ok, `transport ${a.transport}, datachannel ${a.datachannel} (${a.transport_why}), ` +
        `${a.datagram_frames} frames over it`);
      // Frames keep arriving over it, and what the page holds stays up to date.
      await page.waitForFunction((n) => window.vantage.state().room.datagram_frames > n + 20, a.datagram_frames,
        { timeout: 10000 });
      const b = await room(page);
      assertEq(b.transport, 'datachannel', 'transport');
      assert(b.knows > 0, `holds ${b.knows} enemies`);
      assert(b.frames - a.frames >= b.datagram_frames - a.datagram_frames - 1,
        `frames ${a.frames} -> ${b.frames}, over the channel ${a.datagram_frames} -> ${b.datagram_frames}`);
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    } finally {
      const code = await server.stop();
      assertEq(code, 0, 'vantage_serve exit status after Ctrl+C');
    }
  });

  suite.test('room datachannel: two pages play one horde room over DataChannels and each holds the other player', async ({ page, errors }) => {
    const server = await startRoom(suite.siteDir);
    // Its own browser context (its own window): a background tab is throttled.
    const otherContext = await page.context().browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const other = await otherContext.newPage();
      await Promise.all([join(page, server.base, 'ann'), join(other, server.base, 'bob')]);
      await overChannels([page, other]);
      // Each page holds the other seat's player where the other page holds itself: both read
      // the room's newest frames, so they differ by what a player runs between two frames
      // arriving (190 units/s); sampled until they agree, or the closest seen is reported.
      let closest = Infinity, last = '';
      const deadline = Date.now() + 10000;
      while (Date.now() < deadline) {
        const [a, b] = await Promise.all([room(page), room(other)]);
        const bobAtAnn = a.others.find((o) => o.seat === b.seat);
        const annAtBob = b.others.find((o) => o.seat === a.seat);
        last = `ann holds ${JSON.stringify(a.others)}, bob is at ${JSON.stringify(b.me)}; ` +
          `bob holds ${JSON.stringify(b.others)}, ann is at ${JSON.stringify(a.me)}`;
        if (bobAtAnn && annAtBob && a.me && b.me) {
          assertEq(bobAtAnn.name, 'bob', 'the player ann holds for bob\'s seat');
          assertEq(annAtBob.name, 'ann', 'the player bob holds for ann\'s seat');
          closest = Math.min(closest, Math.max(distance(bobAtAnn, b.me), distance(annAtBob, a.me)));
          if (closest < 60) break;
        }
        await page.waitForTimeout(200);
      }
      assert(closest < 60, `each page should hold the other player where it is (within 60 units): ${last}`);
      console.log(`        each page holds the other player within ${closest.toFixed(1)} units of where it holds itself`);
      const [a, b] = await Promise.all([room(page), room(other)]);
      for (const r of [a, b]) {
        assertEq(r.transport, 'datachannel', `${r.name}: transport`);
        assertEq(r.players, 2, `${r.name}: players in the roster`);
        assertEq(r.others.length, 1, `${r.name}: other players held`);
      }
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    } finally {
      await otherContext.close();
      const code = await server.stop();
      assertEq(code, 0, 'vantage_serve exit status after Ctrl+C');
    }
  });

  suite.test('classroom: the teacher moves a seat from its DataChannel to the WebSocket and back; the page and the table follow', async ({ page, errors, shot }) => {
    const server = await startRoom(suite.siteDir);
    const studentContext = await page.context().browser().newContext({ viewport: { width: 1280, height: 800 } });
    try {
      // The console on a projector: 1280x720 at UI scale 1.5.
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.goto(`${server.base}#horde/teach&token=${server.token}`);
      const student = await studentContext.newPage();
      await Promise.all([
        page.waitForFunction(() => window.vantage && window.vantage.ready && window.vantage.state().class &&
          window.vantage.state().class.connected, null, { timeout: 30000 }),
        join(student, server.base, 'ann')]);
      await page.evaluate(() => window.vantage.uiScale(1.5));
      await overChannels([student]);
      const seatVia = (via) => page.waitForFunction((v) => {
        const s = window.vantage.state().class.seats;
        return s.length === 1 && s[0].transport === v;
      }, via, { timeout: 10000 }).catch(async () => {
        throw new Error(`the table's via: ${JSON.stringify((await page.evaluate(() => window.vantage.state().class)).seats)}`);
      });
      await seatVia('datachannel');
      // The seat row's transport box, a real control: open it and pick "websocket".
      await page.waitForFunction(() => window.vantage.layout()['console.via'], null, { timeout: 5000 });
      const box = (await page.evaluate(() => window.vantage.layout()))['console.via'];
      assert(box[2] <= 1280 && box[3] <= 720, `the transport box is off screen at ${box}`);
      assert(box[3] - box[1] >= 18, `the transport box is ${box[3] - box[1]} px tall at UI scale 1.5`);
      await page.mouse.click((box[0] + box[2]) / 2, (box[1] + box[3]) / 2);
      await page.waitForFunction(() => window.vantage.layout()['console.via.websocket'], null, { timeout: 5000 });
      await shot('teacher-console-transport-1280x720x1.5');
      const item = (await page.evaluate(() => window.vantage.layout()))['console.via.websocket'];
      await page.mouse.click((item[0] + item[2]) / 2, (item[1] + item[3]) / 2);
      // The page says it moved and why, its channel closed, and its frames keep coming over the WebSocket.
      await student.waitForFunction(() => window.vantage.state().room.transport === 'websocket', null, { timeout: 10000 });
      let r = await room(student);
      assertEq(r.transport_why, 'the teacher moved this seat to the websocket', 'why, on the page');
      await seatVia('websocket');
      await student.waitForFunction(() => window.vantage.state().room.datachannel === 'off', null, { timeout: 5000 });
      const onSocket = await room(student);
      await student.waitForFunction((n) => window.vantage.state().room.frames > n + 30, onSocket.frames, { timeout: 10000 });
      r = await room(student);
      assertEq(r.datagram_frames, onSocket.datagram_frames, 'frames over the closed DataChannel');
      // Back through the page API (the same command): a new channel forms and carries the frames.
      assertEq(await page.evaluate(() => window.vantage.teach('transport', 'seat=1&to=datachannel')), true, 'teach()');
      await overChannels([student], onSocket.datagram_frames + 20);
      r = await room(student);
      assertEq(r.transport_why, 'frames over datachannel: the teacher moved this seat to it', 'why, on the page');
      await seatVia('datachannel');
      const err = await page.evaluate(() => { try { window.vantage.teach('transport', 'seat=1&to=carrier-pigeon'); return ''; } catch (e) { return e.message; } });
      assert(err.includes('to=websocket, to=datachannel or to=udp'), 'a refused transport: ' + err);
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    } finally {
      await studentContext.close();
      await server.stop();
    }
  });

  // In a private network namespace (rtc_blocked.mjs): skipped where one cannot be made.
  suite.test('room datachannel: with new UDP flows blocked by nftables a third page falls back to the WebSocket and says so', async () => {
    const probe = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up && nft add table inet probe'],
      { encoding: 'utf8', timeout: 10000 });
    if (probe.error || probe.status !== 0) {
      skip('no private network namespace with nftables here (unshare -n, ip, nft, as root): ' +
        (probe.error ? probe.error.message : probe.stderr.trim().split('\n').pop()));
    }
    const script = new URL('./rtc_blocked.mjs', import.meta.url).pathname;
    const child = spawn('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec node "$0" "$1"', script, suite.siteDir],
      { stdio: ['ignore', 'pipe', 'pipe'], detached: true });  // its own group: a timeout ends all of it
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const code = await new Promise((ok) => {
      const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 150000);
      child.on('exit', (c, signal) => { clearTimeout(timer); ok(signal ? signal : c); });
    });
    assertEq(code, 0, `rtc_blocked.mjs in a private network namespace: ${out.trim()}`);
    console.log('        ' + out.trim().split('\n').pop());
  });

  // (The room's side of a refusal past --rtc-peers is tested natively: webrtc_peers_test.cpp.)
  suite.test('room datachannel: a page without RTCPeerConnection says so and plays over the WebSocket', async ({ page }) => {
    const server = await startRoom(suite.siteDir);
    try {
      await page.addInitScript(() => { delete window.RTCPeerConnection; });
      await join(page, server.base, 'bob');
      await page.waitForFunction(() => window.vantage.state().room.datachannel === 'failed', null, { timeout: 10000 });
      const before = await room(page);
      assertEq(before.transport, 'websocket', 'transport');
      assert(before.transport_why.includes('this browser has no WebRTC DataChannels'), 'says: ' + before.transport_why);
      await page.waitForFunction((n) => window.vantage.state().room.frames > n + 10, before.frames, { timeout: 15000 });
      assertEq((await room(page)).datagram_frames, 0, 'frames over a DataChannel');
    } finally {
      const code = await server.stop();
      assertEq(code, 0, 'vantage_serve exit status after Ctrl+C');
    }
  });
}
