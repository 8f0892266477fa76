// The stories match the screen: every preset of every playground, run to its moment on a
// projector (1280x720 at UI scale 1.5), quotes in its verdict only figures that a lane or the
// table shows at that moment, as the same number with the same unit, in the readout of the
// meter it names (so "CrossLink spends 1,500 operations per creature" is CrossLink's row, not
// the dense bin's). Each tour step's watched meters are on screen the same way. The page says
// which readout shows which meters (window.vantage.layout().texts: [name, shown, [meter...]]).
import { readFileSync } from 'node:fs';
import { assert } from './harness.mjs';

const presetsDir = new URL('../../assets/presets/', import.meta.url);

// [name] sections of key = value lines, as playgrounds/common/preset.hpp describes them.
function sections(file) {
  const out = [];
  for (const raw of readFileSync(new URL(file, presetsDir), 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const head = line.match(/^\[(.+)\]$/);
    if (head) { out.push({ name: head[1] }); continue; }
    const kv = line.match(/^(\w+)\s*=\s*(.*)$/);
    if (kv && out.length) out[out.length - 1][kv[1]] = kv[2];
  }
  return out;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NUMBER = '(-?[\\d,]+(?:\\.\\d+)?|n/a)';
const UNITS = ['%', 'px', 'KiB/s', 'ms', 'cells'];

// Each {meter} of a verdict template with the figure the filled text printed for it and the
// unit that follows it ("%", "px", ... or '').
export function quotedFigures(template, text) {
  const parts = template.split(/\{([^}]+)\}/);
  let pattern = '';
  const meters = [];
  for (let i = 0; i < parts.length; i++) {
    if (i % 2) { pattern += NUMBER; meters.push(parts[i]); } else pattern += escape(parts[i]);
  }
  const m = text.match(new RegExp(pattern));
  if (!m) return null;
  return meters.map((meter, k) => {
    const after = parts[2 * k + 2].trimStart();
    const unit = UNITS.find((u) => after.startsWith(u)) || '';
    return { meter, figure: m[k + 1], unit };
  });
}

// The figure as a whole number token of `shown`, followed by its unit when it has one.
export function shows(shown, figure, unit) {
  const re = new RegExp(`(^|[^\\d.,])${escape(figure)}(?![\\d,]|\\.\\d)${unit ? `\\s?${escape(unit)}` : ''}`);
  return re.test(shown);
}

const projector = async (page, base, playground) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  if (!(await page.evaluate(() => window.vantage && window.vantage.ready))) {
    await page.goto(`${base}#${playground}/paused=1`);
    await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
  }
  await page.evaluate((name) => { window.vantage.set('playground', name); window.vantage.set('paused', 1); }, playground);
  await page.evaluate(() => window.vantage.uiScale(1.5));
  await page.waitForFunction(() => window.vantage.uiScale() === 1.5);
};

// Two frames drawn after the last change: the layout read is of what is on screen.
const drawn = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// A reading as the page's verdicts and tours print it (plain_number in preset.cpp).
export function plainNumber(v) {
  if (!Number.isFinite(v)) return 'n/a';
  const a = Math.abs(v);
  if (a >= 10 || v === Math.floor(v)) {
    const digits = v.toFixed(0);
    const sign = digits[0] === '-' ? 1 : 0;
    return digits.length - sign > 4 ? digits.slice(0, sign) + Number(digits.slice(sign)).toLocaleString('en-US') : digits;
  }
  return v.toFixed(a >= 1 ? 1 : a >= 0.01 ? 2 : 4);
}

// One problem per figure that the screen does not show as quoted.
function compare(l, quoted, where) {
  const problems = [];
  for (const q of quoted) {
    const readouts = l.texts.filter((t) => t[0] !== 'tour' && !t[3] && (t[2] || []).includes(q.meter));
    if (!readouts.length) {
      problems.push(`${where}: ${q.meter} (${q.figure}${q.unit}) is on no visible readout`);
    } else if (!readouts.some((t) => shows(t[1], q.figure, q.unit))) {
      problems.push(`${where}: ${q.meter} reads ${q.figure}${q.unit ? ' ' + q.unit : ''} in the text, ` +
        `the screen shows ${readouts.map((t) => `${t[0]} '${t[1]}'`).join(', ')}`);
    }
  }
  return problems;
}

export function register(suite) {
  for (const playground of ['blackhole', 'horde', 'meter', 'netcode', 'proximity']) {
    suite.test(`stories: every ${playground} verdict quotes what the projector shows`, async ({ page, base }) => {
      await projector(page, base, playground);
      const problems = [];
      for (const p of sections(`${playground}.ini`)) {
        const ticks = Math.round(Number(p.seconds) * 60);
        const state = await page.evaluate(([name, n]) => {
          window.vantage.set('preset', name);
          window.vantage.set('paused', 1);
          for (let i = 0; i < n; i++) window.vantage.step();
          return window.vantage.state();
        }, [p.name, ticks]);
        if (!state.preset || state.preset.verdict !== 'holds') {
          problems.push(`${p.name}: ${state.preset ? state.preset.verdict + ': ' + state.preset.text : 'no preset'}`);
          continue;
        }
        await drawn(page);
        const l = await page.evaluate(() => window.vantage.layout());
        assert(l.verdict && l.verdict[3] <= 720, `${p.name}: the verdict is not on screen (${l.verdict})`);
        const quoted = quotedFigures(p.verdict, state.preset.text);
        if (!quoted) { problems.push(`${p.name}: '${state.preset.text}' does not follow '${p.verdict}'`); continue; }
        problems.push(...compare(l, quoted, p.name));
      }
      assert(!problems.length, '\n        ' + problems.join('\n        '));
    });
  }

  suite.test('stories: every tour step\'s watched meters are on the projector\'s screen, as the tour prints them', async ({ page, base }) => {
    const problems = [];
    for (const playground of ['blackhole', 'horde', 'meter', 'netcode', 'proximity']) {
      await projector(page, base, playground);
      for (const step of sections(`${playground}-tour.ini`)) {
        const state = await page.evaluate(([settings]) => {
          for (const part of (settings || '').split('&').filter(Boolean)) {
            const [k, v] = part.split('=');
            window.vantage.set(k, v);
          }
          for (let i = 0; i < 120; i++) window.vantage.step();
          return window.vantage.state();
        }, [step.settings]);
        await drawn(page);
        const l = await page.evaluate(() => window.vantage.layout());
        // The tour prints each watched meter as plain_number does: the verdicts' format.
        const quoted = (step.watch || '').split(/\s+/).filter(Boolean)
          .map((meter) => ({ meter, figure: plainNumber(state.meters[meter]), unit: '' }));
        problems.push(...compare(l, quoted, `${playground}/${step.name}`));
      }
    }
    assert(!problems.length, '\n        ' + problems.join('\n        '));
  });
}
