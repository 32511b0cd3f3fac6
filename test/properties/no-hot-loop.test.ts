import { describe, expect, it } from 'vitest';
import { defineController } from '../../src/index.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { hotLoopBuggy, hotLoopCorrect, stampingWhileWaitingBuggy, stampingWhileWaitingCorrect, WARM_UP_MS } from '../../examples/property-targets/hot-loop.js';
import { check } from '../../src/check.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

const scenario = widgetScenario(['widget'], createAll([widget('a', 2)]));
const lossy = { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 0 }, { kind: 'event-loss', nth: 2 }], background: [] } };

propertyLaws({
  property: noHotLoop(),
  buggy: { controllers: [hotLoopBuggy], scenario },
  correct: {
    controllers: [hotLoopCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: lossy },
    ],
  },
  explains: ['Widget default/a', 'status.lastSyncedAt', 'the loop feeds itself', 'MODIFIED event of Widget default/a → reconcile of default/a', /updateStatus Widget default\/a at t=\d+\.\d+ s/],
});

describe('noHotLoop', () => {
  it('names the window, the rate and the fields in the evidence', async () => {
    const { verdict } = await judgeScenario(noHotLoop(), scenario, { controllers: [hotLoopBuggy] });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/^hot loop: \d+ controller writes in/);
    expect(v.evidence['fields']).toHaveProperty(['status.lastSyncedAt']);
    expect(v.explanation).toContain('between t=17.0 s and t=25.0 s');
  });
  it('allows a configured number of writes', async () => {
    const { verdict } = await judgeScenario(noHotLoop({ maxWrites: 100_000 }), scenario, { controllers: [hotLoopBuggy] });
    expect(verdict.ok).toBe(true);
  });
  it('a write the API server refuses every time is told as refused, with its error, not as a write that changed nothing', async () => {
    // Secret data must be base64: kube-apiserver answers 422 Invalid, again on every retry
    const refusedSecret = defineController({
      name: 'widget',
      for: 'Widget',
      owns: ['Secret'],
      async reconcile(ctx) {
        const w = await ctx.client.tryGet('Widget', ctx.key);
        if (!w) return;
        const ref = { namespace: w.metadata.namespace, name: w.metadata.name };
        if (!(await ctx.client.tryGet('Secret', ref))) await ctx.client.create({ apiVersion: 'v1', kind: 'Secret', metadata: ref, data: { token: 'not base64!' } } as never);
      },
    });
    const { verdict } = await judgeScenario(noHotLoop(), scenario, { controllers: [refusedSecret] });
    const v = expectFailure(verdict);
    expect(v.summary).toMatch(/to Secret default\/a \(refused: Invalid\)$/);
    expect(v.explanation).toContain('(refused: Invalid)');
    expect(v.explanation).toMatch(/every one of them was refused \(Invalid: .*illegal base64 data\).*fix what the request sends/);
    expect(v.explanation).not.toContain('compare desired with current state');
    expect(v.explanation).not.toContain('they changed');
  });
  it('rejects nonsense options with a message naming the property', () => {
    expect(() => noHotLoop({ maxWrites: -1 })).toThrow(/steadystate\.properties\.noHotLoop: maxWrites must be ≥ 0/);
  });
  describe('a stamping loop while the world is not converged (the time written again and again)', () => {
    const waiting = widgetScenario(['widget'], createAll([widget('a', 2)]));
    it('fails the controller that stamps the time of every check during a warm-up, though its quiet tail is silent', async () => {
      const { verdict, run } = await judgeScenario(noHotLoop(), waiting, { controllers: [stampingWhileWaitingBuggy] });
      const v = expectFailure(verdict);
      expect(v.summary).toMatch(/^hot loop: [\d,]+ writes in a row to Widget default\/a by controller:widget\/0, each changing only the time stamp status\.checkedAt$/);
      expect(v.explanation).toContain('the loop feeds itself');
      expect(v.explanation).toMatch(/MODIFIED event of Widget default\/a → reconcile of default\/a/);
      expect(v.explanation).toContain('stamp a time only when what it dates changes');
      const stamping = v.evidence['stamping'] as { writes: number; from: number; to: number };
      // about one write per watch delivery for the whole warm-up
      expect(stamping.writes).toBeGreaterThan(1000);
      expect(stamping.to).toBeLessThanOrEqual(WARM_UP_MS);
      // the quiet tail alone passes it: converged, silent
      expect(run.writes.filter((w) => w.t > run.timing.tailStart && w.kind === 'Widget').length).toBe(0);
    });
    it('stays quiet on the twin that records the phase once and waits, with and without lost events', async () => {
      for (const s of [waiting, { ...waiting, faults: { events: [{ kind: 'event-loss', nth: 0 }, { kind: 'event-loss', nth: 2 }], background: [] } }]) {
        const { verdict, run } = await judgeScenario(noHotLoop(), s, { controllers: [stampingWhileWaitingCorrect] });
        expect(verdict.ok).toBe(true);
        expect(run.writes.filter((w) => w.kind === 'Widget' && w.actor.startsWith('controller:')).length).toBeLessThan(5);
      }
    });
    it('check finds it, stops the run at the loop and confirms it on the whole run', async () => {
      const r = await check(stampingWhileWaitingBuggy, { properties: [noHotLoop()], runs: 5, seed: 3, timeLimitMs: 60_000 });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.property).toBe('no-hot-loop');
      expect(r.explanation).toContain('status.checkedAt');
    });
  });
});
