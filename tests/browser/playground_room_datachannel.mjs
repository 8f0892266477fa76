// Browser tests of a room's DataChannels: a real page joins a real `vantage_serve` room, offers
// its RTCPeerConnection's channel over the room's WebSocket, and its seat's frames then arrive
// over the DataChannel (the page's transport meter says so). A page that cannot have one (no
// RTCPeerConnection) says why and keeps playing over the WebSocket. Loopback only.
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
