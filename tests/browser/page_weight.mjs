// Page weight for a classroom: thirty laptops load the page from web/serve.mjs at once, then
// reload it. Bytes are counted on the server's sockets (HTTP headers and bodies as sent), so
// a 304 is a 304 (Playwright reports cached 304s as 200). Budgets: a first load at most 1 MB,
// a reload under 10 KB. Also: serve.mjs is reachable on a LAN address only with --lan.
import { get, Agent } from 'node:http';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { assert, assertEq } from './harness.mjs';
import { serve, lanAddresses } from '../../web/serve.mjs';

const FIRST_LOAD_MAX = 1_000_000;
const RELOAD_MAX = 10_000;
const LAPTOPS = 30;
const kb = (n) => (n / 1000).toFixed(1) + ' KB';

// Counts what the server writes: every socket's bytesWritten, and each response's status.
async function countingServer(dir) {
  const server = await serve(dir, 0);
  const sockets = new Set();
  const statuses = [];
  server.on('connection', (s) => sockets.add(s));
  server.on('request', (req, res) => res.on('finish', () => statuses.push(res.statusCode)));
  const written = () => [...sockets].reduce((n, s) => n + s.bytesWritten, 0);
  return { server, statuses, written, port: server.address().port };
}

// One request; resolves with status, headers and the raw (still encoded) body. The agent
// remembers its sockets, whose bytesRead is what this laptop received.
function request(agent, url, headers) {
  return new Promise((ok, fail) => {
    const req = get(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.on('socket', (s) => agent.seen.add(s));
    req.on('error', fail);
  });
}

// A laptop: a browser-like agent (keep-alive, six connections) that loads every asset the
// page loads, as Chromium asks for them over plain HTTP on a LAN (gzip, deflate; no br).
async function loadPage(origin, assets, etags) {
  const agent = new Agent({ keepAlive: true, maxSockets: 6 });
  agent.seen = new Set();
  const responses = await Promise.all(assets.map((a) => request(agent, origin + a, {
    'Accept-Encoding': 'gzip, deflate',
    ...(etags ? { 'If-None-Match': etags[a] } : {}),
  })));
  const bytes = [...agent.seen].reduce((n, s) => n + s.bytesRead, 0);
  agent.destroy();
  return { responses, bytes };
}

export function register(suite) {
  suite.test('thirty laptops load the page within 1 MB each and reload it with 304s under 10 KB', async ({ page }) => {
    const dir = suite.siteDir;
    const counted = await countingServer(dir);
    const origin = `http://127.0.0.1:${counted.port}`;
    try {
      // One real Chromium load: which assets the page fetches, and what it costs on the wire.
      const paths = new Set();
      page.on('request', (r) => { if (r.url().startsWith(origin)) paths.add(new URL(r.url()).pathname); });
      const started = Date.now();
      await page.goto(origin + '/');
      await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
      const readyMs = Date.now() - started;
      const chromiumFirst = counted.written();
      assert(counted.statuses.every((s) => s === 200), 'statuses of the first load: ' + counted.statuses.join(','));
      counted.statuses.length = 0;
      await page.reload();
      await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
      const chromiumReload = counted.written() - chromiumFirst;
      const reloadStatuses = counted.statuses.join(',');
      assert(counted.statuses.every((s) => s === 304), 'Chromium reload statuses: ' + reloadStatuses);
      console.log(`        Chromium: first load ${kb(chromiumFirst)} (ready in ${readyMs} ms over loopback),` +
                  ` reload ${kb(chromiumReload)} (${counted.statuses.length} x 304)`);
      assert(chromiumFirst <= FIRST_LOAD_MAX, `Chromium's first load sent ${chromiumFirst} bytes`);
      assert(chromiumReload < RELOAD_MAX, `Chromium's reload sent ${chromiumReload} bytes`);

      const assets = ['/', ...[...paths].filter((p) => p !== '/')];
      for (const a of ['/vantage.wasm', '/vantage.js', '/vantage-page.js', '/style.css']) {
        assert(assets.includes(a), `the page did not load ${a}: ${assets.join(', ')}`);
      }

      // Thirty laptops at once, then each reloads with the ETags it was given.
      const files = Object.fromEntries(assets.map((a) => [a, readFileSync(dir + (a === '/' ? '/index.html' : a))]));
      const t0 = Date.now();
      const first = await Promise.all(Array.from({ length: LAPTOPS }, () => loadPage(origin, assets)));
      const firstMs = Date.now() - t0;
      for (const load of first) {
        load.responses.forEach((r, i) => {
          assertEq(r.status, 200, `status of ${assets[i]}`);
          assertEq(r.headers['content-encoding'], 'gzip', `Content-Encoding of ${assets[i]}`);
          assert(r.headers.etag && r.headers.vary === 'Accept-Encoding', `ETag and Vary of ${assets[i]}`);
          assert(gunzipSync(r.body).equals(files[assets[i]]), `${assets[i]} does not decode to the file`);
        });
      }
      const etags = Object.fromEntries(assets.map((a, i) => [a, first[0].responses[i].headers.etag]));
      const reload = await Promise.all(Array.from({ length: LAPTOPS }, () => loadPage(origin, assets, etags)));
      for (const load of reload) {
        load.responses.forEach((r, i) => {
          assertEq(r.status, 304, `reload status of ${assets[i]}`);
          assertEq(r.body.length, 0, `reload body of ${assets[i]}`);
        });
      }
      const firstBytes = first.map((l) => l.bytes), reloadBytes = reload.map((l) => l.bytes);
      const sum = (a) => a.reduce((x, y) => x + y, 0);
      const identity = sum(Object.values(files).map((b) => b.length));
      console.log(`        ${LAPTOPS} laptops (${assets.length} requests each: ${assets.join(' ')}):`);
      console.log(`        first load ${kb(Math.max(...firstBytes))} each (uncompressed bodies: ${kb(identity)}),` +
                  ` ${kb(sum(firstBytes))} in all, served in ${firstMs} ms over loopback`);
      console.log(`        reload ${kb(Math.max(...reloadBytes))} each, ${kb(sum(reloadBytes))} in all`);
      assert(Math.max(...firstBytes) <= FIRST_LOAD_MAX, `a first load read ${Math.max(...firstBytes)} bytes`);
      assert(Math.max(...reloadBytes) < RELOAD_MAX, `a reload read ${Math.max(...reloadBytes)} bytes`);
    } finally {
      counted.server.close();
    }
  });

  suite.test('over a 10 Mbit/s link with 40 ms RTT the page is downloaded within 1.5 s', async ({ page }) => {
    // Chromium's own network emulation (DevTools): every request pays the latency, the bodies
    // share the throughput; a fresh context, nothing cached. The goal is a first frame within
    // 2 s; start-up after the last byte (compile, software GL, first frame) took 0.4-0.5 s on
    // an idle machine of this kind, so the transfer may have 1.5 s. Only the transfer is
    // asserted: start-up is this shared machine's CPU, not the link. Measured idle: downloaded
    // after 0.63-0.66 s, first frame after 1.0-1.2 s (2.8 s and 3.2 s before the page shrank).
    const server = await serve(suite.siteDir, 0);
    try {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 });
      const started = Date.now();
      await page.goto(`http://127.0.0.1:${server.address().port}/#meter`);
      await page.waitForFunction(() => window.vantage && window.vantage.ready && window.vantage.state().tick >= 1,
                                 null, { timeout: 30000, polling: 10 });
      const frameMs = Date.now() - started;
      const downloadedMs = await page.evaluate(() =>
        Math.max(...performance.getEntriesByType('resource').map((e) => e.responseEnd)));
      console.log(`        downloaded after ${downloadedMs.toFixed(0)} ms, first frame after ${frameMs} ms` +
                  ' (10 Mbit/s, 40 ms latency per request; goal: first frame within 2000 ms)');
      assert(downloadedMs < 1500, `the page took ${downloadedMs.toFixed(0)} ms to download`);
    } finally {
      server.close();
    }
  });

  suite.test('serve.mjs answers on a LAN address only with --lan; a page reached there copies links to it', async ({ page }) => {
    const lan = lanAddresses();
    if (lan.length === 0) {
      console.log('        skipped: this machine has no non-internal IPv4 address');
      return;
    }
    const address = lan[0];
    const fetchStatus = (url) => new Promise((ok) => {
      get(url, (res) => { res.resume(); ok(res.statusCode); }).on('error', (e) => ok(e.code));
    });
    const local = await serve(suite.siteDir, 0);
    try {
      const port = local.address().port;
      assertEq(await fetchStatus(`http://127.0.0.1:${port}/`), 200, 'loopback without --lan');
      const status = await fetchStatus(`http://${address}:${port}/`);
      assert(status !== 200, `reached http://${address}:${port}/ without --lan (${status})`);
    } finally {
      local.close();
    }
    // The command line: --lan prints the LAN URLs, and they answer.
    const script = fileURLToPath(new URL('../../web/serve.mjs', import.meta.url));
    const child = spawn(process.execPath, [script, suite.siteDir, '0', '--lan'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const out = await new Promise((ok, fail) => {
        let text = '';
        const timer = setTimeout(() => fail(new Error('serve.mjs --lan printed: ' + text)), 10000);
        child.stdout.on('data', (d) => {
          text += d;
          if (text.includes(`http://${address}:`)) { clearTimeout(timer); ok(text); }
        });
      });
      const url = out.match(new RegExp(`http://${address.replace(/\./g, '\\.')}:\\d+/`))[0];
      assertEq(await fetchStatus(url), 200, `${url} with --lan`);
      // Reached at the LAN address, the page's "Copy link" names that address (not 127.0.0.1).
      await page.goto(url + '#meter/seed=4');
      await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
      // Not a secure context: the page's fallback copies (a 'copy' event) instead of nothing.
      const [link, copied] = await page.evaluate(() => {
        let copied = false;
        document.addEventListener('copy', () => { copied = true; }, { once: true });
        return [window.vantage.copyLink(), copied];
      });
      assert(link.startsWith(url) && link.includes('seed=4'), 'copied link ' + link);
      assert(copied, 'Copy link copied nothing on the LAN page');
      console.log(`        --lan printed and served ${url} (its copied link: ${link}); without --lan that address refused`);
    } finally {
      child.kill();
    }
  });
}
