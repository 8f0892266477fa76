// Browser tests of the netcode playground: the real page, stepped deterministically
// (paused=1 + window.vantage.step()), settings moved through window.vantage.set.
import { assert, assertEq, openApp, goldenChecksum } from './harness.mjs';

async function step(page, ticks) {
  return page.evaluate((n) => { for (let i = 0; i < n; i++) window.vantage.step(); return window.vantage.state(); }, ticks);
}

export function register(suite) {
  suite.test('netcode: at 250 ms, switching prediction off and on moves the prediction error meter', async ({ page, base, errors, shot }) => {
    await openApp(page, base, 'netcode/seed=3&latency_ms=250&paused=1', 0);
    // The autopilot crosses open floor during seconds 1 to 4 (the wall comes later).
    let s = await step(page, 120);
    assertEq(s.settings.latency_ms, 250, 'latency_ms');
    const predicted = s.meters['on.prediction_error_px'];
    assert(predicted < 5, `with prediction the drawn player should be where the inputs put it (${predicted} px)`);
    await page.evaluate(() => window.vantage.set('prediction', 0));
    s = await step(page, 60);
    const waiting = s.meters['on.prediction_error_px'];
    assertEq(s.settings.prediction, 0, 'prediction');
    // Without prediction the player is drawn where the server had it a round trip ago: ~240 px/s x 0.5 s.
    assert(waiting > 80, `without prediction the error should be about a round trip of motion (${waiting} px)`);
    assert((await page.evaluate(() => location.hash)).includes('prediction=0'), 'the hash lacks prediction=0');
    await page.evaluate(() => window.vantage.set('prediction', 1));
    s = await step(page, 60);
    const again = s.meters['on.prediction_error_px'];
    assert(again < 5, `switching prediction back on should restore it (${again} px)`);
    // The lane with everything off never predicts.
    assert(s.meters['off.prediction_error_px'] > 80, `off lane reads ${s.meters['off.prediction_error_px']} px`);
    await shot('netcode');
    assert(errors.length === 0, 'errors: ' + errors.join(' | '));
  });

  suite.test('netcode: the same seed gives the same checksum as native', async ({ page, base }) => {
    // Pinned in tests/playgrounds/netcode_sim_test.cpp: 600 ticks at 60 Hz from seed 5.
    await openApp(page, base, 'netcode/seed=5&loss_pct=5&jitter_ms=20&paused=1', 0);
    const s = await step(page, 600);
    const expected = goldenChecksum('netcode');
    assertEq(s.checksum, expected, 'checksum after 600 ticks');
  });

  suite.test('netcode: a dependent toggle is kept but has no effect while its prerequisite is off', async ({ page, base }) => {
    await openApp(page, base, 'netcode/seed=2&interpolation=0&paused=1', 0);
    const s = await step(page, 120);
    assertEq(s.settings.adaptive_buffering, 1, 'adaptive_buffering (kept)');
    assertEq(s.meters['on.interp_delay_ms'], 0, 'interpolation delay with interpolation off');
  });
}
