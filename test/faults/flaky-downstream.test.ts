import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER, judgeShop, shopDownstream, shopScenario } from '../../examples/fault-targets/flaky-downstream/shop.js';
import { shopBuggy } from '../../examples/fault-targets/flaky-downstream/buggy.js';
import { shopCorrect } from '../../examples/fault-targets/flaky-downstream/correct.js';
import { flakyDownstream } from '../../faults/flaky-downstream.js';
import { defineController, type FaultEvent, type FaultPlan, type RunRecord } from '../../src/index.js';
import { fmtFault } from '../../src/report/explain.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: flakyDownstream,
  label: 'blind retry vs idempotency key and look-up',
  scenario: shopScenario,
  buggy: shopBuggy,
  correct: shopCorrect,
  judge: judgeShop,
  // alice's order is placed, the response is lost, the retry places it again
  breaking: { events: [{ kind: 'flaky-downstream', nth: 0, params: { fail: 'applied-but-lost' } }], background: [] },
  gen: { controllers: ['x'], kinds: [ORDER], keys: ['default/alice', 'default/bob'], faultWindowMs: 10_000, maxNth: 6 },
  minimalEvent: { kind: 'flaky-downstream', nth: 0, params: { fail: 'status', status: 500 } },
  options: { downstream: shopDownstream },
  search: { numRuns: 200, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('flaky-downstream', () => {
  const one = (params: FaultPlan['events'][number]['params']): FaultPlan => ({ events: [{ kind: 'flaky-downstream', nth: 0, ...(params ? { params } : {}) }], background: [] });

  it('each failure shape reaches the caller as a real network would show it, on the virtual clock', async () => {
    const cases: [FaultPlan['events'][number]['params'], Record<string, unknown>][] = [
      [{ fail: 'status', status: 503 }, { status: 503, outcome: 'http-error', applied: false }],
      [{ fail: 'status', status: 429 }, { status: 429, outcome: 'http-error' }],
      [{ fail: 'reset' }, { status: 0, outcome: 'reset', applied: false }],
      [{ fail: 'applied-but-lost' }, { status: 0, outcome: 'reset', applied: true }],
      [{ fail: 'hang' }, { status: 0, outcome: 'timeout', t: 101, tEnd: 5101 }],
      [{ fail: 'latency', ms: 700 }, { status: 201, outcome: 'ok', t: 101, tEnd: 801 }],
    ];
    for (const [params, expected] of cases) {
      const run = await runCase(lawCase, shopBuggy, one(params));
      expect(run.requests[0], JSON.stringify(params)).toMatchObject(expected);
    }
  });

  it('429 carries Retry-After', async () => {
    const run = await runCase(lawCase, shopBuggy, one({ fail: 'status', status: 429, retryAfterSeconds: 7 }));
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ fail: 'status', status: 429, retryAfterSeconds: 7 });
  });

  it('target limits the fault to matching endpoints', async () => {
    // the correct controller's request 0 is a GET look-up, request 1 the POST that creates
    const miss = await runCase(lawCase, shopCorrect, { events: [{ kind: 'flaky-downstream', nth: 0, target: 'POST ', params: { fail: 'reset' } }, { kind: 'flaky-downstream', nth: 1, target: 'GET ', params: { fail: 'reset' } }], background: [] });
    expect(miss.trace.filter((e) => e.type === 'fault:inject')).toEqual([]);
    const hit = await runCase(lawCase, shopCorrect, { events: [{ kind: 'flaky-downstream', nth: 1, target: 'POST ', params: { fail: 'reset' } }], background: [] });
    expect(hit.trace.filter((e) => e.type === 'fault:inject')).toMatchObject([{ nth: 1, endpoint: 'POST https://shop.example/orders', fail: 'reset' }]);
  });

});

describe('flaky-downstream outage (every call fails for a while)', () => {
  const outage = (params: FaultEvent['params'], at = 0, target?: string): FaultPlan => ({
    events: [{ kind: 'flaky-downstream', at, ...(target !== undefined ? { target } : {}), params: { fail: 'outage', ...params } }],
    background: [],
  });
  const during = (run: RunRecord, from: number, to: number) => run.requests.filter((r) => r.t >= from && r.t < to);

  it('fails every request in [at, at + forMs) with 503 (no Retry-After), and none outside it', async () => {
    const run = await runCase(lawCase, shopCorrect, outage({ forMs: 3000 }, 50));
    const inside = during(run, 50, 3050);
    expect(inside.length).toBeGreaterThan(4);
    for (const r of inside) expect(r).toMatchObject({ status: 503, outcome: 'http-error', fault: 'status', applied: false });
    const after = run.requests.filter((r) => r.t >= 3050);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => r.fault === undefined)).toBe(true);
    const injected = run.trace.filter((e) => e.type === 'fault:inject');
    expect(injected).toHaveLength(inside.length);
    expect(injected[0]).toMatchObject({ fail: 'outage', status: 503, at: 50, forMs: 3000 });
    expect(injected[0]!['retryAfterSeconds']).toBeUndefined();
    // backoff carried the correct controller through it
    expect(judgeShop(run)).toBe(true);
  });

  it('answers 500, 503 with Retry-After, or resets connections, as asked', async () => {
    const five = await runCase(lawCase, shopCorrect, outage({ forMs: 1000, status: 500 }));
    expect(during(five, 0, 1000).map((r) => r.status)).toEqual(expect.arrayContaining([500]));
    expect(new Set(during(five, 0, 1000).map((r) => r.status))).toEqual(new Set([500]));
    const polite = await runCase(lawCase, shopCorrect, outage({ forMs: 1000, status: 503, retryAfterSeconds: 2 }));
    expect(polite.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ fail: 'outage', status: 503, retryAfterSeconds: 2 });
    const reset = await runCase(lawCase, shopCorrect, outage({ forMs: 1000, reset: true }));
    const hit = during(reset, 0, 1000);
    expect(hit.length).toBeGreaterThan(0);
    for (const r of hit) expect(r).toMatchObject({ status: 0, outcome: 'reset', fault: 'reset', applied: false });
    expect(reset.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ fail: 'outage', reset: true });
    expect(judgeShop(reset)).toBe(true);
  });

  it('target takes one endpoint down and leaves the others up', async () => {
    const run = await runCase(lawCase, shopCorrect, outage({ forMs: 2000 }, 0, 'POST '));
    const inside = during(run, 0, 2000);
    expect(inside.filter((r) => r.method === 'GET').every((r) => r.status === 200)).toBe(true);
    const posts = inside.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.status === 503)).toBe(true);
  });

  it('shows a retry storm that single failed calls do not: a fixed 50 ms retry hammers the API while it is down', async () => {
    // the storm: every failure asks to be called again in 50 ms, bypassing the queue's backoff
    const stormy = defineController({
      name: 'shop-stormy',
      for: ORDER,
      async reconcile(ctx) {
        const o = await ctx.client.tryGet(ORDER, ctx.key);
        if (!o) return;
        const res = await ctx.fetch(`https://shop.example/orders?owner=${encodeURIComponent(ctx.key)}`);
        return res.ok ? undefined : { requeueAfter: 50 };
      },
    });
    const requestsIn = (run: RunRecord) => during(run, 0, 5000).length;
    const storm = await runCase(lawCase, stormy, outage({ forMs: 5000 }));
    const backoff = await runCase(lawCase, shopCorrect, outage({ forMs: 5000 }));
    const oneCall = await runCase(lawCase, stormy, { events: [{ kind: 'flaky-downstream', nth: 0, params: { fail: 'status', status: 503 } }], background: [] });
    // two Orders, 20 calls a second each, for ~4.9 s
    expect(requestsIn(storm)).toBeGreaterThan(150);
    // the queue's exponential backoff (5 ms doubling): about a dozen per Order
    expect(requestsIn(backoff)).toBeLessThan(40);
    expect(requestsIn(oneCall)).toBeLessThan(5);
  });

  it('the arbitrary generates outages inside the fault window: 0.1–10 s in 100 ms steps, 503, 500 or reset', () => {
    const events = fc.sample(flakyDownstream.arbitrary(lawCase.gen), { seed: 9, numRuns: 300 }).flat();
    const outages = events.filter((e) => e.params?.['fail'] === 'outage');
    expect(outages.length).toBeGreaterThan(events.length / 4);
    expect(outages.length).toBeLessThan((events.length * 3) / 4);
    for (const e of outages) {
      expect(e.nth).toBeUndefined();
      expect(e.at).toBeGreaterThanOrEqual(0);
      expect(e.at).toBeLessThanOrEqual(lawCase.gen.faultWindowMs);
      const forMs = e.params!['forMs'] as number;
      expect(forMs % 100).toBe(0);
      expect(forMs).toBeGreaterThanOrEqual(100);
      expect(forMs).toBeLessThanOrEqual(10_000);
    }
    const answers = new Set(outages.map((e) => (e.params!['reset'] === true ? 'reset' : e.params!['status'])));
    expect(answers).toEqual(new Set([503, 500, 'reset']));
  });

  it('a plan that fails whenever an outage lasts over 2 s shrinks to one outage of 2.1 s at the window start, answering 503', () => {
    const out = fc.check(
      fc.property(flakyDownstream.arbitrary(lawCase.gen), (events) => !events.some((e) => e.params?.['fail'] === 'outage' && (e.params['forMs'] as number) > 2000)),
      { seed: 3, numRuns: 500 },
    );
    expect(out.failed).toBe(true);
    expect(out.counterexample?.[0]).toEqual([{ kind: 'flaky-downstream', at: 0, params: { fail: 'outage', forMs: 2100, status: 503 } }]);
  });

  it('reads as an outage in explanations', () => {
    expect(fmtFault({ t: 1200, type: 'fault:inject', kind: 'flaky-downstream', nth: 4, endpoint: 'GET https://shop.example/orders', fail: 'outage', status: 503, at: 1000, forMs: 3000 })).toBe(
      'the downstream call GET https://shop.example/orders at t=1.2 s failed (503) during an outage of 3000 ms (flaky-downstream)',
    );
    expect(fmtFault({ t: 0, type: 'fault:inject', kind: 'flaky-downstream', endpoint: 'POST https://shop.example/orders', fail: 'outage', reset: true, forMs: 100 })).toMatch(/failed \(connection reset\) during an outage of 100 ms/);
  });
});

