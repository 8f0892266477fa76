// The page's two servers serve it by one policy: web/serve.mjs (`./vantage play`, the browser
// tests, the bundle) and the room server (vantage_serve, `./vantage serve`) are started on the
// same directory and asked the same requests; every answer must agree in status, the headers
// that make the policy (ETag, Vary, Content-Encoding, Content-Type, Content-Length,
// X-Decoded-Length, Cache-Control, Allow) and body. The directory holds what the policy
// decides about: listed and unlisted files, a .gz variant, a directory index, a listed file
// that is missing, a symlink out of the directory.
//
//   node tests/web/serving_test.mjs PATH/TO/vantage_serve
// Prints "ok <request>" or "not ok <request>" with "#   " lines per difference; exit 1 if any.
// Run by `./vantage test serving` and CTest (test `serving`).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const exe = process.argv[2];
if (!exe) { console.error('usage: node serving_test.mjs PATH/TO/vantage_serve'); process.exit(2); }
const { serve } = await import(fileURLToPath(new URL('../../web/serve.mjs', import.meta.url)));

const dir = mkdtempSync(join(tmpdir(), 'vantage-serving-'));
const script = 'console.log("the page");\n'.repeat(200);
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>page</title>\n');
writeFileSync(join(dir, 'app.js'), script);
writeFileSync(join(dir, 'app.js.gz'), gzipSync(script));
writeFileSync(join(dir, 'style.css'), 'body { margin: 0 }\n');
writeFileSync(join(dir, 'secret.txt'), 'not on the list\n');
writeFileSync(join(dir, 'page.wasm'), Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]));
mkdirSync(join(dir, 'sub'));
writeFileSync(join(dir, 'sub', 'index.html'), '<p>sub</p>\n');
const outside = mkdtempSync(join(tmpdir(), 'vantage-outside-'));
writeFileSync(join(outside, 'leak.txt'), 'outside\n');
symlinkSync(join(outside, 'leak.txt'), join(dir, 'leak.txt'));
writeFileSync(join(dir, 'page-files.txt'),
  ['index.html', 'app.js', 'style.css', 'page.wasm', 'sub/index.html', 'leak.txt', 'missing.js'].join('\n') + '\n');

// vantage_serve prints "Vantage room: http://127.0.0.1:PORT/..." once it listens.
function startRoom() {
  return new Promise((ok, fail) => {
    const child = spawn(exe, ['--port', '0', '--web', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => fail(new Error('vantage_serve printed no URL: ' + out)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Vantage room: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) { clearTimeout(timer); ok({ child, port: Number(m[1]) }); }
    });
    child.stderr.on('data', (d) => { out += d; });
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`vantage_serve exited ${code}: ${out}`)); });
  });
}

function ask(port, { method = 'GET', path, headers = {} }) {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { Host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      });
    req.on('error', fail);
    req.end();
  });
}

const POLICY_HEADERS = ['etag', 'vary', 'content-encoding', 'content-type', 'content-length', 'x-decoded-length',
  'cache-control', 'allow'];
const gz = { 'Accept-Encoding': 'gzip, deflate' };
const cases = [
  { path: '/' },
  { path: '/index.html' },
  { path: '/index.html?v=2#x' },
  { path: '/app.js' },
  { path: '/app.js', headers: gz },
  { path: '/app.js', headers: { 'Accept-Encoding': 'gzip;q=0' } },
  { path: '/app.js', headers: { 'Accept-Encoding': '*' } },
  { path: '/app.js', headers: { 'Accept-Encoding': 'br, GZIP;q=0.5' } },
  { method: 'HEAD', path: '/app.js', headers: gz },
  { path: '/style.css' },
  { path: '/page.wasm' },
  { path: '/sub' },
  { path: '/sub/' },
  { path: '/secret.txt' },
  { path: '/page-files.txt' },
  { path: '/app.js.gz' },
  { path: '/missing.js' },
  { path: '/leak.txt' },
  { path: '/../secret.txt' },
  { path: '/sub/../app.js' },
  { path: '/%2e%2e/secret.txt' },
  { path: '//etc/passwd' },
  { path: '/app%00.js' },
  { path: '/a%5cb' },
  { path: '/app%zz.js' },
  { path: '/%61pp.js' },
  { method: 'POST', path: '/' },
  { method: 'DELETE', path: '/app.js' },
  { path: '/', headers: { Host: 'evil.example:80' }, bodies: false },  // the refusal's wording is each server's
  { path: '/', headers: { Host: 'LOCALHOST.' } },
];
// Revalidation: each server's own ETag for a file, sent back, weak and strong, and a stale one.
const revalidate = [
  { path: '/app.js', headers: gz },
  { path: '/app.js' },
  { path: '/index.html' },
];

let failed = 0;
function compare(label, a, b, bodies = true) {
  const diffs = [];
  if (a.status !== b.status) diffs.push(`status ${a.status} (serve.mjs) vs ${b.status} (room)`);
  for (const h of POLICY_HEADERS) {
    if (!bodies && h === 'content-length') continue;  // the length of a wording that may differ
    if (String(a.headers[h]) !== String(b.headers[h])) diffs.push(`${h}: ${a.headers[h]} (serve.mjs) vs ${b.headers[h]} (room)`);
  }
  if (bodies && !a.body.equals(b.body)) diffs.push(`body: ${JSON.stringify(a.body.toString().slice(0, 60))} (serve.mjs) vs ${JSON.stringify(b.body.toString().slice(0, 60))} (room)`);
  console.log((diffs.length ? 'not ok ' : 'ok ') + `${label} -> ${a.status}`);
  for (const d of diffs) console.log('#   ' + d);
  failed += diffs.length ? 1 : 0;
}

const node = await serve(dir, 0);
const nodePort = node.address().port;
let room;
try {
  room = await startRoom();
  for (const c of cases) {
    const label = `${c.method || 'GET'} ${c.path} ${JSON.stringify(c.headers || {})}`;
    compare(label, await ask(nodePort, c), await ask(room.port, c), c.bodies !== false);
  }
  for (const c of revalidate) {
    const first = [await ask(nodePort, c), await ask(room.port, c)];
    for (const [how, tag] of [['strong', (e) => e], ['weak', (e) => 'W/' + e], ['stale', () => '"0-0"']]) {
      const answers = await Promise.all([nodePort, room.port].map((port, i) => ask(port,
        { ...c, headers: { ...(c.headers || {}), 'If-None-Match': tag(first[i].headers.etag) } })));
      compare(`GET ${c.path} ${JSON.stringify(c.headers || {})} If-None-Match ${how}`, answers[0], answers[1]);
      if (how !== 'stale' && answers[0].status !== 304) {
        console.log(`not ok GET ${c.path} answers 304 to its own ${how} ETag\n#   got ${answers[0].status}`);
        failed += 1;
      }
    }
  }
} catch (e) {
  console.log('not ok serving: ' + e.message);
  failed += 1;
} finally {
  node.close();
  if (room) room.child.kill('SIGINT');
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
