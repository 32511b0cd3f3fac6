import { describe, expect, it } from 'vitest';
import { defineController } from '../../src/index.js';
import { simulate } from '../../src/harness/simulate.js';
import { runGuards } from '../../src/harness/run-guards.js';
import { scenario } from '../helpers/fixtures.js';
import { expectVerdict, runAttack, words, type Attack } from './hostile.js';

/** Issue 17 item 7: what a reconcile returns is checked; a run cut short says where it stopped. */
const attacks: Attack[] = [
  { attack: 'requeueAfter: NaN', returns: { requeueAfter: NaN }, property: 'reconcile-results', says: [/reconcile of default\/thing-0 by hostile returned \{ requeueAfter: NaN \}: requeueAfter is NaN/] },
  { attack: 'requeueAfter: -5', returns: { requeueAfter: -5 }, property: 'reconcile-results', says: [/requeueAfter is negative, and controller-runtime then does not requeue at all/] },
  { attack: 'requeueAfter: Infinity', returns: { requeueAfter: Infinity }, property: 'reconcile-results', says: [/requeueAfter must be a finite number of milliseconds/] },
  { attack: "requeueAfter: '5s'", returns: { requeueAfter: '5s' }, property: 'reconcile-results', says: [/requeueAfter must be a number of milliseconds, got string/] },
  { attack: 'a typo: requeueAfterMs', returns: { requeueAfterMs: 5000 }, property: 'reconcile-results', says: [/unknown field "requeueAfterMs" \(did you mean requeueAfter\?\)/] },
  { attack: "requeue: 'yes'", returns: { requeue: 'yes' }, property: 'reconcile-results', says: [/requeue must be true or false/] },
  { attack: 'a number instead of a result', returns: 5000, property: 'reconcile-results', says: [/returned 5000; a reconcile returns nothing or/] },
];

describe('reconcile results are validated (issue 17 item 7)', () => {
  for (const a of attacks) {
    it(a.attack, () => expectVerdict(a));
  }

  it('requeueAfter: 1e-9 is raised to 1 ms: the run reaches its end instead of burning the step budget at t≈0', async () => {
    const c = defineController({ name: 'tiny', for: 'Thing', resyncPeriodMs: 0, reconcile: () => ({ requeueAfter: 1e-9 }) });
    const { run } = await simulate(scenario({ controllers: [{ name: 'tiny' }], initialObjects: [{ kind: 'Thing', metadata: { name: 'a' }, spec: {} }], options: { faultWindowMs: 500, settleMs: 500 } }), { controllers: [c], tailMs: 0 });
    expect(run.timing.exhausted).toBeUndefined();
    const ends = run.trace.filter((e) => e.type === 'reconcile:end');
    expect(ends.length).toBeGreaterThan(900);
    expect(ends[0]).toMatchObject({ result: 'requeueAfter', requeueAfter: 1, clampedFrom: 1e-9 });
  });

  it('a run stopped by the step budget says when it really stopped and what was busy', async () => {
    const c = defineController({ name: 'busy', for: 'Thing', resyncPeriodMs: 0, reconcile: () => ({ requeueAfter: 1 }) });
    const { run } = await simulate(scenario({ controllers: [{ name: 'busy' }], initialObjects: [{ kind: 'Thing', metadata: { name: 'a' }, spec: {} }] }), { controllers: [c], tailMs: 0, maxSteps: 3000 });
    const verdicts = runGuards.map((g) => ({ name: g.name, v: g.judge(run, undefined) })).filter((x) => !x.v.ok);
    expect(verdicts.map((x) => x.name)).toEqual(['step-budget']);
    const v = verdicts[0]!.v;
    if (v.ok) return;
    expect(v.summary).toMatch(/^the run stopped at t=\d+(\.\d+)? s of 20 s: it used up its budget of 3,000 simulation steps; busiest: reconcile of a by busy ×\d+$/);
    expect(run.timing.stoppedAt).toBeLessThan(5000);
  });
});
