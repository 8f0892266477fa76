// A small harness for the browser tests: one Chromium per run, a fresh page per test,
// console errors and page errors collected, results written as {tests, failures} JSON.
import { chromium } from 'playwright-core';
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { serve } from '../../web/serve.mjs';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--use-gl=angle', '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
  // WebRTC on 127.0.0.1 (the rooms' DataChannels): headless Chromium needs both, or no pair forms.
  '--allow-loopback-in-peer-connection', '--disable-features=WebRtcHideLocalIpsWithMdns'];

export async function launch() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}

// Thrown by a test that cannot run here (a missing privilege or tool): counted as skipped,
// never as passed, with the reason printed.
export class Skip extends Error {}
export function skip(reason) { throw new Skip(reason); }

export class Suite {
  constructor(siteDir, reportPath) {
    this.siteDir = siteDir;
    this.reportPath = reportPath;
    this.shotDir = dirname(reportPath);
    this.tests = [];
  }
  test(name, fn) { this.tests.push({ name, fn }); }

  async run() {
    const server = await serve(this.siteDir, 0);
    this.base = `http://127.0.0.1:${server.address().port}/`;
    const browser = await launch();
    let failures = 0;
    let skipped = 0;
    // VANTAGE_BROWSER_ONLY=regex runs the matching tests only (while working on one).
    if (process.env.VANTAGE_BROWSER_ONLY) {
      const only = new RegExp(process.env.VANTAGE_BROWSER_ONLY);
      this.tests = this.tests.filter((t) => only.test(t.name));
    }
    for (const t of this.tests) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
      page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
      const started = Date.now();
      try {
        await t.fn({ page, errors, base: this.base, shot: (name) => this.shot(page, name) });
        console.log(`  ok    ${t.name} (${Date.now() - started} ms)`);
      } catch (e) {
        if (e instanceof Skip) {
          skipped++;
          console.log(`  skip  ${t.name}: ${e.message}`);
          await context.close();
          continue;
        }
        failures++;
        console.log(`  FAIL  ${t.name}: ${e.message}`);
        if (errors.length) console.log('        page errors: ' + errors.join(' | '));
        await this.shot(page, 'failed-' + t.name.replace(/\W+/g, '-')).catch(() => {});
      }
      await context.close();
    }
    await browser.close();
    server.close();
    mkdirSync(dirname(this.reportPath), { recursive: true });
    writeFileSync(this.reportPath, JSON.stringify({ tests: this.tests.length, failures, skipped }));
    console.log(`browser: ${this.tests.length - failures - skipped} passed, ${failures} failed, ${skipped} skipped`);
    return failures;
  }

  async shot(page, name) {
    mkdirSync(this.shotDir, { recursive: true });
    const path = `${this.shotDir}/${name}.png`;
    await page.screenshot({ path });
    return path;
  }
}

export function assert(cond, msg) { if (!cond) throw new Error(msg); }
export function assertEq(a, b, msg) { if (a !== b) throw new Error(`${msg}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`); }

// Opens the page at `hash` and waits until the app has run `frames` ticks.
export async function openApp(page, base, hash = '', ticks = 30) {
  await page.goto(base + (hash ? '#' + hash : ''));
  await page.waitForFunction(() => window.vantage && window.vantage.ready, null, { timeout: 30000 });
  await page.waitForFunction((n) => window.vantage.state().tick >= n, ticks, { timeout: 30000 });
}

// The golden checksum a playground pins for every platform (tests/playgrounds/golden_<name>_checksum.txt).
export function goldenChecksum(name) {
  return readFileSync(new URL(`../playgrounds/golden_${name}_checksum.txt`, import.meta.url), 'utf8').trim();
}
