// A small static file server for the built page, bound to 127.0.0.1 only.
//   node web/serve.mjs DIR [PORT]   (PORT 0 picks a free port; the URL is printed)
// Used by `./vantage play` and the browser tests. Serves files under DIR and nothing else.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { resolve, join, extname, sep } from 'node:path';

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png',
  '.ttf': 'font/ttf', '.txt': 'text/plain; charset=utf-8', '.data': 'application/octet-stream',
};

export function serve(dir, port = 0) {
  const root = resolve(dir);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
      let file = resolve(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) { res.writeHead(403).end('forbidden'); return; }
      if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream',
                           'Content-Length': body.length, 'Cache-Control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, port] = process.argv.slice(2);
  if (!dir) { console.error('usage: node serve.mjs DIR [PORT]'); process.exit(2); }
  const p = Number(port ?? 8000);
  if (!Number.isInteger(p) || p < 0 || p > 65535) { console.error(`bad port '${port}'`); process.exit(2); }
  // A busy port is common (another play session): try the next few before giving up.
  const attempt = (port, left) => serve(dir, port).then((server) => {
    if (port !== p) console.log(`port ${p} is busy; using ${port}`);
    console.log(`Vantage is served at http://127.0.0.1:${server.address().port}/  (Ctrl+C to stop)`);
  }).catch((e) => {
    if (e.code === 'EADDRINUSE' && p !== 0 && left > 0 && port < 65535) return attempt(port + 1, left - 1);
    console.error(`could not serve on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  });
  attempt(p, 20);
}
