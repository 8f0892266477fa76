// A room whose UDP is blocked for newcomers, end to end: run inside a private network namespace
// (`unshare -n`, loopback up, as root), where the room, Chromium and nftables are alone.
// Usage: node rtc_blocked.mjs SITE_DIR   (playground_room_datachannel.mjs runs it so)
//
// Two pages join over DataChannels; then nftables drops every new UDP flow while the flows
// already formed live on (conntrack), so the third page's ICE checks cannot get through: its
// channel does not open, it says so and plays over the WebSocket, and the first two keep their
// channels. The drop is on output: on loopback a flow's first packet, dropped on input, still
// leaves its conntrack entry behind, and the other side's first packet then counts as that
// flow's reply (established) and passes, so ICE, which sends from both ends, would form anyway.
// Dropped on output, neither end's first packet creates an entry (sendto fails with EPERM).
// Conntrack is switched on (a counting rule) before the first page joins, so the first pages'
// flows are tracked from their first packet; a flow conntrack first sees later is new.
// Prints what it measured; exits 0 when every claim held, 1 with the reason otherwise.
import { execFileSync } from 'node:child_process';
import { assert, assertEq, launch } from './harness.mjs';
import { startRoom } from './playground_room.mjs';
import { join, overChannels } from './playground_room_datachannel.mjs';

const siteDir = process.argv[2];
if (!siteDir) { console.error('usage: node rtc_blocked.mjs SITE_DIR'); process.exit(2); }

const nft = (rules) => execFileSync('nft', ['-f', '-'], { input: rules, encoding: 'utf8' });
const room = (page) => page.evaluate(() => window.vantage.state().room);

async function main() {
  nft('table inet vantage_block {\n chain out {\n type filter hook output priority 0;\n' +
    ' meta l4proto udp ct state new counter\n }\n}\n');
  const server = await startRoom(siteDir);
  const browser = await launch();
  const errors = [];
  const open = async (name) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`${name}: ${e.message}`));
    await join(page, server.base, name);
    return page;
  };
  try {
    const [ann, bob] = await Promise.all([open('ann'), open('bob')]);
    await overChannels([ann, bob]);
    nft('add rule inet vantage_block out meta l4proto udp ct state new counter drop\n');
    const before = await Promise.all([room(ann), room(bob)]);
    const cy = await open('cy');
    await cy.waitForFunction(() => window.vantage.state().room.datachannel === 'failed', null, { timeout: 20000 })
      .catch(async () => { const r = await room(cy); throw new Error(`cy: datachannel ${r.datachannel} (${r.transport_why})`); });
    const c0 = await room(cy);
    assertEq(c0.transport, 'websocket', 'cy: transport');
    assert(c0.transport_why.startsWith('no DataChannel (') && c0.transport_why.endsWith('playing over the websocket'),
      'cy says: ' + c0.transport_why);
    // cy plays over the WebSocket; ann and bob still over their channels.
    await cy.waitForFunction((n) => window.vantage.state().room.frames > n + 30, c0.frames, { timeout: 15000 });
    const c1 = await room(cy);
    assertEq(c1.datagram_frames, 0, 'cy: frames over a DataChannel');
    assertEq(c1.transport, 'websocket', 'cy: transport later');
    assert(c1.others.length === 2, `cy holds ${c1.others.length} other players`);
    const after = await Promise.all([room(ann), room(bob)]);
    for (let i = 0; i < 2; i++) {
      assertEq(after[i].transport, 'datachannel', `${after[i].name}: transport after the block`);
      assert(after[i].datagram_frames > before[i].datagram_frames + 30,
        `${after[i].name}: frames over its channel ${before[i].datagram_frames} -> ${after[i].datagram_frames}`);
    }
    const dropped = Number((nft('list chain inet vantage_block out\n').match(/packets (\d+) bytes \d+ drop/) || [])[1]);
    assert(dropped > 0, 'the drop rule dropped nothing');
    assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    console.log(`cy: "${c1.transport_why}", ${c1.frames} frames over the websocket; ` +
      `ann and bob: ${after.map((r) => r.datagram_frames).join(' and ')} frames over their channels; ` +
      `${dropped} new UDP packets dropped`);
  } finally {
    await browser.close();
    await server.stop();
  }
}

try {
  await main();
  process.exit(0);
} catch (e) {
  console.log('FAIL: ' + e.message);
  process.exit(1);
}
