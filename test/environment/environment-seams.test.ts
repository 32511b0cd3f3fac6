import { describe, expect, it } from 'vitest';
import { environmentSeams } from '../../src/harness/environment.js';
import { createWorld } from '../../src/harness/world.js';
import { resolveScenarioOptions } from '../../src/harness/scenario.js';
import type { StoredObject } from '../../src/store/object.js';

function world() {
  const scenario = { seed: 1, controllers: [], initialObjects: [], workload: [], faults: { events: [], background: [] } };
  return createWorld(scenario, resolveScenarioOptions(undefined), false);
}

const pod = (uid: string) => ({ kind: 'Pod', metadata: { uid, name: uid } }) as unknown as StoredObject;
const step = (uid: string, instance = '') => ({ actor: 'pod-lifecycle', step: 'pod:ready', kind: 'Pod', key: `default/${uid}`, object: pod(uid), instance });

describe('environmentSeams', () => {
  it('is one seam per world', () => {
    const w = world();
    expect(environmentSeams(w)).toBe(environmentSeams(w));
    expect(environmentSeams(world())).not.toBe(environmentSeams(w));
  });

  it('numbers objects per kind in order of their first step (what nth counts)', () => {
    const s = environmentSeams(world());
    const seen: number[] = [];
    s.install({ onStep: (i) => (seen.push(i.seq), undefined) });
    for (const uid of ['a', 'b', 'a', 'c']) s.decide(step(uid));
    expect(seen).toEqual([0, 1, 0, 2]);
  });

  it('remembers a delay per step instance: asked early, the rest of it; asked after, proceed without asking the fault again', () => {
    const w = world();
    const s = environmentSeams(w);
    let asked = 0;
    s.install({ onStep: () => (asked++, { type: 'delay', ms: 1000 }) });
    expect(s.decide(step('a'))).toEqual({ type: 'delay', ms: 1000 });
    w.kernel.clock.advanceTo(400);
    expect(s.decide(step('a'))).toEqual({ type: 'delay', ms: 600 });
    w.kernel.clock.advanceTo(1000);
    expect(s.decide(step('a'))).toEqual({ type: 'proceed' });
    expect(asked).toBe(1);
    // another instance of the step is a new question
    expect(s.decide(step('a', '1'))).toEqual({ type: 'delay', ms: 1000 });
  });

  it('asks no fault outside the fault window, and forgets pending delays', () => {
    const w = world();
    const s = environmentSeams(w);
    s.install({ onStep: () => ({ type: 'block' }) });
    expect(s.decide(step('a'))).toEqual({ type: 'block' });
    w.seams.active = false;
    expect(s.decide(step('a'))).toEqual({ type: 'proceed' });
  });

  it('the first hook with a decision wins, in installation order; uninstalling removes a hook', () => {
    const s = environmentSeams(world());
    const first = s.install({ onStep: () => undefined });
    const second = s.install({ onStep: () => ({ type: 'fail', reason: 'OOMKilled' }) });
    s.install({ onStep: () => ({ type: 'block' }) });
    expect(s.decide(step('a'))).toEqual({ type: 'fail', reason: 'OOMKilled' });
    second();
    first();
    expect(s.decide(step('a'))).toEqual({ type: 'block' });
  });

  it('pokes reach every registered actor until it unregisters', () => {
    const s = environmentSeams(world());
    const got: string[] = [];
    const off = s.onPoke((k) => got.push(k));
    s.poke('Pod');
    off();
    s.poke('Pod');
    expect(got).toEqual(['Pod']);
  });
});
