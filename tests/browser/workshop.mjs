// Browser tests of the page as a workshop uses it: a projector (1280x720 at UI scale 1.5), a
// phone (390x844, device scale 3, touch), and the UI scale's buttons. They read where the page
// drew its parts and which readouts a person can see (window.vantage.layout()).
import { assert, assertEq, openApp } from './harness.mjs';

const layout = (page) => page.evaluate(() => window.vantage.layout());
const centre = (r) => ({ x: (r[0] + r[2]) / 2, y: (r[1] + r[3]) / 2 });
// The visible readouts named `name`, in drawing order (one per lane).
const shown = (l, name) => l.texts.filter((t) => t[0] === name).map((t) => t[1]);

export function register(suite) {
  suite.test('workshop: the UI scale\'s + steps once per press, however long it is held, and is remembered', async ({ page, base }) => {
    await openApp(page, base, 'meter');
    assertEq(await page.evaluate(() => window.vantage.uiScale()), 1, 'scale at first');
    const plus = centre((await layout(page))['ui_scale.plus']);
    await page.mouse.move(plus.x, plus.y);
    await page.mouse.down();
    await page.waitForTimeout(700);  // the old slider ran away while held
    await page.mouse.up();
    await page.waitForTimeout(300);
    assertEq(await page.evaluate(() => window.vantage.uiScale()), 1.25, 'scale after one long press');
    const again = centre((await layout(page))['ui_scale.plus']);  // the bar grew: it moved
    await page.mouse.click(again.x, again.y);
    await page.waitForFunction(() => window.vantage.uiScale() === 1.5, null, { timeout: 3000 });
    await page.reload();
    await page.waitForFunction(() => window.vantage && window.vantage.ready);
    assertEq(await page.evaluate(() => window.vantage.uiScale()), 1.5, 'scale after reload');
  });

  suite.test('workshop: at 1280x720 x1.5 the black-hole verdict and the figures it quotes are on screen', async ({ page, base, shot }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openApp(page, base, 'blackhole/preset=aggregation-keeps-the-pull&paused=1', 0);
    await page.evaluate(() => window.vantage.uiScale(1.5));
    await page.waitForFunction(() => window.vantage.uiScale() === 1.5);
    const p = await page.evaluate(() => {
      window.vantage.set('preset', 'aggregation-keeps-the-pull');
      window.vantage.set('paused', 1);
      for (let i = 0; i < 600; i++) window.vantage.step();
      return window.vantage.state().preset;
    });
    assertEq(p.verdict, 'holds', 'verdict: ' + p.text);
    await page.waitForTimeout(400);
    const l = await layout(page);
    assert(l.verdict && l.verdict[3] <= 720, `verdict at ${l.verdict}`);
    const weight = shown(l, 'weight kept'), error = shown(l, 'pellet error');
    assertEq(weight.length, 3, 'lanes showing "weight kept": ' + JSON.stringify(l.texts));
    assertEq(error.length, 3, 'lanes showing "pellet error"');
    // "the aggregated lane keeps 100% of the weight ...; its pellets are 32 px off, the full
    // field's 32, the culled lane's 113."
    const m = p.text.match(/keeps (\d+)% of the weight.* are (\d+) px off, the full field's (\d+), the culled lane's (\d+)/);
    assert(m, 'verdict text: ' + p.text);
    assert(weight[2].startsWith(`${m[1]}%`), `aggregated weight kept ${weight[2]} vs the verdict's ${m[1]}%`);
    assert(error[2].startsWith(`${m[2]} px`), `aggregated pellet error ${error[2]} vs the verdict's ${m[2]} px`);
    assert(error[0].startsWith(`${m[3]} px`), `full field's pellet error ${error[0]} vs the verdict's ${m[3]} px`);
    assert(error[1].startsWith(`${m[4]} px`), `culled lane's pellet error ${error[1]} vs the verdict's ${m[4]} px`);
    await shot('workshop-blackhole-1280x720x1.5');
  });

  suite.test('workshop: a phone shows one horde lane across its width, its readouts, and the settings behind a button', async ({ page, base, shot }) => {
    const context = await page.context().browser().newContext({
      viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const phone = await context.newPage();
    try {
      await openApp(phone, base, 'horde', 30);
      await phone.waitForTimeout(300);
      let l = await layout(phone);
      assert(l['horde.lane'] && l['horde.lane'][2] - l['horde.lane'][0] > 330, `lane at ${l['horde.lane']}`);
      assert(!l.sidebar, 'the settings are open at first');
      for (const name of ['held', 'phantoms', 'error']) assertEq(shown(l, name).length, 1, `readout '${name}' shown`);
      const doc = await phone.evaluate(() => ({ w: document.documentElement.scrollWidth, c: window.innerWidth }));
      assert(doc.w <= doc.c, `the page scrolls sideways: ${doc.w} > ${doc.c}`);
      await phone.screenshot({ path: `${suite.shotDir}/workshop-phone-horde.png` });
      // A tap is a touch start and end; on a slow frame (software GL, 20k vertices) the page
      // may see both between two frames, so tap until the panel opens (at most three times).
      const b = centre(l['settings.button']);
      for (let i = 0; i < 3 && !l.sidebar; i++) {
        await phone.touchscreen.tap(b.x, b.y);
        await phone.waitForFunction(() => window.vantage.layout().sidebar, null, { timeout: 2500 }).catch(() => {});
        l = await layout(phone);
      }
      assert(l.sidebar && l.sidebar[2] - l.sidebar[0] > 330, `settings panel at ${l.sidebar}`);
      await phone.screenshot({ path: `${suite.shotDir}/workshop-phone-settings.png` });
    } finally {
      await context.close();
    }
  });

  suite.test('workshop: on a phone every tab shows one lane across the width, its readouts whole, the clock readable', async ({ page, base }) => {
    const context = await page.context().browser().newContext({
      viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const phone = await context.newPage();
    const problems = [];
    try {
      await openApp(phone, base, 'meter', 10);
      for (const tab of ['blackhole', 'horde', 'meter', 'netcode', 'proximity']) {
        await phone.evaluate((name) => window.vantage.set('playground', name), tab);
        await phone.waitForFunction(() => window.vantage.state().tick >= 20, null, { timeout: 20000 });
        await phone.waitForTimeout(300);
        const l = await layout(phone);
        const lane = l.lane;
        if (!lane || lane[2] - lane[0] < 330 || lane[2] > 390.5) problems.push(`${tab}: the lane is at ${lane}`);
        const readouts = l.texts.filter((t) => !['clock', 'tour'].includes(t[0]));
        if (readouts.length < 3) problems.push(`${tab}: ${readouts.length} readouts on screen: ${JSON.stringify(l.texts)}`);
        for (const t of l.texts.filter((t) => t[3])) problems.push(`${tab}: '${t[0]}' is cut: '${t[1]}'`);
        if (!l.texts.some((t) => t[0] === 'clock' && !t[3])) problems.push(`${tab}: the clock is not shown whole`);
        const doc = await phone.evaluate(() => ({ w: document.documentElement.scrollWidth, c: window.innerWidth }));
        if (doc.w > doc.c) problems.push(`${tab}: the page scrolls sideways (${doc.w} > ${doc.c})`);
        await phone.screenshot({ path: `${suite.shotDir}/workshop-phone-${tab}.png` });
      }
    } finally {
      await context.close();
    }
    assert(!problems.length, '\n        ' + problems.join('\n        '));
  });
}
