// Browser tests of the horde playground: the wasm page runs the same simulation as the
// native tests, and its lanes show the loss finding live.
import { assert, assertEq, openApp, goldenChecksum } from './harness.mjs';

// Steps the paused simulation n ticks inside the page (deterministic, no wall clock).
async function step(page, n) {
  await page.evaluate((k) => { for (let i = 0; i < k; i++) window.vantage.step(); }, n);
}

export function register(suite) {
  suite.test('horde: at 25% loss the naive lane piles up phantoms while the acked lane stays near zero', async ({ page, base, errors, shot }) => {
    await openApp(page, base, 'horde/seed=1&loss=25&paused=1', 0);
    assertEq(await page.evaluate(() => window.vantage.state().settings.loss), 25, 'loss');
    // 25 simulated seconds, in slices so the page keeps drawing.
    for (let i = 0; i < 25; i++) await step(page, 60);
    const s = await page.evaluate(() => window.vantage.state());
    const m = s.meters;
    assert(s.time_s >= 24.9, `time_s ${s.time_s}`);
    assert(m['naive.phantoms'] > 3 * m['acked.phantoms'], `phantoms: naive ${m['naive.phantoms']} vs acked ${m['acked.phantoms']}`);
    assert(m['naive.phantoms'] > 15, `naive phantoms ${m['naive.phantoms']}`);
    assert(m['acked.phantoms'] < 10, `acked phantoms ${m['acked.phantoms']}`);
    assert(m['naive.mismatches'] > 0, `naive digest mismatches ${m['naive.mismatches']}`);
    assertEq(m['acked.mismatches'], 0, 'acked digest mismatches');
    assert(m['naive.err_mean_px'] > 2 * m['acked.err_mean_px'], `render error: naive ${m['naive.err_mean_px']} vs acked ${m['acked.err_mean_px']}`);
    assert(m['crowd.summaries'] > 0 && m['crowd.coverage_pct'] > 90, `crowd: ${m['crowd.summaries']} covering ${m['crowd.coverage_pct']}%`);
    await page.evaluate(() => window.vantage.set('paused', 0));
    await page.waitForFunction((t) => window.vantage.state().tick >= t + 10, s.tick, { timeout: 20000 });
    await shot('horde-loss25');
    assert(errors.length === 0, 'errors: ' + errors.join(' | '));
  });

  suite.test('horde: the same seed gives the same checksum as native', async ({ page, base }) => {
    // Pinned in tests/playgrounds/horde_sim_test.cpp: 240 ticks at 60 Hz from seed 5.
    await openApp(page, base, 'horde/seed=5&enemies=400&loss=10&paused=1', 0);
    await step(page, 240);
    const sum = await page.evaluate(() => window.vantage.state().checksum);
    const expected = goldenChecksum('horde');
    assertEq(sum, expected, 'checksum after 240 ticks');
  });
}
