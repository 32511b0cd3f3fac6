import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { failureOf } from '../helpers/failure-of.js';
import type { ToPassCheckOptions } from '../../src/vitest/index.js';
import { checkMatchers } from '../../src/vitest/index.js';
import { check } from '../../src/check.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { eventLoss } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { idempotence } from '../../properties/idempotence.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { proofLayout } from '../../src/report/result.js';
import { tempDir } from './cli-helpers.js';

/** The `steadystate/vitest` matchers: quiet when passing, a replay line first when failing. */

const objects = { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } };
const options = { objects, runs: 30, seed: 1, faults: [eventLoss], properties: [convergence(), idempotence()] };

/** Every console method, to prove a passing check prints nothing. */
let spies: ReturnType<typeof vi.spyOn>[] = [];
beforeEach(() => {
  spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m));
});
afterEach(() => {
  for (const s of spies) s.mockRestore();
});


describe('toPassCheck', () => {
  it('passes quietly for a correct controller and writes nothing', async () => {
    const dir = tempDir();
    await expect(levelTriggered).toPassCheck({ ...options, reportDir: dir });
    for (const s of spies) expect(s).not.toHaveBeenCalled();
    expect(existsSync(`${dir}/corpus`)).toBe(false);
  });

  it('fails with the replay line first, then the explanation and the report paths (which exist)', async () => {
    const dir = tempDir();
    const message = await failureOf(expect(edgeTriggered).toPassCheck({ ...options, reportDir: dir }));
    const json = `${dir}/edge-triggered-convergence-1.json`;
    // the module and export are found from where defineController was called
    expect(message.split('\n')[0]).toBe(`Replay: await expect(edgeTriggered).toPassReproduction(${JSON.stringify(json)});  (or: npx steadystate replay ${json})`);
    expect(message).toContain("import { edgeTriggered } from './edge-triggered.js';");
    expect(message).toMatch(/edge-triggered fails convergence \(run \d+ of \d+, seed 1/);
    expect(message).toMatch(/Let: .*Then: /s);
    expect(message).toMatch(/Reports:\n {2}.*\.json\n {2}.*\.md\n {2}.*\.html\n {2}.*\.junit\.xml/);
    for (const ext of ['.json', '.md', '.html', '.junit.xml']) expect(existsSync(`${dir}/edge-triggered-convergence-1${ext}`)).toBe(true);
    expect(existsSync(`${dir}/corpus/edge-triggered`)).toBe(true);
    for (const s of spies) expect(s).not.toHaveBeenCalled();
  });

  it('works negated, and with reportDir: false writes no files', async () => {
    await expect(edgeTriggered).not.toPassCheck({ ...options, reportDir: false });
    const message = await failureOf(expect(levelTriggered).not.toPassCheck({ ...options, reportDir: false }));
    expect(message).toMatch(/expected level-triggered to fail a property, but all 2 held over 30 runs/);
  });

  it('a vacuous pass is no verdict, either way: no property judged, or no object ever reached the controller (red team N6, N7)', async () => {
    await expect(expect(levelTriggered).toPassCheck({ ...options, properties: [], reportDir: false })).rejects.toThrow(/passed vacuously: no property was judged/);
    const elsewhere = defineController({ name: 'elsewhere', for: 'Deployment', reconcile: levelTriggered.reconcile });
    await expect(expect(elsewhere).toPassCheck({ ...options, reportDir: false })).rejects.toThrow(/passed vacuously: no reconcile ran in 30 runs: no Deployment object/);
    await expect(expect(elsewhere).not.toPassCheck({ ...options, reportDir: false })).rejects.toThrow(/passed vacuously/);
  });

  it('names a wrong received value', async () => {
    const message = await failureOf(expect({ name: 'web' }).toPassCheck());
    expect(message).toMatch(/x must be a controller made by defineController .*got an object with keys name/);
  });
});

describe('types (checked by tsc)', () => {
  it('types the matchers for vitest 4', () => {
    expectTypeOf(expect(levelTriggered).toPassCheck).parameter(0).toEqualTypeOf<ToPassCheckOptions | undefined>();
    expectTypeOf(expect(levelTriggered).toPassCheck).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(expect({}).toHold).returns.toEqualTypeOf<void>();
    // @ts-expect-error runs is a number
    const wrong = (): Promise<void> => expect(levelTriggered).toPassCheck({ runs: 'many' });
    expect(typeof wrong).toBe('function');
  });
});

describe('toHold', () => {
  it('passes on a passing result and fails with the explanation on a failing one', async () => {
    expect(await check(levelTriggered, options)).toHold();
    const failing = await check(edgeTriggered, options);
    expect(failing).not.toHold();
    const message = await failureOf(Promise.resolve().then(() => expect(failing).toHold()));
    expect(message.split('\n')[0]).toBe(`Replay: check(controller, { seed: 1, path: ${JSON.stringify(failing.path)} })`);
    expect(message).toContain(proofLayout(failing.explanation ?? ''));
  });
});

describe('toPassReproduction', () => {
  it('fails while the bug is there (identical trace) and passes once the controller is fixed', async () => {
    const dir = tempDir();
    await failureOf(expect(edgeTriggered).toPassCheck({ ...options, reportDir: dir }));
    const file = `${dir}/edge-triggered-convergence-1.json`;
    const message = await failureOf(expect(edgeTriggered).toPassReproduction(file));
    expect(message).toMatch(/^edge-triggered still fails convergence on the reproduction \(identical trace \(hash [0-9a-f]{8}\)\)/);
    // the fix: same name, level-triggered logic
    const fixed = defineController({ name: 'edge-triggered', for: levelTriggered.for, resyncPeriodMs: levelTriggered.resyncPeriodMs, reconcile: levelTriggered.reconcile });
    await expect(fixed).toPassReproduction(file);
  });
});

describe("the matchers a test calls are steadystate's (red team H7)", () => {
  it("a module that re-registers toPassCheck is caught before and after every test, and steadystate's matcher is put back", async () => {
    expect(() => checkMatchers()).not.toThrow();
    // what a controller module did at import: every check would pass
    expect.extend({ toPassCheck: async () => ({ pass: true, message: () => '' }) });
    await expect(edgeTriggered).toPassCheck({ ...options, reportDir: false, corpus: false });
    expect(() => checkMatchers()).toThrow(/the matcher toPassCheck was replaced after steadystate\/vitest registered it/);
    // back: the buggy controller fails again
    await expect(expect(edgeTriggered).toPassCheck({ ...options, reportDir: false, corpus: false })).rejects.toThrow(/fails/);
    expect(() => checkMatchers()).not.toThrow();
  });

  it('a built-in the judges compute with, replaced after the setup (at the import of a module), makes the matchers refuse to judge (red team N1)', async () => {
    const push = Array.prototype.push;
    // what a controller module did at import: failure records dropped
    Array.prototype.push = function (this: unknown[], ...items: unknown[]) {
      return push.apply(this, items);
    };
    try {
      await expect(expect(edgeTriggered).toPassCheck({ ...options, reportDir: false, corpus: false })).rejects.toThrow(/toPassCheck cannot judge here: .*replaced built-ins .*\(Array\.prototype\.push\)/);
    } finally {
      Array.prototype.push = push;
    }
    await expect(expect(edgeTriggered).toPassCheck({ ...options, reportDir: false, corpus: false })).rejects.toThrow(/fails/);
  });
});
