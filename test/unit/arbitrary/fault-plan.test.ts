import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { faultPlan } from '../../../src/arbitrary/fault-plan.js';
import { swarm } from '../../../src/arbitrary/swarm.js';
import type { FaultGenContext } from '../../../src/harness/fault.js';
import type { FaultPlan } from '../../../src/harness/fault-plan.js';
import { minimal, stubFault } from './helpers.js';

const context: FaultGenContext = { controllers: ['c'], kinds: ['ReplicaSet'], keys: ['default/rs-0'], faultWindowMs: 10_000, maxNth: 12 };
const kindsOf = (p: FaultPlan) => [...new Set([...p.events.map((e) => e.kind), ...p.background.map((b) => b.kind)])].sort();

describe('swarm', () => {
  it('turns each part on or off independently, so every subset shows up', () => {
    const arb = swarm([
      { key: 'a', arbitrary: fc.constant(1) },
      { key: 'b', arbitrary: fc.constant(2) },
    ]);
    const subsets = new Set(fc.sample(arb, { seed: 1, numRuns: 200 }).map((parts) => parts.filter((p) => p.value !== null).map((p) => p.key).join('+')));
    expect([...subsets].sort()).toEqual(['', 'a', 'a+b', 'b']);
  });

  it('shrinks every part toward off', () => {
    const parts = minimal(swarm([{ key: 'a', arbitrary: fc.nat() }, { key: 'b', arbitrary: fc.nat() }]));
    expect(parts).toEqual([{ key: 'a', value: null }, { key: 'b', value: null }]);
  });

  it('keeps every part on in mode "all"', () => {
    for (const parts of fc.sample(swarm([{ key: 'a', arbitrary: fc.nat() }], { mode: 'all' }), { seed: 2, numRuns: 50 })) expect(parts[0]!.value).not.toBeNull();
  });
});

describe('faultPlan', () => {
  const faults = [stubFault('alpha'), stubFault('beta')];

  it('enables a random subset of kinds per plan (swarm)', () => {
    const subsets = new Set(fc.sample(faultPlan({ faults, context }), { seed: 3, numRuns: 300 }).map((p) => kindsOf(p).join('+')));
    expect(subsets).toContain('alpha');
    expect(subsets).toContain('beta');
    expect(subsets).toContain('alpha+beta');
    expect(subsets).toContain('');
  });

  it('pins every kind (with its rate) when swarm is off', () => {
    for (const p of fc.sample(faultPlan({ faults, context, swarm: false }), { seed: 4, numRuns: 100 })) expect(kindsOf(p)).toEqual(['alpha', 'beta']);
  });

  it('keeps at most maxEvents concrete events and nth within the context bound', () => {
    for (const p of fc.sample(faultPlan({ faults, context, maxEvents: 2 }), { seed: 5, numRuns: 300 })) {
      expect(p.events.length).toBeLessThanOrEqual(2);
      for (const e of p.events) expect(e.nth).toBeLessThanOrEqual(12);
      for (const b of p.background) expect(b.rate).toBeGreaterThanOrEqual(0);
    }
  });

  it('omits background rates when asked to', () => {
    for (const p of fc.sample(faultPlan({ faults, context, background: false }), { seed: 6, numRuns: 100 })) expect(p.background).toEqual([]);
  });

  it('shrinks toward the empty plan', () => {
    expect(minimal(faultPlan({ faults, context }))).toEqual({ events: [], background: [] });
  });

  it('shrinks a failure needing one event of a kind to that single event at nth 0, the other kind off', () => {
    const p = minimal(faultPlan({ faults, context }), (plan) => plan.events.some((e) => e.kind === 'beta'));
    expect(p).toEqual({ events: [{ kind: 'beta', nth: 0 }], background: [] });
  });

  it('shrinks a failure needing a background rate toward the smallest rate that still fails', () => {
    const p = minimal(faultPlan({ faults, context }), (plan) => plan.background.some((b) => b.rate >= 0.1));
    expect(p.events).toEqual([]);
    expect(p.background).toHaveLength(1);
    expect(p.background[0]!.rate).toBe(0.1);
  });
});
