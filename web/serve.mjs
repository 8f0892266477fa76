// A small static file server for the built page.
//   node web/serve.mjs DIR [PORT] [--lan]   (PORT 0 picks a free port; the URLs are printed)
// Without --lan it binds 127.0.0.1 only; --lan binds every interface (IPv4 and IPv6) and
// prints the URL of each LAN address, for a classroom on one Wi-Fi.
// Used by `./vantage play`, the browser tests and the static bundle.
//
// It serves the page by the same policy as the room server (playgrounds/room/room_server.cpp,
// `./vantage serve`); tests/web/serving_test.mjs runs both on one directory and compares:
// - what: only the files DIR/page-files.txt lists (the web build writes it; `/` and `/sub/`
//   are their index.html), answering only to this machine's own names (Host); ".." segments,
//   "//", backslashes and NUL are 403, a path out of DIR by a symlink 403, anything else 404;
// - compression: FILE.gz beside FILE (web/precompress.mjs) is sent to a browser whose
//   Accept-Encoding names gzip with a non-zero q, with Content-Encoding, Vary: Accept-Encoding
//   and X-Decoded-Length (the page's progress bar);
// - ETag: "<size>-<mtime in ns since the Unix epoch>[-gz]" in hex; Cache-Control: no-cache
//   makes a reload revalidate, and a matching If-None-Match (weak or strong) gets an empty 304;
// - only GET and HEAD (405 with Allow); errors are short text/plain answers.
import { createServer } from 'node:http';
import { readFile, stat, realpath } from 'node:fs/promises';
import { readFileSync, realpathSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { resolve, join, extname, sep } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.json': 'application/json', '.txt': 'text/plain; charset=utf-8', '.ini': 'text/plain; charset=utf-8',
};

// Does an Accept-Encoding value accept gzip? Only "gzip" counts; "gzip;q=0" refuses it.
export function acceptsGzip(header) {
  let yes = false;
  for (const item of String(header || '').split(',')) {
    const [name, ...params] = item.trim().split(';');
    if (name.trim().toLowerCase() !== 'gzip') continue;
    const p = (params[0] || '').trim();
    const zero = /^q=/i.test(p) && /^[0.]*$/.test(p.slice(2));
    yes = !zero;
  }
  return yes;
}

// If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches "x".
function etagMatches(header, etag) {
  if (!header) return false;
  return header.split(',').some((t) => { t = t.trim(); return t === '*' || t.replace(/^W\//, '') === etag; });
}

// The name in a Host header ("name:port", "[v6]:port"), lower case, without a trailing dot.
function hostName(host) {
  host = String(host || '').trim();
  let name = host;
  if (host.startsWith('[')) { const close = host.indexOf(']'); name = close < 0 ? '' : host.slice(1, close); }
  else if (host.lastIndexOf(':') >= 0) name = host.slice(0, host.lastIndexOf(':'));
  name = name.toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

// The request target as a name of page-files.txt, or the status that refuses it.
function resolveTarget(target, files) {
  target = target.split(/[?#]/)[0];
  let path = '';
  for (let i = 0; i < target.length; ++i) {
    if (target[i] !== '%') { path += target[i]; continue; }
    if (!/^[0-9a-fA-F]{2}$/.test(target.slice(i + 1, i + 3))) return { status: 400 };
    path += String.fromCharCode(parseInt(target.slice(i + 1, i + 3), 16));
    i += 2;
  }
  if (!path.startsWith('/')) return { status: 400 };
  if (path.includes('\0') || path.includes('\\')) return { status: 403 };
  const rel = path.slice(1);
  if (rel.startsWith('/')) return { status: 403 };
  if (rel.split('/').includes('..')) return { status: 403 };
  let name = rel;
  if (name === '' || name.endsWith('/')) name += 'index.html';
  if (!files.has(name)) {
    name += '/index.html';  // a directory of the page ("/sub" for "sub/index.html") is its index
    if (!files.has(name)) return { status: 404 };
  }
  return { status: 200, name };
}

const reasons = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed' };
function sendText(res, status, text, extra = { 'Cache-Control': 'no-cache' }) {
  const body = Buffer.from(text ?? reasons[status] + '\n', 'latin1');
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length, ...extra });
  res.end(body);
}

// Bytes of one file, kept while its size and mtime stay the same; its ETag from both.
const cache = new Map();
async function load(file) {
  const st = await stat(file, { bigint: true });
  if (!st.isFile()) throw new Error('not a file');
  const etag = `${st.size.toString(16)}-${st.mtimeNs.toString(16)}`;
  const hit = cache.get(file);
  if (hit && hit.etag === etag) return hit;
  const entry = { etag, body: await readFile(file) };
  cache.set(file, entry);
  return entry;
}

const isFile = (f) => stat(f).then((s) => s.isFile(), () => false);

export function serve(dir, port = 0, { lan = false } = {}) {
  let root, listed;
  try {
    root = realpathSync(resolve(dir));  // canonical, as the symlink check compares real paths
    listed = readFileSync(join(root, 'page-files.txt'), 'latin1');
  } catch {
    return Promise.reject(new Error(`${resolve(dir)} has no page-files.txt (the list of the page's files the web build writes)`));
  }
  const files = new Set(listed.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l));
  const hosts = new Set(['localhost', '127.0.0.1', '::1', ...(lan ? lanAddresses() : [])]);
  const inside = (f) => f.startsWith(root + sep);
  const server = createServer(async (req, res) => {
    try {
      if (!hosts.has(hostName(req.headers.host))) {
        sendText(res, 403, 'this server answers only to its own addresses: open the URL it printed\n',
          { 'Cache-Control': 'no-cache', Connection: 'close' });
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendText(res, 405, 'only GET and HEAD\n', { Allow: 'GET, HEAD' });
        return;
      }
      const { status, name } = resolveTarget(req.url, files);
      if (status !== 200) { sendText(res, status); return; }
      const file = join(root, name);
      // A symlink may not lead out of DIR.
      if (!inside(await realpath(file).catch(() => resolve(file)))) { sendText(res, 403); return; }
      if (!(await isFile(file))) { sendText(res, 404); return; }
      const hasGz = (await isFile(file + '.gz')) && inside(await realpath(file + '.gz').catch(() => file));
      const gzip = hasGz && acceptsGzip(req.headers['accept-encoding']);
      const entry = await load(gzip ? file + '.gz' : file);
      const headers = { ETag: `"${entry.etag}${gzip ? '-gz' : ''}"`, 'Cache-Control': 'no-cache' };
      if (hasGz) headers.Vary = 'Accept-Encoding';
      if (etagMatches(req.headers['if-none-match'], headers.ETag)) { res.writeHead(304, headers).end(); return; }
      headers['Content-Type'] = types[extname(file)] || 'application/octet-stream';
      if (gzip) {
        headers['Content-Encoding'] = 'gzip';
        headers['X-Decoded-Length'] = (await stat(file)).size;
      }
      headers['Content-Length'] = entry.body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : entry.body);
    } catch {
      if (!res.headersSent) sendText(res, 404);
      else res.destroy();
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    // '::' is dual-stack in Node (IPv4 clients arrive as ::ffff:a.b.c.d).
    server.listen(port, lan ? '::' : '127.0.0.1', () => ok(server));
  });
}

// The LAN's IPv4 addresses of this machine (not loopback, not link-local).
export function lanAddresses() {
  return Object.values(networkInterfaces()).flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.'))
    .map((a) => a.address);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const lan = args.includes('--lan');
  const [dir, port, ...rest] = args.filter((a) => a !== '--lan');
  if (!dir || dir.startsWith('-') || rest.length) { console.error('usage: node serve.mjs DIR [PORT] [--lan]'); process.exit(2); }
  const p = Number(port ?? 8000);
  if (!Number.isInteger(p) || p < 0 || p > 65535) { console.error(`bad port '${port}'`); process.exit(2); }
  const where = lan ? 'every interface' : '127.0.0.1';
  // A busy port is common (another play session): try the next few before giving up.
  const attempt = (port, left) => serve(dir, port, { lan }).then((server) => {
    if (port !== p) console.log(`port ${p} is busy; using ${port}`);
    const at = server.address().port;
    console.log(`Vantage is served at http://127.0.0.1:${at}/  (Ctrl+C to stop)`);
    if (lan) {
      const addrs = lanAddresses();
      if (addrs.length === 0) console.log('--lan: this machine has no LAN address (IPv4) right now');
      for (const a of addrs) console.log(`  on the LAN: http://${a}:${at}/`);
    }
  }).catch((e) => {
    if (e.code === 'EADDRINUSE' && p !== 0 && left > 0 && port < 65535) return attempt(port + 1, left - 1);
    console.error(`could not serve on ${where}, port ${port}: ${e.message}`);
    process.exit(1);
  });
  attempt(p, 20);
}
