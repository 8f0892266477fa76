// Refreshes the README's screenshots from the real page (./vantage screenshot).
//   node screenshot.mjs SITE_DIR OUT_DIR [playground ...]
// Writes OUT_DIR/screenshot.png (the first playground) and OUT_DIR/<playground>.png.
import { launch, openApp } from './harness.mjs';
import { serve } from '../../web/serve.mjs';
import { mkdirSync } from 'node:fs';

const [siteDir, outDir, ...wanted] = process.argv.slice(2);
if (!siteDir || !outDir) { console.error('usage: node screenshot.mjs SITE_DIR OUT_DIR [playground ...]'); process.exit(2); }
mkdirSync(outDir, { recursive: true });
const server = await serve(siteDir, 0);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
let page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
await openApp(page, base, '', 1);
const names = wanted.length ? wanted : (await page.evaluate(() => window.vantage.playgrounds())).map((p) => p.name);
for (const [i, name] of names.entries()) {
  // A fresh page per playground: the hash is read at start, like a link someone opens.
  await page.close();
  page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await openApp(page, base, `${name}/seed=1`, 1);
  // Let the meters' windows fill: 20 simulated seconds at 4x speed.
  await page.evaluate(() => window.vantage.set('speed', 4));
  await page.waitForFunction(() => window.vantage.state().time_s >= 20, null, { timeout: 120000 });
  await page.evaluate(() => window.vantage.set('speed', 1));
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${outDir}/${name}.png` });
  if (i === 0) await page.screenshot({ path: `${outDir}/screenshot.png` });
  console.log(`wrote ${outDir}/${name}.png`);
}
await browser.close();
server.close();
