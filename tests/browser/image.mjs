// Minimal image readers for the tests: 8-bit PNG (as Chromium's screenshots are) and binary
// PPM (as the desktop app's --screenshot writes), plus the pixel variance used to tell a
// rendered UI from a blank canvas.
import { inflateSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

export function decodePng(buf) {
  const sig = [137, 80, 78, 71, 13, 10, 26, 10];
  if (!sig.every((b, i) => buf[i] === b)) throw new Error('not a PNG');
  let pos = 8, width = 0, height = 0, colorType = 0, bitDepth = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') { width = data.readUInt32BE(0); height = data.readUInt32BE(4); bitDepth = data[8]; colorType = data[9]; }
    if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6)) throw new Error(`unsupported PNG (depth ${bitDepth}, type ${colorType})`);
  const bpp = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(width * height * 3);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      let p;
      switch (filter) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c);
                  p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; break; }
        default: throw new Error('bad PNG filter');
      }
      line[i] = (line[i] + p) & 255;
    }
    for (let x = 0; x < width; x++) for (let k = 0; k < 3; k++) out[(y * width + x) * 3 + k] = line[x * bpp + k];
    prev = line;
  }
  return { width, height, rgb: out };
}

export function decodePpm(buf) {
  const header = buf.toString('latin1', 0, 64).match(/^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/);
  if (!header) throw new Error('not a binary PPM');
  const [all, w, h] = header;
  return { width: Number(w), height: Number(h), rgb: buf.subarray(all.length) };
}

// Variance of luminance over all pixels: a blank or single-colour image gives ~0.
export function variance(img) {
  let sum = 0, sq = 0;
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const l = 0.299 * img.rgb[i * 3] + 0.587 * img.rgb[i * 3 + 1] + 0.114 * img.rgb[i * 3 + 2];
    sum += l; sq += l * l;
  }
  const mean = sum / n;
  return sq / n - mean * mean;
}

// CLI: node image.mjs FILE  -> prints the variance; exit 1 if the image looks blank.
if (import.meta.url === `file://${process.argv[1]}`) {
  const buf = readFileSync(process.argv[2]);
  const img = buf[0] === 0x50 ? decodePpm(buf) : decodePng(buf);
  const v = variance(img);
  console.log(`${img.width}x${img.height} variance ${v.toFixed(1)}`);
  process.exit(v > 20 ? 0 : 1);
}
