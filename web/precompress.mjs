// Writes FILE.gz (gzip level 9) beside each FILE, for servers that send the precompressed
// variant to browsers that accept it (web/serve.mjs, the room server).
//   node web/precompress.mjs FILE...
// A .gz is rewritten only when its bytes change, so a rebuild that changes nothing keeps
// every ETag (and a classroom's cached copies) valid. Node's gzip writes no name or
// timestamp: the same input gives the same bytes.
// No .br: Chromium asks for brotli only over HTTPS, and a classroom serves plain HTTP on the
// LAN, so a .br would never be sent (measured: it would save 19% of the wasm if it were).
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { gzipSync, constants } from 'node:zlib';

const files = process.argv.slice(2);
if (files.length === 0) { console.error('usage: node precompress.mjs FILE...'); process.exit(2); }
for (const file of files) {
  const gz = gzipSync(readFileSync(file), { level: constants.Z_BEST_COMPRESSION, memLevel: 9 });
  const out = file + '.gz';
  if (existsSync(out) && readFileSync(out).equals(gz)) continue;
  writeFileSync(out, gz);
}
