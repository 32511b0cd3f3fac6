import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/index.js';
import { failedFixture, NASTY_NAME } from './report-fixtures.js';
import { check } from '../../src/check.js';
import { recordTimelines } from '../../src/replay.js';
import { eventLoss } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { systemPackagesSettled } from '../helpers/system-packages.js';

/**
 * The HTML report in a real browser (Debian's chromium, driven by playwright-core): it renders
 * its charts from inlined code with no network, no console errors, escaped names, and hover
 * panels with trace entries. A screenshot lands in reports/html-report.png for a person to look at.
 */
const CHROMIUM = '/usr/bin/chromium';
await systemPackagesSettled();
const hasChromium = existsSync(CHROMIUM);
const reason = hasChromium ? '' : ` (SKIPPED: ${CHROMIUM} is not installed; apt-get install chromium, as .ci/run does)`;

describe(`the HTML report in headless Chromium${reason}`, () => {
  let context: BrowserContext | undefined;
  let file = '';
  let result: Awaited<ReturnType<typeof failedFixture>>['result'];

  beforeAll(async () => {
    if (!hasChromium) return;
    const fx = await failedFixture(true);
    result = fx.result;
    const timelines = fx.timelines;
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

    // hovering the activity chart where the fault fired shows that interval's marks and trace entries
    await page.locator('#activity .u-over').scrollIntoViewIfNeeded();
    const box = (await page.locator('#activity .u-over').boundingBox())!;
    const [from, to] = await page.evaluate(() => [Number(document.body.dataset['xMin']), Number(document.body.dataset['xMax'])]);
    const faultAt = result.run.trace.find((e) => e.type === 'fault:inject')!.t;
    await page.mouse.move(box.x + box.width * ((faultAt + 0.5 - from!) / (to! - from!)), box.y + box.height / 2);
    await expect.poll(() => page.locator('#hover-marks').textContent()).toMatch(/event-loss: /);
    expect(await page.locator('#hover-entries').textContent()).toMatch(/fault:inject kind=event-loss/);

    const shots = resolve('reports');
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'html-report.png'), fullPage: true });
    expect(readFileSync(join(shots, 'html-report.png')).length).toBeGreaterThan(10_000);

    expect(errors).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });

  it.skipIf(!hasChromium)('a short story opens zoomed on where it happens, in ms; drag zooms in, the buttons zoom back out', async () => {
    // the case: the whole minimal scenario acts in the first milliseconds of a 70 s run
    const options = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } }, faults: [eventLoss], properties: [convergence()], runs: 30, seed: 1 };
    const r = await check(edgeTriggered, options);
    if (r.ok) throw new Error('the edge-triggered controller should fail');
    const t = await recordTimelines(edgeTriggered, r.scenario, options, r.property);
    const dir = mkdtempSync(join(tmpdir(), 'steadystate-html-short-'));
    const short = writeReports(r, { dir, formats: ['html'], context: { objectTimelines: t.objects, converged: t.converged } }).files.html!;
    const page = await context!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(short).href);
    await page.waitForFunction(() => document.body.dataset['charts'] !== undefined, null, { timeout: 15_000 });
    // converged?, desired vs actual, activity
    expect(await page.evaluate(() => document.body.dataset['charts'])).toBe('3');
    const range = async () => page.evaluate(() => [Number(document.body.dataset['xMin']), Number(document.body.dataset['xMax'])]);
    expect(await range()).toEqual([0, 10]);
    const ticks = async () => (await page.locator('#activity .u-axis').first().innerText()).split('\n').filter((x) => x.trim() !== '');
    const shown = await ticks();
    expect(shown.every((x) => /^\d+(\.\d+)? ms$/.test(x)), shown.join(' ')).toBe(true);
    expect(Math.max(...shown.map((x) => Number.parseFloat(x)))).toBeLessThanOrEqual(10);
    expect(await page.locator('#range').textContent()).toBe('showing 0 ms … 10 ms of 70000 ms');

    const shots = resolve('reports');
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'html-short-story.png'), fullPage: true });

    // drag across the activity chart from 2 ms to 6 ms zooms every chart there
    await page.locator('#activity .u-over').scrollIntoViewIfNeeded();
    const box = (await page.locator('#activity .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const [min, max] = await range();
    expect(min).toBeCloseTo(2, 0);
    expect(max).toBeCloseTo(6, 0);
    await page.click('#zoom-all');
    expect(await range()).toEqual([0, 70_000]);
    await page.click('#zoom-window');
    expect(await range()).toEqual([0, 10]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it.skipIf(!hasChromium)('is one self-contained file: inlined chart library, a CSP that forbids fetching anything', () => {
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    expect(text).not.toMatch(/<script[^>]+src=/);
    expect(text).not.toMatch(/<link[^>]+href=/);
    expect(text).toContain('uPlot');
  });
});
