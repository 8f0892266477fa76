// A small static file server for the built page.
//   node web/serve.mjs DIR [PORT] [--lan]   (PORT 0 picks a free port; the URLs are printed)
// Without --lan it binds 127.0.0.1 only; --lan binds every interface (IPv4 and IPv6) and
// prints the URL of each LAN address, for a classroom on one Wi-Fi.
// Used by `./vantage play`, the browser tests and the static bundle. Serves files under DIR
// and nothing else. Built for thirty laptops reloading one page:
// - FILE.gz beside FILE (web/precompress.mjs) is sent to a browser that accepts gzip, with
//   Content-Encoding and Vary: Accept-Encoding, and X-Decoded-Length (the page's progress bar);
// - every variant has a strong ETag from its bytes; Cache-Control: no-cache makes a reload
//   revalidate, and a matching If-None-Match gets an empty 304.
import { createServer } from 'node:http';
import { readFile, stat, realpath } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { resolve, join, extname, sep } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png',
  '.ttf': 'font/ttf', '.txt': 'text/plain; charset=utf-8', '.data': 'application/octet-stream',
  '.gz': 'application/gzip',
};

// Does an Accept-Encoding value accept gzip? "gzip;q=0" refuses it; "*" accepts it.
export function acceptsGzip(header) {
  let gzip = null, star = null;
  for (const item of String(header || '').split(',')) {
    const [name, ...params] = item.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const ok = !(q && Number(q.slice(2)) === 0);
    if (name.trim() === 'gzip' || name.trim() === 'x-gzip') gzip = ok;
    else if (name.trim() === '*') star = ok;
  }
  return gzip ?? star ?? false;
}

// If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches "x".
function etagMatches(header, etag) {
  if (!header) return false;
  return header.split(',').some((t) => { t = t.trim(); return t === '*' || t.replace(/^W\//, '') === etag; });
}

// Bytes and ETag of one file, kept while its size and mtime stay the same.
const cache = new Map();
async function load(file) {
  const st = await stat(file);
  if (!st.isFile()) throw new Error('not a file');
  const hit = cache.get(file);
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit;
  const body = await readFile(file);
  const etag = '"' + createHash('sha256').update(body).digest('base64url').slice(0, 22) + '"';
  const entry = { size: st.size, mtimeMs: st.mtimeMs, body, etag };
  cache.set(file, entry);
  return entry;
}

const exists = (f) => stat(f).then((s) => s.isFile(), () => false);

export function serve(dir, port = 0, { lan = false } = {}) {
  const root = resolve(dir);
  const inside = (f) => f === root || f.startsWith(root + sep);
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('only GET and HEAD');
        return;
      }
      let path;
      try { path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname); } catch {
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end('bad request'); return;
      }
      let file = resolve(join(root, path));
      if (!inside(file) || path.includes('\0')) { res.writeHead(403).end('forbidden'); return; }
      if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      // A symlink may not lead out of DIR either.
      if (!inside(await realpath(file).catch(() => file))) { res.writeHead(403).end('forbidden'); return; }
      const hasGz = await exists(file + '.gz');
      const gzip = hasGz && acceptsGzip(req.headers['accept-encoding']);
      const entry = await load(gzip ? file + '.gz' : file);
      const headers = { ETag: gzip ? entry.etag.slice(0, -1) + '-gz"' : entry.etag, 'Cache-Control': 'no-cache' };
      if (hasGz) headers.Vary = 'Accept-Encoding';
      if (etagMatches(req.headers['if-none-match'], headers.ETag)) { res.writeHead(304, headers).end(); return; }
      headers['Content-Type'] = types[extname(file)] || 'application/octet-stream';
      headers['Content-Length'] = entry.body.length;
      if (gzip) {
        headers['Content-Encoding'] = 'gzip';
        headers['X-Decoded-Length'] = (await stat(file)).size;
      }
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : entry.body);
    } catch {
      if (!res.headersSent) res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
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
