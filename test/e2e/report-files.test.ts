import { mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allReportFormats, writeReports } from '../../src/report/index.js';
import { json, parseReproductionFile, reproductionFormatVersion, ReproductionFileError, toReproductionFile } from '../../src/report/json.js';
import { junit, toJunitReport } from '../../src/report/junit.js';
import { markdown } from '../../src/report/markdown.js';
import { buildTimeline, toReportModel, type FailedReportModel } from '../../src/report/result.js';
import { version } from '../../src/report/version.js';
import { loadCorpus, saveToCorpus } from '../../src/report/corpus.js';
import { ReportWriteError, safeFileName, writeAtomic } from '../../src/report/write-atomic.js';
import { failedFixture, NASTY_NAME, passedFixture } from './report-fixtures.js';

/** The report writers (JSON, Markdown, JUnit; HTML has its own browser test), atomic writes and the corpus. */

const tmp = (): string => mkdtempSync(join(tmpdir(), 'steadystate-report-'));

async function failedModel(nasty = false): Promise<FailedReportModel> {
  const { result, timelines } = await failedFixture(nasty);
  const m = toReportModel(result, { objectTimelines: timelines, source: { module: 'src/edge.ts', exportName: 'edgeTriggered' }, reproductionPath: 'reports/x.json' });
  if (m.ok) throw new Error('fixture should fail');
  return m;
}

describe('writeReports', () => {
  it('writes the four formats of a failure under safe names, and no temporary files', async () => {
    const dir = tmp();
    const { result, timelines } = await failedFixture();
    const { files, model } = writeReports(result, { dir: join(dir, 'nested', 'reports'), context: { objectTimelines: timelines } });
    expect(Object.keys(files).sort()).toEqual([...allReportFormats].sort());
    expect(readdirSync(join(dir, 'nested', 'reports')).sort()).toEqual(['edge-triggered-convergence-42.html', 'edge-triggered-convergence-42.json', 'edge-triggered-convergence-42.junit.xml', 'edge-triggered-convergence-42.md']);
    expect(model.ok).toBe(false);
    // written from a bare result, no module is known: the command says to pass one
    if (!model.ok) expect(model.replay.command).toBe(`npx steadystate replay ${files.json} --module <your controller module>`);
  });

  it('writes no reproduction for a passing check, only the summaries', () => {
    const dir = tmp();
    const { files } = writeReports(passedFixture(), { dir });
    expect(files.json).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(['level-triggered-pass.html', 'level-triggered-pass.junit.xml', 'level-triggered-pass.md']);
    expect(readFileSync(join(dir, 'level-triggered-pass.md'), 'utf8')).toMatch(/# steadystate: `level-triggered` passes/);
  });

  it('throws a ReportWriteError naming the path and the fix when the directory cannot be written', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'file'), 'x');
    const { result } = await failedFixture();
    expect(() => writeReports(result, { dir: join(dir, 'file', 'reports') })).toThrow(ReportWriteError);
    expect(() => writeReports(result, { dir: join(dir, 'file', 'reports') })).toThrow(/cannot write .*file\/reports.*a path component is a file.*--report-dir/);
  });
});

describe('writeAtomic and safeFileName', () => {
  it('replaces a file whole and leaves no temporary files behind', () => {
    const dir = tmp();
    writeAtomic(join(dir, 'a.json'), 'first');
    writeAtomic(join(dir, 'a.json'), 'second');
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('second');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('makes any name safe: no separators, no leading dots, no device names, bounded length, no collisions', () => {
    const names = ['../../etc/passwd', 'default/web', 'default_web', 'CON', '.hidden', NASTY_NAME, 'x'.repeat(300), 'ünïcödé name', ''];
    const safe = names.map(safeFileName);
    for (const s of safe) {
      expect(s).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
      expect(s.length).toBeLessThanOrEqual(96);
      expect(s.split('.')[0]!.toLowerCase()).not.toBe('con');
    }
    expect(new Set(safe).size).toBe(names.length);
    expect(safeFileName('web-convergence-42')).toBe('web-convergence-42');
  });
});

describe('the reproduction file (JSON)', () => {
  it('is versioned and self-contained, and parses back to the same data', async () => {
    const m = await failedModel();
    const text = json(m);
    const data = parseReproductionFile(text, 'x.json');
    expect(data).toEqual(toReproductionFile(m));
    expect(data).toMatchObject({ type: 'steadystate/reproduction', steadystate: version, formatVersion: reproductionFormatVersion, controller: { name: 'edge-triggered', source: { module: 'src/edge.ts', exportName: 'edgeTriggered' } }, property: { name: 'convergence' }, seed: 42, path: '3:0:0' });
    expect(data.scenario.faults.events).toEqual([{ kind: 'event-loss', nth: 0 }]);
    expect(data.traceHash).toMatch(/^[0-9a-f]{8}$/);
  });

  it('refuses other versions and malformed files with the field and the fix', async () => {
    const text = json(await failedModel());
    const other = text.replace(`"steadystate": "${version}"`, '"steadystate": "9.9.9"');
    expect(() => parseReproductionFile(other, 'r.json')).toThrow(ReproductionFileError);
    expect(() => parseReproductionFile(other, 'r.json')).toThrow(/written by steadystate 9\.9\.9 .*this is steadystate/);
    // a file of the format before (2: traces of runs cut by the step budget changed with format 3) is refused
    expect(() => parseReproductionFile(text.replace(`"formatVersion": ${reproductionFormatVersion}`, '"formatVersion": 2'), 'r.json')).toThrow(new RegExp(`format 2.*format ${reproductionFormatVersion}`));
    expect(() => parseReproductionFile(text.replace('"traceReads": true', '"traceReads": "yes"'), 'r.json')).toThrow(/field inputs\.traceReads must be a boolean/);
    expect(() => parseReproductionFile(text.replace(/"seed": 42/, '"seed": "42"'), 'r.json')).toThrow(/field seed must be a number/);
    expect(() => parseReproductionFile('[1,2]', 'r.json')).toThrow(/is not a steadystate reproduction/);
    expect(() => parseReproductionFile('{', 'r.json')).toThrow(/is not valid JSON/);
  });

  it('the version constant matches package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version).toBe(pkg.version);
  });
});

describe('the Markdown summary', () => {
  it('has the property, explanation, minimal plan, a timeline table, the replay command and a vitest snippet', async () => {
    const md = markdown(await failedModel());
    expect(md).toMatch(/^# steadystate: `edge-triggered` fails \*\*convergence\*\*/);
    expect(md).toContain('## Explanation');
    expect(md).toMatch(/Let: .*\n?Then: /);
    expect(md).toMatch(/\| 1 \| event-loss \| 0 \|/);
    expect(md).toMatch(/\| t=0\.001s \| fault:inject kind=event-loss .*nth=0/);
    expect(md).toContain('npx steadystate replay reports/x.json');
    // a complete regression test beside the module, importing it as TypeScript's NodeNext wants
    expect(md).toContain('saved as `src/x.test.ts`');
    expect(md).toContain("import { expect, test } from 'vitest';\nimport 'steadystate/vitest';\nimport { edgeTriggered } from './edge.js';");
    expect(md).toContain('  await expect(edgeTriggered).toPassReproduction("reports/x.json");');
  });

  it('escapes markup and table pipes in user-controlled names', async () => {
    const md = markdown(await failedModel(true));
    expect(md).not.toContain('<img');
    expect(md).toContain('&lt;img src=x onerror=');
    expect(md).toMatch(/&amp;amp;\\\|pipe/);
  });
});

describe('the JUnit XML', () => {
  it('has one test case per controller × property, the failing one with the explanation and replay command', async () => {
    const m = await failedModel();
    const report = toJunitReport([m, toReportModel(passedFixture())]);
    expect(report.suites.map((s) => [s.name, s.cases.map((c) => [c.name, c.failure !== null])])).toEqual([
      ['steadystate edge-triggered', [['convergence', true], ['idempotence', false]]],
      ['steadystate level-triggered', [['convergence', false], ['idempotence', false]]],
    ]);
    const xml = junit([m, toReportModel(passedFixture())]);
    expect(xml).toMatch(/<testsuites name="steadystate" tests="4" failures="1"/);
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml).toMatch(/<failure message="[^"]*did not converge[^"]*" type="convergence">Let: /);
    expect(xml).toContain('Replay: npx steadystate replay reports/x.json');
  });

  it('escapes names in attributes and text', async () => {
    const xml = junit(await failedModel(true));
    expect(xml).not.toContain('<img');
    expect(xml).not.toContain('<b>');
    // every attribute value is free of raw quotes and angle brackets
    for (const m of xml.matchAll(/ (?:name|message|classname|type|value)="([^"]*)"/g)) expect(m[1]).not.toMatch(/[<>]/);
  });
});

describe('the timeline model', () => {
  it('counts writes, reconciles and faults per second of virtual time and marks faults and phases', async () => {
    const { result, timelines } = await failedFixture();
    const tl = buildTimeline(result.run, timelines);
    const writes = result.run.trace.filter((e) => e.type === 'store:write').length;
    const reconciles = result.run.trace.filter((e) => e.type === 'reconcile:start').length;
    // the story acts in its first milliseconds: fine buckets, a ms axis, a window opened on it
    expect(tl.window).toEqual({ from: 0, to: 10 });
    expect(tl.unit).toBe('ms');
    expect(tl.bucketMs).toBe(1);
    const perBucket = tl.bucketMs / 1000;
    expect(tl.buckets.reduce((n, b) => n + b.storeWrites * perBucket, 0)).toBeCloseTo(writes);
    expect(tl.buckets.reduce((n, b) => n + b.reconciles * perBucket, 0)).toBeCloseTo(reconciles);
    expect(tl.faults).toEqual([{ t: 1, label: 'event-loss', detail: expect.stringMatching(/fault:inject kind=event-loss .*nth=0/) }]);
    expect(tl.phases.map((p) => p.label)).toEqual(['faults', 'settle', 'tail']);
    expect(tl.objects).toHaveLength(1);
    const o = tl.objects[0]!;
    expect(o.fields).toEqual(['replicas']);
    expect(o.desired[0]!.every((v) => v === 3)).toBe(true);
    expect(o.actual[0]![0]).toBe(0);
    expect(o.actual[0]![o.actual[0]!.length - 1]).toBe(3);
    expect(o.t[o.t.length - 1]).toBe(result.run.timing.end);
  });
});

describe('the compact timeline', () => {
  it('collapses repeated events into one row and lists downstream requests', async () => {
    const { defineController } = await import('../../src/runtime/define-controller.js');
    const { fakeRestService } = await import('../../src/downstream/fake-rest-service.js');
    const { check } = await import('../../src/check.js');
    const { noHotLoop } = await import('../../properties/no-hot-loop.js');
    const looper = defineController({
      name: 'looper',
      for: 'Site',
      async reconcile(ctx) {
        const site = await ctx.client.tryGet<{ v: number }, { observedGeneration?: number; lastSyncTime?: number }>('Site', ctx.key);
        if (!site) return;
        await ctx.fetch('https://api.example/v1/items?site=a');
        await ctx.client.updateStatus({ ...site, status: { observedGeneration: site.metadata.generation, lastSyncTime: ctx.clock.now() } });
      },
    });
    const r = await check(looper, { objects: { kind: 'Site', spec: [{ v: 1 }] }, runs: 1, seed: 1, faults: [], properties: [noHotLoop()], shrink: false, downstream: () => ({ services: [fakeRestService({ baseUrl: 'https://api.example/v1' })] }) });
    const m = toReportModel(r);
    if (m.ok) throw new Error('the looper should fail');
    const rows = m.timeline.rows.map((x) => x.what);
    expect(rows.some((w) => /^×[\d,]+ store:write kind=Site actor=controller:looper\/0 verb=updateStatus key=default\/site-0 changed=\["status\.lastSyncTime"\] noop=false, every 1 ms/.test(w)), rows.join('\n')).toBe(true);
    expect(rows.some((w) => /^×[\d,]+ downstream:request actor=controller:looper\/0 method=GET url=https:\/\/api\.example\/v1\/items\?site=a/.test(w)), rows.join('\n')).toBe(true);
    expect(m.timeline.rows.length).toBeLessThan(15);
    expect(markdown(m)).toMatch(/\| ×[\d,]+ store:write kind=Site/);
  });
});

describe('the regression corpus', () => {
  it('saves failing scenarios once each and loads them back for the same controller only', async () => {
    const root = tmp();
    const { result } = await failedFixture();
    const entry = { controller: 'edge-triggered', property: 'convergence', summary: result.summary, scenario: result.scenario };
    const a = saveToCorpus(root, entry);
    const b = saveToCorpus(root, entry);
    expect(a).toBe(b);
    saveToCorpus(root, { ...entry, scenario: result.originalScenario });
    saveToCorpus(root, { ...entry, controller: 'other' });
    mkdirSync(join(root, 'edge-triggered'), { recursive: true });
    writeFileSync(join(root, 'edge-triggered', 'zz-garbage.json'), '{ nope');
    const loaded = loadCorpus(root, 'edge-triggered');
    expect(loaded.scenarios).toHaveLength(2);
    expect(loaded.scenarios).toContainEqual(result.scenario);
    expect(loaded.skipped).toEqual([{ file: join(root, 'edge-triggered', 'zz-garbage.json'), reason: expect.any(String) }]);
    expect(loadCorpus(root, 'nobody').scenarios).toEqual([]);
  });
});
