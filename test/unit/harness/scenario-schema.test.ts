import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario, type Scenario } from '../../../src/harness/scenario.js';
import { loadCorpus } from '../../../src/report/corpus.js';
import { parseReproductionFile, reproductionFormatVersion } from '../../../src/report/json.js';
import { version } from '../../../src/report/version.js';
import { simulate } from '../../../src/simulate.js';
import { check } from '../../../src/harness/check.js';
import { defineController } from '../../../src/runtime/define-controller.js';

const good: Scenario = {
  seed: 1,
  controllers: [{ name: 'web' }],
  initialObjects: [{ kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1 } }],
  workload: [{ at: 2000, type: 'update', kind: 'WebApp', key: 'default/web', spec: { replicas: 2 } }],
  faults: { events: [{ kind: 'event-loss', nth: 0 }], background: [] },
  options: { faultWindowMs: 5000, settleMs: 5000 },
};

/** `good` with one change made by `edit` on a deep copy. */
function bad(edit: (s: Record<string, any>) => void): unknown {
  const s = structuredClone(good) as Record<string, any>;
  edit(s);
  return s;
}

const web = defineController({ name: 'web', for: 'WebApp', reconcile: () => undefined });

describe('parseScenario (the one scenario schema)', () => {
  it('accepts a well-formed scenario unchanged', () => {
    expect(parseScenario(good)).toEqual(good);
  });

  const cases: [string, unknown, RegExp][] = [
    ['a time beyond any plan (at: 1e300)', bad((s) => (s['workload'][0].at = 1e300)), /scenario\.workload\[0\]\.at must be a number of virtual milliseconds between 0 and 604800000 \(7 days\), e\.g\. 2000; got 1e\+300/],
    ['a time that is not a number (at: "soon")', bad((s) => (s['workload'][0].at = 'soon')), /scenario\.workload\[0\]\.at must be a number of virtual milliseconds .*; got "soon"/],
    ['an unknown action type', bad((s) => (s['workload'][0].type = 'frobnicate')), /scenario\.workload\[0\]\.type unknown action type "frobnicate"; the action types are create, apply, update, patch, delete, reapply, recreate, deleteOwned, removeFinalizer/],
    ['empty metadata', bad((s) => (s['initialObjects'][0].metadata = {})), /scenario\.initialObjects\[0\]\.metadata\.name is required: every object needs metadata\.name/],
    ['a negative fault window', bad((s) => (s['options'].faultWindowMs = -1)), /scenario\.options\.faultWindowMs must be a number of virtual milliseconds .*; got -1/],
    ['a negative settle phase', bad((s) => (s['options'].settleMs = -5)), /scenario\.options\.settleMs must be a number of virtual milliseconds .*; got -5/],
    ['nth: -1', bad((s) => (s['faults'].events[0].nth = -1)), /scenario\.faults\.events\[0\]\.nth must be the 0-based occurrence the fault acts on \(a whole number ≥ 0\); got -1/],
    ['an unknown field (a typo)', bad((s) => (s['workload'][0].spce = {})), /scenario\.workload\[0\] has unknown field "spce"/],
    ['retry: true (only false is meaningful)', bad((s) => (s['workload'][0].retry = true)), /scenario\.workload\[0\]\.retry can only be false/],
    ['a background rate above 1', bad((s) => (s['faults'].background = [{ kind: 'event-loss', rate: 3 }])), /scenario\.faults\.background\[0\]\.rate must be a probability between 0 and 1; got 3/],
    ['a missing workload', bad((s) => delete s['workload']), /scenario\.workload is required \(a list\)/],
  ];
  for (const [name, value, message] of cases) {
    it(`rejects ${name}, naming the JSON path`, () => {
      expect(() => parseScenario(value, 'scenario')).toThrow(message);
    });
  }

  it('reports several problems in one paragraph (the first three, then a count)', () => {
    const v = bad((s) => {
      s['seed'] = 'x';
      s['workload'][0].at = -1;
      s['faults'].events[0].nth = 1.5;
      s['options'].settleMs = 'long';
    });
    let message = '';
    try {
      parseScenario(v, 'steadystate.test');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^steadystate\.test: scenario\.seed must be an integer seed; got "x"; .*; and 1 more problem\.$/);
    expect(message.split('\n')).toHaveLength(1);
  });
});

describe('every file people hand-edit goes through the same schema', () => {
  it('simulate refuses a malformed scenario before running it', async () => {
    await expect(simulate(bad((s) => (s['workload'][0].at = 'soon')) as Scenario, { controllers: [web] })).rejects.toThrow(/^steadystate\.simulate: scenario\.workload\[0\]\.at must be/);
  });

  it('simulate remembers the scenarios it validated by their JSON without the seed, and still refuses a bad seed or what the JSON does not show', async () => {
    const quick = { ...good, options: { faultWindowMs: 100, settleMs: 0 } };
    await simulate({ ...quick, seed: 1 }, { controllers: [web], tailMs: 0 });
    // the same scenario under another seed: only the seed is validated, and a bad one is refused with the schema's message
    await simulate({ ...quick, seed: 2 }, { controllers: [web], tailMs: 0 });
    await expect(simulate({ ...quick, seed: 1.5 }, { controllers: [web], tailMs: 0 })).rejects.toThrow(/^steadystate\.simulate: scenario\.seed must be an integer seed/);
    // the same JSON text, but values the text does not show: each goes to the schema
    const hidden = { ...quick };
    Object.defineProperty(hidden, 'environment', { value: [{ name: '' }], enumerable: false });
    await expect(simulate(hidden, { controllers: [web], tailMs: 0 })).rejects.toThrow(/scenario\.environment/);
    await expect(simulate({ ...quick, environment: undefined } as unknown as Scenario, { controllers: [web], tailMs: 0 })).rejects.toThrow(/scenario\.environment/);
    await expect(simulate({ ...quick, workload: [{ ...quick.workload[0]!, at: Number.NaN }] }, { controllers: [web], tailMs: 0 })).rejects.toThrow(/scenario\.workload\[0\]\.at/);
  });

  it('check refuses a malformed corpus scenario', async () => {
    await expect(check(web, { corpus: { scenarios: [bad((s) => (s['faults'].events[0].nth = -1)) as Scenario] } })).rejects.toThrow(/options\.corpus\.scenarios\[0\]\.faults\.events\[0\]\.nth must be/);
  });

  it('a reproduction file with a malformed scenario names the field', () => {
    const file = {
      type: 'steadystate/reproduction',
      steadystate: version,
      formatVersion: reproductionFormatVersion,
      controller: { name: 'web', source: null },
      property: { name: 'convergence', options: null },
      properties: ['convergence'],
      faults: ['event-loss'],
      code: [],
      inputs: null,
      summary: 's',
      explanation: 'e',
      evidence: {},
      seed: 1,
      path: '0',
      scenario: bad((s) => (s['workload'][0].at = 1e300)),
      originalScenario: good,
      runs: 1,
      failedAtRun: 1,
      shrinks: 0,
      traceHash: 'abc',
      determinism: { ok: true, hashes: ['a', 'a'] },
    };
    expect(() => parseReproductionFile(JSON.stringify(file), 'r.json')).toThrow(/^steadystate\.replay: r\.json: field scenario\.workload\[0\]\.at must be a number of virtual milliseconds .*got 1e\+300\. The file looks edited or truncated/);
  });

  it('the corpus skips an entry whose scenario is malformed, saying why', () => {
    const root = mkdtempSync(join(tmpdir(), 'ss-corpus-'));
    mkdirSync(join(root, 'web'));
    writeFileSync(join(root, 'web', 'a.json'), JSON.stringify({ type: 'steadystate/corpus-entry', steadystate: version, formatVersion: 1, controller: 'web', property: 'convergence', summary: 's', scenario: bad((s) => (s['workload'][0].type = 'frobnicate')) }));
    const loaded = loadCorpus(root, 'web');
    expect(loaded.scenarios).toEqual([]);
    expect(loaded.skipped[0]!.reason).toMatch(/a\.json: scenario\.workload\[0\]\.type unknown action type "frobnicate"/);
  });
});

describe('a scenario validated before: only its seed is checked again, as the schema checks it', () => {
  it('accepts the seeds the schema accepts and refuses the others, once the rest of the scenario is known', async () => {
    const { validateScenario } = await import('../../../src/simulate.js');
    const base = { controllers: [{ name: 'seed-check' }], initialObjects: [], workload: [], faults: { events: [], background: [] } };
    validateScenario({ ...base, seed: 1 } as Scenario);
    const verdicts = [0, -0, 7, -3, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e300].map((seed) => {
      let schema: boolean;
      try {
        parseScenario({ ...base, seed });
        schema = true;
      } catch {
        schema = false;
      }
      let fast: boolean;
      try {
        validateScenario({ ...base, seed } as Scenario);
        fast = true;
      } catch {
        fast = false;
      }
      return { seed, schema, fast };
    });
    for (const v of verdicts) expect(v.fast, `seed ${v.seed}`).toBe(v.schema);
    expect(verdicts.filter((v) => v.fast).map((v) => v.seed)).toEqual([0, -0, 7, -3, 2 ** 53 - 1, -(2 ** 53 - 1)]);
  });
});
