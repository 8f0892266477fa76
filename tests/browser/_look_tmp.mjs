import { launch } from './harness.mjs';
import { serve } from '../../web/serve.mjs';
const server = await serve(process.argv[2], 0);
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
const shots = [
  ['blackhole', 'culling-breaks-the-physics'], ['horde', 'loss-without-recovery'], ['meter', 'average-lags-a-step'],
  ['netcode', 'lag-compensation-lands-the-shot'], ['proximity', 'density-wall']];
for (const [w, h, scale] of [[1600, 900, 1], [1280, 720, 1.5]]) {
  const page = await browser.newPage({ viewport: { width: w, height: h } });
  await page.goto(base + '#meter/paused=1');
  await page.waitForFunction(() => window.vantage && window.vantage.ready);
  await page.evaluate((s) => window.vantage.uiScale(s), scale);
  for (const [pg, preset] of shots) {
    const secs = await page.evaluate(([pg, preset]) => {
      window.vantage.set('playground', pg); window.vantage.set('preset', preset); window.vantage.set('paused', 1);
      for (let i = 0; i < 2000 && window.vantage.state().preset.verdict === 'pending'; i++) window.vantage.step();
      return window.vantage.state().time_s;
    }, [pg, preset]);
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/ws_look/${pg}-${w}x${h}.png` });
  }
  await page.close();
}
await browser.close(); server.close();
