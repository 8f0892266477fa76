// Writes FILE.gz (gzip level 9) beside each FILE, for servers that send the precompressed
// variant to browsers that accept it (web/serve.mjs, the room server).
//   node web/precompress.mjs FILE...
// A .gz is rewritten only when its bytes change, so a rebuild that changes nothing keeps
// every ETag (and a classroom's cached copies) valid. Node's gzip writes no name or
// timestamp: the same input gives the same bytes.
// No .br: it would make the wasm 21% smaller (362 KB against 457 KB), but Chromium asks for
// br (and zstd) only from HTTPS and localhost; to a LAN address over plain HTTP, which is what
// a classroom uses, it sends "gzip, deflate" (measured with Chromium 156), so no laptop would
// ever be sent a .br.
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
