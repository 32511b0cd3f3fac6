import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { crashRestart } from '../../faults/crash-restart.js';
import { staleSnapshot } from '../../faults/stale-snapshot.js';
import type { FaultPlan } from '../../src/index.js';
import { faultLaws, injections, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: staleSnapshot,
  label: 'trusting a cached read vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // cached read 1 is the second pass over web: one version back it has no status.child yet
  breaking: { events: [{ kind: 'stale-snapshot', nth: 1, params: { versionsBack: 1 } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'stale-snapshot', nth: 0, params: { versionsBack: 1 } },
  options: { faults: [crashRestart] },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('stale-snapshot after a restart (a lagging replica serves the initial list)', () => {
  // the controller dies right after recording web's Pod (write 1): on its own, harmless
  const crash = { kind: 'crash-restart', nth: 1, params: { point: 'after-write' } };
  const lagging = { kind: 'stale-snapshot', nth: 0, params: { versionsBack: 2, list: true, catchUpMs: 2000 } };
  const plan = (...events: FaultPlan['events']): FaultPlan => ({ events, background: [] });

  it('the crash alone does not break the buggy reconciler: the fresh list shows status.child', async () => {
    expect(judgeSingleChild(await runCase(lawCase, singleChildBuggy, plan(crash)))).toBe(true);
  });

  it('a lagging list after the restart does: the restarted controller sees web without its child and creates another', async () => {
    const run = await runCase(lawCase, singleChildBuggy, plan(crash, lagging));
    expect(injections(run, 'stale-snapshot')).toBe(1);
    const list = run.trace.find((e) => e.type === 'informer:list' && e['lagging'] !== undefined);
    expect(list).toMatchObject({ kind: 'App', lagging: 2 });
    // every Pod ADDED arrives while the App stream still lags, so it creates again each time
    expect(judgeSingleChild(run)).toMatch(/App web controls ([2-9]|\d{2,}) Pods/);
  });

  it('the correct reconciler survives it', async () => {
    const run = await runCase(lawCase, singleChildCorrect, plan(crash, lagging));
    expect(injections(run, 'stale-snapshot')).toBe(1);
    expect(judgeSingleChild(run)).toBe(true);
  });

  it('lagging lists only happen after a restart', async () => {
    const run = await runCase(lawCase, singleChildBuggy, plan(lagging));
    expect(injections(run, 'stale-snapshot')).toBe(0);
  });
});

describe('ObjectStore.snapshotAt (what a lagging replica lists)', () => {
  it('rebuilds the objects of a kind as of a resourceVersion from the retained history', async () => {
    const { ObjectStore } = await import('../../src/store/store.js');
    const { VirtualClock } = await import('../../src/sim/clock.js');
    const store = new ObjectStore({ clock: new VirtualClock() });
    store.create('user', { kind: 'App', metadata: { name: 'a', namespace: 'default' }, spec: { v: 1 } }); // rv 1
    store.create('user', { kind: 'App', metadata: { name: 'b', namespace: 'default' }, spec: { v: 1 } }); // rv 2
    store.patch('user', 'App', { namespace: 'default', name: 'a' }, { spec: { v: 2 } }); // rv 3
    store.delete('user', 'App', { namespace: 'default', name: 'b' }); // rv 4
    store.create('user', { kind: 'App', metadata: { name: 'c', namespace: 'default' }, spec: { v: 1 } }); // rv 5
    const at = (rv: number) => store.snapshotAt('App', rv)!.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    expect(at(5)).toEqual(['a@3', 'c@5']);
    expect(at(3)).toEqual(['a@3', 'b@2']);
    expect(at(2)).toEqual(['a@1', 'b@2']);
    expect(at(0)).toEqual([]);
    store.compact('App');
    expect(store.snapshotAt('App', 2)).toBeUndefined();
  });
});
