import { describe, expect, it } from 'vitest';
import { ORDER, judgeShop, shopDownstream, shopScenario } from '../../examples/fault-targets/flaky-downstream/shop.js';
import { shopBuggy } from '../../examples/fault-targets/flaky-downstream/buggy.js';
import { shopCorrect } from '../../examples/fault-targets/flaky-downstream/correct.js';
import { flakyDownstream } from '../../faults/flaky-downstream.js';
import type { FaultPlan } from '../../src/index.js';
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
