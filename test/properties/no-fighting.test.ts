import { describe, expect, it } from 'vitest';
import { noFighting } from '../../properties/no-fighting.js';
import { fighterA, fighterB, splitA, splitB } from '../../examples/property-targets/widget-controllers.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';
import { fakeRun } from '../unit/harness/helpers.js';
import type { TraceEntry } from '../../src/sim/trace.js';

const scenario = widgetScenario(['fighter-a', 'fighter-b'], createAll([widget('shared', 1)]), { options: { faultWindowMs: 5_000, settleMs: 10_000, watchLatencyMs: 100 } });

propertyLaws({
  property: noFighting(),
  buggy: { controllers: [fighterA, fighterB], scenario },
  correct: {
    controllers: [splitA, splitB],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.2 }] } } },
    ],
  },
  explains: ['field status.phase of Widget default/shared changed hands', 'controller fighter-a/0', 'controller fighter-b/0', 'two writers both believe they own this field'],
});

describe('noFighting', () => {
  it('names both actors in the summary and evidence', async () => {
    const v = expectFailure((await judgeScenario(noFighting(), scenario, { controllers: [fighterA, fighterB] })).verdict);
    expect(v.summary).toMatch(/^fighting over status\.phase of Widget default\/shared: \d+ flips between controller:fighter-(a|b)\/0 and controller:fighter-(a|b)\/0$/);
    expect(v.evidence['actors']).toHaveLength(2);
  });
});

describe('noFighting: a protocol that ran its course', () => {
  // a budget's status.disruptedPods: the evictor adds a Pod, the disruption controller prunes it, once per eviction
  const handOvers = (ts: readonly number[]): TraceEntry[] =>
    ts.map((t, i) => ({ type: 'store:write', t, actor: i % 2 === 0 ? 'controller:evictor/0' : 'controller:disruption/0', verb: 'updateStatus', kind: 'Budget', key: 'default/web', uid: 'u1', rv: 10 + i, changed: ['status.disruptedPods'], noop: false }));
  const judge = (ts: readonly number[]) => noFighting().judge(fakeRun({ trace: handOvers(ts) }), undefined);

  it('passes hand-overs that stop before the quiet tail (settle at 10 s, tail at 20 s)', () => {
    expect(judge([10_000, 10_001, 12_000, 12_001, 14_000, 14_001]).ok).toBe(true);
  });

  it('fails the same hand-overs when they go on into the tail', () => {
    const v = judge([10_000, 10_001, 12_000, 12_001, 20_000, 20_001]);
    expect(v.ok).toBe(false);
    expect(v.ok ? '' : v.summary).toMatch(/^fighting over status\.disruptedPods of Budget default\/web: 5 flips/);
  });
});
