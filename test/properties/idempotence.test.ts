import { describe, expect, it } from 'vitest';
import { idempotence } from '../../properties/idempotence.js';
import { hotLoopCorrect, unconditionalWriteBuggy } from '../../examples/property-targets/hot-loop.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['widget'], createAll([widget('a', 2), widget('b', 1)]));

propertyLaws({
  property: idempotence(),
  buggy: { controllers: [unconditionalWriteBuggy], scenario },
  correct: {
    controllers: [hotLoopCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: ['at t=15.0 s every key was enqueued again', 'updateStatus Widget default/a by controller widget/0 at t=15.0 s (a no-op: it changed nothing)', 'an unconditional write'],
});

describe('idempotence', () => {
  it('counts no-op writes in the evidence', async () => {
    const v = expectFailure((await judgeScenario(idempotence(), scenario, { controllers: [unconditionalWriteBuggy] })).verdict);
    expect(v.summary).toBe('not idempotent: re-reconciling the converged world made 4 store writes');
    expect(v.evidence['totals']).toEqual({ writes: 4, mutatingCalls: 0 });
  });
  it('does not judge a run without a tail', async () => {
    const { verdict } = await judgeScenario(idempotence(), scenario, { controllers: [unconditionalWriteBuggy], options: { tailMs: 0 } });
    expect(verdict).toEqual({ ok: true, judged: false, why: 'the run has no tail (tailMs: 0)' });
  });
});
