// Black-hole playground in the real page: the aggregated lane at theta 0 is the full field,
// at theta 0.8 it sends less field while culling still throws the weight away. Stepped
// deterministically (paused=1 + window.vantage.step()), so the numbers do not depend on how
// fast the machine renders.
import { assert, assertEq, openApp, goldenChecksum } from './harness.mjs';

// A world big enough for aggregation to matter, small enough to step quickly in wasm.
const WORLD = 'seed=2&holes=64&pellets=1000&clients=2&paused=1';
const TICKS = 600;  // 10 simulated s: the 8 s bandwidth window holds only the current setting

async function stepAndRead(page, ticks) {
  return page.evaluate((n) => {
    for (let i = 0; i < n; i++) window.vantage.step();
    return window.vantage.state();
  }, ticks);
}

function checkThetaZero(m) {
  // theta 0 sends every hole exactly: the same bytes and the same pellets as the full lane.
  assertEq(m['aggregated.field_kib_s'], m['full.field_kib_s'], 'aggregated vs full field KiB/s at theta 0');
  assertEq(m['aggregated.kib_s'], m['full.kib_s'], 'aggregated vs full KiB/s at theta 0');
  assertEq(m['aggregated.error_median_px'], m['full.error_median_px'], 'aggregated vs full median error at theta 0');
  assertEq(m['aggregated.attractors'], m['full.attractors'], 'attractors at theta 0');
}

function checkFindings(zero, wide) {
  const f0 = zero['aggregated.field_kib_s'];
  const f8 = wide['aggregated.field_kib_s'];
  assert(f8 < 0.8 * f0, `aggregated field bandwidth did not drop: ${f0} KiB/s at theta 0, ${f8} at 0.8`);
  assert(wide['aggregated.attractors'] < wide['full.attractors'],
    `aggregated holds ${wide['aggregated.attractors']} attractors, full ${wide['full.attractors']}`);
  assert(wide['aggregated.force_evals_m_s'] < wide['full.force_evals_m_s'], 'aggregation did not cut force evaluations');
  // Aggregation keeps the weight culling throws away.
  assert(Math.abs(wide['aggregated.weight_pct'] - 100) < 0.5, `aggregated weight kept ${wide['aggregated.weight_pct']}%`);
  assert(wide['culled.weight_pct'] < 60, `culled weight kept ${wide['culled.weight_pct']}%`);
  assert(wide['culled.field_kib_s'] < wide['aggregated.field_kib_s'], 'culling should send the least field');
  // Culling breaks the local physics: its pellets drift further than the full field's.
  assert(wide['culled.error_median_px'] > wide['full.error_median_px'],
    `culled median ${wide['culled.error_median_px']} px vs full ${wide['full.error_median_px']} px`);
}

export function register(suite) {
  suite.test('blackhole: theta 0 then 0.8 via the URL', async ({ page, base, errors }) => {
    await openApp(page, base, `blackhole/${WORLD}&theta=0&disc_walk=0`, 0);
    const zero = await stepAndRead(page, TICKS);
    assertEq(zero.playground, 'blackhole', 'playground');
    assertEq(zero.settings.theta, 0, 'theta');
    checkThetaZero(zero.meters);
    await page.goto('about:blank');  // a fresh load, not a same-document hash change
    await openApp(page, base, `blackhole/${WORLD}&theta=0.8&disc_walk=0`, 0);
    const wide = await stepAndRead(page, TICKS);
    assertEq(wide.settings.theta, 0.8, 'theta');
    checkFindings(zero.meters, wide.meters);
    assert(errors.length === 0, 'errors: ' + errors.join(' | '));
  });

  suite.test('blackhole: theta 0 then 0.8 via window.vantage.set', async ({ page, base, errors, shot }) => {
    await openApp(page, base, `blackhole/${WORLD}`, 0);
    await page.evaluate(() => { window.vantage.set('theta', 0); window.vantage.set('disc_walk', 0); });
    const zero = await stepAndRead(page, TICKS);
    checkThetaZero(zero.meters);
    await page.evaluate(() => window.vantage.set('theta', 0.8));
    const hash = await page.evaluate(() => location.hash);
    assert(hash.includes('theta=0.8'), 'hash ' + hash);
    const wide = await stepAndRead(page, TICKS);
    assertEq(wide.settings.theta, 0.8, 'theta');
    assert(wide.time_s > zero.time_s, 'the world was rebuilt instead of continuing');
    checkFindings(zero.meters, wide.meters);
    // Let the view draw the state just stepped, then keep the picture for the README.
    const tick = wide.tick;
    await page.evaluate(() => window.vantage.set('paused', 0));
    await page.waitForFunction((t) => window.vantage.state().tick >= t + 30, tick, { timeout: 30000 });
    await shot('blackhole-theta-0.8');
    assert(errors.length === 0, 'errors: ' + errors.join(' | '));
  });

  suite.test('blackhole: the same seed gives the same checksum as native', async ({ page, base }) => {
    // Pinned in tests/playgrounds/blackhole_sim_test.cpp: 300 ticks at 60 Hz from seed 5.
    await openApp(page, base, 'blackhole/seed=5&pellets=400&clients=2&loss_pct=10&paused=1', 0);
    const s = await stepAndRead(page, 300);
    const expected = goldenChecksum('blackhole');
    assertEq(s.checksum, expected, 'checksum after 300 ticks');
  });
}
