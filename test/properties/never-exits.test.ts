import { describe, expect, it } from 'vitest';
import { defineController } from '../../src/index.js';
import { neverExits } from '../../properties/never-exits.js';
import { clampStatusCorrect } from '../../examples/property-targets/widget-controllers.js';
import { createAll, RESYNC_MS, WIDGET, widget, widgetScenario, type WidgetSpec, type WidgetStatus } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

/** Exits the process on a size it cannot handle (the way scripts bail out), instead of reporting it. */
const exitsOnBigSize = defineController({
  name: 'widget',
  for: WIDGET,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w) return;
    if (w.spec.size > 5) process.exit(3);
    if (w.status.size === w.spec.size && w.status.observedGeneration === w.metadata.generation) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
  },
});

const scenario = widgetScenario(['widget'], createAll([widget('big', 8), widget('small', 2)]));

propertyLaws({
  property: neverExits(),
  buggy: { controllers: [exitsOnBigSize], scenario },
  correct: {
    controllers: [clampStatusCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'crashes and event loss', scenario: { ...scenario, faults: { events: [{ kind: 'crash-restart', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/^Let: the code under test call process\.exit\(3\) at t=0\.\d+ s \(at Object\.reconcile \(test\/properties\/never-exits\.test\.ts:\d+:\d+\)\)\./, 'An operator never exits on its own', /Stack, innermost call first:\n {2}at Object\.reconcile/],
});

describe('neverExits', () => {
  it('validates allowCodes', () => {
    expect(() => neverExits({ allowCodes: [1.5] })).toThrow('steadystate.properties.neverExits: allowCodes must be an array of integer exit codes');
  });
  it('judges hosted process exits from the trace, except allowed codes', async () => {
    const { run } = await judgeScenario(neverExits(), scenario, { controllers: [clampStatusCorrect] });
    const exit = { t: 1500, type: 'process:exit' as const, controller: 'widget', replica: 0, incarnation: 1, kind: 'exit', code: 1, message: 'process.exit(1)', at: 'at onError (src/operator.ts:12:3)', lastOutput: 'Malformed event object', restartInMs: 10_000 };
    const tampered = { ...run, trace: [...run.trace, exit] };
    const v = expectFailure(neverExits().judge(tampered, undefined));
    expect(v.summary).toBe('the program widget/0 exited with code 1 (process.exit(1)) after printing "Malformed event object" at t=1.5 s');
    expect(v.explanation).toContain('the supervisor restarted it 10.0 s later (CrashLoopBackOff)');
    expect(neverExits({ allowCodes: [1] }).judge(tampered, undefined).ok).toBe(true);
  });
});
