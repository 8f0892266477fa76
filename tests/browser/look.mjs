// Screenshots for looking at the page as a user would (not a test; ./vantage does not run it).
//   node look.mjs SITE_DIR OUT_DIR HASH [SECONDS] [WxH@SCALE ...]
// CLICK=x,y clicks there after pausing (a packet on a strip, say) before the screenshot.
// Opens HASH, runs it live at 4x until SECONDS of simulated time, pauses, and writes
// OUT_DIR/<W>x<H>@<SCALE>.png per size.
import { launch, openApp } from './harness.mjs';
import { serve } from '../../web/serve.mjs';
import { mkdirSync } from 'node:fs';

const [siteDir, outDir, hash, seconds = '0', ...sizes] = process.argv.slice(2);
if (!siteDir || !outDir || !hash) { console.error('usage: node look.mjs SITE_DIR OUT_DIR HASH [SECONDS] [WxH@SCALE ...]'); process.exit(2); }
mkdirSync(outDir, { recursive: true });
const server = await serve(siteDir, 0);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
for (const size of sizes.length ? sizes : ['1600x900@1', '1280x720@1.5']) {
  const [, w, h, scale] = size.match(/^(\d+)x(\d+)@([\d.]+)$/);
  const page = await browser.newPage({ viewport: { width: +w, height: +h } });
  await openApp(page, base, hash, 1);
  await page.evaluate((s) => window.vantage.uiScale(s), +scale);
  if (process.env.PRESENTER) await page.evaluate(() => window.vantage.presenter(true));
  await page.evaluate(() => { window.vantage.set('speed', 4); window.vantage.set('paused', 0); });
  await page.waitForFunction((t) => window.vantage.state().time_s >= t, +seconds, { timeout: 300000 });
  await page.evaluate(() => window.vantage.set('paused', 1));
  await page.waitForTimeout(600);
  if (process.env.CLICK) {
    const [x, y] = process.env.CLICK.split(',').map(Number);
    await page.mouse.click(x, y);
    await page.waitForTimeout(400);
  }
  const path = `${outDir}/${w}x${h}@${scale}.png`;
  await page.screenshot({ path });
  console.log(`wrote ${path}`);
  await page.close();
}
await browser.close();
server.close();
