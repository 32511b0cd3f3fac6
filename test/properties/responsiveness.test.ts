import { describe, expect, it } from 'vitest';
import { responsiveness } from '../../properties/responsiveness.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { pollingCorrect, sleepyBuggy } from '../../examples/property-targets/widget-controllers.js';
import { WIDGET, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['widget'], [
  { at: 0, type: 'create', object: widget('big', 8) },
  { at: 1000, type: 'create', object: widget('small', 2) },
], { options: { faultWindowMs: 5_000, settleMs: 30_000 } });

propertyLaws({
  property: responsiveness(),
  buggy: { controllers: [sleepyBuggy], scenario },
  correct: {
    controllers: [pollingCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 1 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/the ADDED change of Widget default\/small was enqueued for widget\/0 at t=1\.00\d s/, /but its reconcile started only at t=20\.\d+ s/, /the reconcile of default\/big by widget\/0 at t=0\.\d+ s \(done, took 20\.0 s\) held a worker for 20\.0 s/, 'do not sleep or block inside reconcile'],
});

describe('responsiveness', () => {
  it('gives the holder in the evidence', async () => {
    const v = expectFailure((await judgeScenario(responsiveness(), scenario, { controllers: [sleepyBuggy] })).verdict);
    expect(v.evidence).toMatchObject({ key: 'default/small', latencyMs: 19_000, heldBy: { key: 'default/big', ms: 20_000 } });
  });
  it('accepts a looser bound', async () => {
    const { verdict } = await judgeScenario(responsiveness({ maxLatencyMs: 60_000 }), scenario, { controllers: [sleepyBuggy] });
    expect(verdict.ok).toBe(true);
  });
});

describe('responsiveness and event handlers', () => {
  // a widget controller that also watches Gadgets; the map of the slow one looks something up for 3 s per event
  const watcher = (slow: boolean) =>
    defineController({
      name: 'widget',
      for: WIDGET,
      resyncPeriodMs: 0,
      watches: [{ kind: 'Gadget', map: slow ? async (_o, ctx) => (await ctx.clock.sleep(3000), []) : () => [] }],
      reconcile: () => undefined,
    });
  const gadget = (name: string) => ({ kind: 'Gadget', metadata: { name, namespace: 'default' }, spec: {} });
  const handlerScenario = widgetScenario(['widget'], [
    { at: 0, type: 'create', object: gadget('g1') },
    { at: 0, type: 'create', object: gadget('g2') },
    { at: 1000, type: 'create', object: widget('small', 2) },
  ], { options: { faultWindowMs: 5_000, settleMs: 30_000 } });

  it('measures from the event, not the enqueue, so a slow watch map that holds the events back is caught', async () => {
    const v = expectFailure((await judgeScenario(responsiveness(), handlerScenario, { controllers: [watcher(true)] })).verdict);
    // the Widget's event reached the controller at ~1 s; the two Gadget maps held it until ~6 s
    expect(v.evidence).toMatchObject({ key: 'default/small', handler: { kind: 'Gadget', ms: 3000 } });
    const e = v.evidence as { eventAt: number; enqueuedAt: number; latencyMs: number };
    expect(e.eventAt).toBeLessThan(1100);
    expect(e.enqueuedAt).toBeGreaterThan(6000);
    expect(e.latencyMs).toBe(e.enqueuedAt - e.eventAt);
    expect(e.latencyMs).toBeGreaterThanOrEqual(5000);
    expect(v.explanation).toMatch(/the event handler for Gadget default\/g\d \(a watch map\) ran from t=[\d.]+ s for 3\.00? s/);
    expect(v.explanation).toMatch(/keep event handlers cheap/);
  });

  it('passes the same controller with a cheap map', async () => {
    const { verdict } = await judgeScenario(responsiveness(), handlerScenario, { controllers: [watcher(false)] });
    expect(verdict.ok).toBe(true);
  });
});
