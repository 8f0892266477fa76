// Browser tests of the proximity playground: the wasm page runs the same simulation as the
// native tests (the shared golden checksum), and its exact lanes agree in the page.
import { readFileSync } from 'node:fs';
import { assert, assertEq, openApp, goldenChecksum } from './harness.mjs';
import { decodePng } from './image.mjs';

async function step(page, n) {
  await page.evaluate((k) => { for (let i = 0; i < k; i++) window.vantage.step(); }, n);
}

// Pixels of `img` inside / outside rect [x0, y0, x1, y1] that pass `test(r, g, b)`.
function countPixels(img, rect, test) {
  let inside = 0, outside = 0;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * 3;
      if (!test(img.rgb[i], img.rgb[i + 1], img.rgb[i + 2])) continue;
      if (x >= rect[0] && x < rect[2] && y >= rect[1] && y < rect[3]) inside++; else outside++;
    }
  }
  return { inside, outside };
}

export function register(suite) {
  // A draw list past 65,536 vertices with 16-bit indices the renderer cannot offset (WebGL2)
  // wraps its indices: crowded creatures' red streak triangles over the page, the dots gone
  // and the lane table cut. Both heavy presets: the creatures drawn inside the world only,
  // enough of them there, and the whole table on screen.
  for (const [preset, creatures] of [['density-wall', 20000], ['representative-breaks-it', 8000]]) {
    suite.test(`proximity: ${creatures} creatures draw without streaks and the table stays (${preset})`, async ({ page, base, errors, shot }) => {
      await page.setViewportSize({ width: 1280, height: 720 });
      await openApp(page, base, `proximity/preset=${preset}`, 20);
      assertEq((await page.evaluate(() => window.vantage.state())).settings.creatures, creatures, 'creatures');
      await page.evaluate(() => window.vantage.set('paused', 1));
      await page.waitForTimeout(500);
      const layout = await page.evaluate(() => window.vantage.layout());
      const world = layout['proximity.world'], table = layout['proximity.table'];
      assert(world && table, 'layout marks: ' + JSON.stringify(layout));
      const img = decodePng(readFileSync(await shot(`proximity-${preset}`)));
      assert(table[3] <= img.height && table[3] - table[1] > 40, `table at ${table} in a ${img.height} px page`);
      // Hot (crowded) creature colours: red, which the page's own UI never fills areas with.
      const hot = (r, g, b) => r > 180 && g < 130 && b < 130;
      const c = countPixels(img, world, hot);
      const outsideArea = img.width * img.height - (world[2] - world[0]) * (world[3] - world[1]);
      assert(c.outside < 0.001 * outsideArea, `${c.outside} red pixels outside the world (streaks)`);
      // Every pixel that is not the world's background: the dots are drawn.
      const drawn = countPixels(img, world, (r, g, b) => Math.abs(r - 14) + Math.abs(g - 16) + Math.abs(b - 22) > 40);
      assert(drawn.inside > creatures / 4, `only ${drawn.inside} pixels of creatures in the world`);
      assert(errors.length === 0, 'errors: ' + errors.join(' | '));
    });
  }

  suite.test('proximity: the same seed gives the same checksum as native', async ({ page, base }) => {
    // Pinned in tests/playgrounds/proximity_sim_test.cpp: 240 ticks at 60 Hz from seed 5.
    await openApp(page, base, 'proximity/seed=5&creatures=600&clustered=1&paused=1', 0);
    await step(page, 240);
    const sum = await page.evaluate(() => window.vantage.state().checksum);
    assertEq(sum, goldenChecksum('proximity'), 'checksum after 240 ticks');
  });

  suite.test('proximity: every exact lane agrees with brute force and the page times the lanes', async ({ page, base, errors, shot }) => {
    await openApp(page, base, 'proximity/seed=1&creatures=1200&brute_cap=1500&paused=1', 0);
    await step(page, 60);
    const m = await page.evaluate(() => window.vantage.state().meters);
    for (const lane of ['dense', 'hash', 'crosslink', 'nearby', 'brute']) {
      assertEq(m[`${lane}.active`], 1, `${lane} active`);
      assertEq(m[`${lane}.disagree`], 0, `${lane} disagreement`);
      assertEq(m[`${lane}.pairs`], m['brute.pairs'], `${lane} pairs`);
    }
    assert(m['brute.ops'] > 50 * m['dense.ops'], `brute ${m['brute.ops']} vs dense ${m['dense.ops']}`);
    assert(m['nearest.worst_cells'] < 1.42, `representative worst ${m['nearest.worst_cells']} cells`);
    await page.evaluate(() => window.vantage.set('paused', 0));
    const t0 = await page.evaluate(() => window.vantage.state().tick);
    await page.waitForFunction((t) => window.vantage.state().tick >= t + 10, t0, { timeout: 20000 });
    await shot('proximity');
    assert(errors.length === 0, 'errors: ' + errors.join(' | '));
  });
}
