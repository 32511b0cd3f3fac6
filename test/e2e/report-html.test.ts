import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/index.js';
import { failedFixture, NASTY_NAME } from './report-fixtures.js';

/**
 * The HTML report in a real browser (Debian's chromium, driven by playwright-core): it renders
 * its charts from inlined code with no network, no console errors, escaped names, and hover
 * panels with trace entries. A screenshot lands in reports/html-report.png for a person to look at.
 */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const reason = hasChromium ? '' : ` (SKIPPED: ${CHROMIUM} is not installed; apt-get install chromium, as .ci/run does)`;

describe(`the HTML report in headless Chromium${reason}`, () => {
  let context: BrowserContext | undefined;
  let file = '';

  beforeAll(async () => {
    if (!hasChromium) return;
    const { result, timelines } = await failedFixture(true);
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-html-'));
    file = writeReports(result, { dir, formats: ['html'], context: { objectTimelines: timelines } }).files.html!;
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'steadystate-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  it.skipIf(!hasChromium)('renders every chart with no console errors and no network, escapes names, and shows trace entries on hover', async () => {
    const page = await context!.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => document.body.dataset['charts'] !== undefined, null, { timeout: 15_000 });

    // one desired-vs-actual chart per object plus the activity chart, each with pixels drawn
    expect(await page.evaluate(() => document.body.dataset['charts'])).toBe('2');
    const inked = await page.evaluate(() =>
      [...document.querySelectorAll('canvas')].map((c) => {
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
        return n;
      }),
    );
    expect(inked).toHaveLength(2);
    for (const n of inked) expect(n).toBeGreaterThan(1000);
    await expect(page.locator('.object-chart .chart-title').first().textContent()).resolves.toContain('desired vs actual');
    expect(await page.locator('.u-legend').first().textContent()).toMatch(/desired replicas.*actual replicas/);

    // hostile names are text, never markup or script
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('header .summary').textContent()).toContain(NASTY_NAME);

    // hovering the activity chart near t=20 s shows that second's trace entries
    const box = (await page.locator('#activity .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width * (20.5 / 30), box.y + box.height / 2);
    await expect.poll(() => page.locator('#hover-time').textContent()).toMatch(/t = 20\.0 s/);
    expect(await page.locator('#hover-entries').textContent()).toMatch(/reconcile:start controller=nasty-edge/);

    const shots = resolve('reports');
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'html-report.png'), fullPage: true });
    expect(readFileSync(join(shots, 'html-report.png')).length).toBeGreaterThan(10_000);

    expect(errors).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });

  it.skipIf(!hasChromium)('is one self-contained file: inlined chart library, a CSP that forbids fetching anything', () => {
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    expect(text).not.toMatch(/<script[^>]+src=/);
    expect(text).not.toMatch(/<link[^>]+href=/);
    expect(text).toContain('uPlot');
  });
});
