// Browser tests of a room's DataChannels: a real page joins a real `vantage_serve` room, offers
// its RTCPeerConnection's channel over the room's WebSocket, and its seat's frames then arrive
// over the DataChannel (the page's transport meter says so). A page that cannot have one (no
// RTCPeerConnection, or the room already holds all the DataChannel peers it takes) says why and
// keeps playing over the WebSocket. Loopback only.
import { assert, assertEq } from './harness.mjs';
import { startRoom } from './playground_room.mjs';

const room = (page) => page.evaluate(() => window.vantage.state().room);

async function join(page, base, name) {
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

  suite.test('room datachannel: without RTCPeerConnection, or past the room\'s peers, a page says why and plays over the WebSocket', async ({ page }) => {
    const server = await startRoom(suite.siteDir, ['--rtc-peers', '1']);
    const browser = page.context().browser();
    const contexts = [];
    try {
      // The first page takes the room's one DataChannel.
      await join(page, server.base, 'ann');
      await page.waitForFunction(() => window.vantage.state().room.transport === 'datachannel', null, { timeout: 15000 });
      // A browser without WebRTC (or with it switched off).
      const bare = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      contexts.push(bare);
      await bare.addInitScript(() => { delete window.RTCPeerConnection; });
      const old = await bare.newPage();
      await join(old, server.base, 'bob');
      await old.waitForFunction(() => window.vantage.state().room.datachannel === 'failed', null, { timeout: 10000 });
      // A second page that could have one, past --rtc-peers 1.
      const late = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      contexts.push(late);
      const third = await late.newPage();
      await join(third, server.base, 'cy');
      await third.waitForFunction(() => window.vantage.state().room.datachannel === 'failed', null, { timeout: 10000 });
      for (const [p, says] of [[old, 'this browser has no WebRTC DataChannels'],
        [third, 'the room holds all the DataChannel peers it can (1)']]) {
        const before = await room(p);
        assertEq(before.transport, 'websocket', `${before.name}: transport`);
        assert(before.transport_why.includes(says), `${before.name} says: ${before.transport_why}`);
        await p.waitForFunction((n) => window.vantage.state().room.frames > n + 10, before.frames, { timeout: 10000 });
        assertEq((await room(p)).datagram_frames, 0, `${before.name}: frames over a DataChannel`);
      }
      assertEq((await room(page)).transport, 'datachannel', 'the first page keeps its channel');
    } finally {
      for (const c of contexts) await c.close();
      const code = await server.stop();
      assertEq(code, 0, 'vantage_serve exit status after Ctrl+C');
    }
  });
}
