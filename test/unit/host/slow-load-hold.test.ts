import { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineProgram, simulate, type Scenario } from '../../../src/index.js';
import { loadHoldBounds } from '../../../src/kube-rest/define-program.js';

/**
 * Virtual time stands still while a hosted program's module loads. The hold used to end 30 s of
 * wall time after the load started, however busy the loader still was: under host load (a
 * starved loader thread) the program then started at another virtual time, a false
 * `determinism` failure, and finished loading after its run, outside any run's guard. Now only a
 * load that stopped making progress (no module resolved or loaded for the bound) is given up on.
 * The slowness is injected, not waited for: a loader hook delays every module of the program's
 * `slow-chain/`, and the bound is shortened below the whole load but above each module's delay.
 */
const DELAY_MS = 400;
const MODULES = 6;
const STALLED_MS = 1_500;

const DELAY_HOOK = `
export async function load(url, context, next) {
  if (url.includes('/programs/slow-chain/')) await new Promise((r) => setTimeout(r, ${DELAY_MS}));
  return next(url, context);
}
`;

const program = (file: string) => fileURLToPath(new URL(`./programs/${file}`, import.meta.url));
const scenario: Scenario = { seed: 5, controllers: [{ name: 'p' }], initialObjects: [], workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: 3_000, settleMs: 3_000 } };
const saved = { ...loadHoldBounds };

beforeAll(() => {
  register(`data:text/javascript,${encodeURIComponent(DELAY_HOOK)}`);
});
afterEach(() => {
  Object.assign(loadHoldBounds, saved);
});

describe('the hold on a hosted module load', () => {
  it('lasts as long as the load makes progress: a slow load starts the program at virtual time 0', async () => {
    loadHoldBounds.stalledMs = STALLED_MS;
    const p = defineProgram({ entry: program('slow-load.ts'), for: 'ConfigMap', name: 'p' });
    const wall = performance.now();
    const { run } = await simulate(scenario, { controllers: [p], tailMs: 0 });
    // the load really took longer than the bound (every module of the chain was delayed)
    expect(performance.now() - wall).toBeGreaterThan(MODULES * DELAY_MS);
    expect(MODULES * DELAY_MS).toBeGreaterThan(STALLED_MS);
    const logs = run.trace.filter((e) => e.type === 'log').map((e) => ({ t: e.t, message: String(e['message']) }));
    expect(logs).toEqual([
      { t: 0, message: 'started: a b c d e f' },
      { t: 1_000, message: 'a second later' },
    ]);
    expect(run.escapes).toEqual([]);
  });

  it('holds a settled program while its dynamic import is in flight, past the idle bound', async () => {
    // the module settles at once; the host shows the import in flight, so the hold lasts until
    // the program waits on the simulation, however long the loader is quiet (a starved loader
    // thread, a large library evaluated: the program started late under host load before)
    loadHoldBounds.idleAfterLoadMs = 50;
    const p = defineProgram({ entry: program('slow-import.cjs'), for: 'ConfigMap', name: 'p' });
    const wall = performance.now();
    const { run } = await simulate(scenario, { controllers: [p], tailMs: 0 });
    expect(performance.now() - wall).toBeGreaterThan(MODULES * DELAY_MS);
    expect(run.trace.filter((e) => e.type === 'log').map((e) => ({ t: e.t, message: String(e['message']) }))).toEqual([
      { t: 0, message: 'started: a b c d e f' },
      { t: 1_000, message: 'a second later' },
    ]);
  });

  it('holds it so too while an import of an earlier run, whose program never started, is still in flight', async () => {
    // the earlier run gives up on its program's import soon (a stalled bound below a module's
    // delay); its import goes on while the next program starts and imports: the loader serves
    // both, and the next program's hold must not end when the earlier import is done
    loadHoldBounds.stalledMs = 100;
    const earlier = defineProgram({ entry: program('slow-import.cjs'), for: 'ConfigMap', name: 'p', args: ['earlier'] });
    const first = await simulate(scenario, { controllers: [earlier], tailMs: 0 });
    expect(first.run.trace.filter((e) => e.type === 'log')).toEqual([]);
    loadHoldBounds.stalledMs = saved.stalledMs;
    loadHoldBounds.idleAfterLoadMs = 600_000;
    const p = defineProgram({ entry: program('slow-import.cjs'), for: 'ConfigMap', name: 'p', args: ['next'] });
    const { run } = await simulate(scenario, { controllers: [p], tailMs: 0 });
    expect(run.trace.filter((e) => e.type === 'log').map((e) => ({ t: e.t, message: String(e['message']) }))).toEqual([
      { t: 0, message: 'started: a b c d e f' },
      { t: 1_000, message: 'a second later' },
    ]);
  });

  it('ends at once for a settled program that waits on nothing the host shows, without waiting out the idle bound', async () => {
    // a program that does nothing: every simulation, shrink step and self-check of it paid the
    // idle bound (1 s of wall time) before
    loadHoldBounds.idleAfterLoadMs = 600_000;
    const p = defineProgram({ entry: program('idle.mjs'), for: 'ConfigMap', name: 'p' });
    const wall = performance.now();
    for (let i = 0; i < 3; i++) {
      const { run } = await simulate(scenario, { controllers: [p], tailMs: 0 });
      expect(run.timing.end).toBeGreaterThanOrEqual(6_000);
    }
    expect(performance.now() - wall).toBeLessThan(60_000);
  });

  it('still ends for a top level that waits on nothing the simulation or the loader does', async () => {
    loadHoldBounds.stalledMs = 300;
    const p = defineProgram({ entry: program('never-settles.ts'), for: 'ConfigMap', name: 'p' });
    const wall = performance.now();
    const { run } = await simulate(scenario, { controllers: [p], tailMs: 0 });
    expect(performance.now() - wall).toBeLessThan(20_000);
    expect(run.trace.filter((e) => e.type === 'log').map((e) => ({ t: e.t, message: String(e['message']) }))).toEqual([{ t: 0, message: 'loading' }]);
    expect(run.timing.end).toBeGreaterThanOrEqual(6_000);
  });
});
