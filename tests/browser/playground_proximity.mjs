// Browser tests of the proximity playground: the wasm page runs the same simulation as the
// native tests (the shared golden checksum), and its exact lanes agree in the page.
import { assert, assertEq, openApp, goldenChecksum } from './harness.mjs';

async function step(page, n) {
  await page.evaluate((k) => { for (let i = 0; i < k; i++) window.vantage.step(); }, n);
}

export function register(suite) {
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
