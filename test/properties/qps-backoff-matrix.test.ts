import { describe, expect, it } from 'vitest';
import { boundedDownstreamQps } from '../../properties/bounded-downstream-qps.js';
import { defineController, fakeRestService, type ControllerDefinition, type Scenario, type WorkloadAction } from '../../src/index.js';
import { judgeScenario } from '../helpers/property-laws.js';
import { flakyDownstream } from '../../faults/flaky-downstream.js';

/**
 * bounded-downstream-qps against the backoff it recommends: a controller that returns the error
 * to the rate-limited queue (client-go's default: 5 ms·2ⁿ per item, 10 qps / burst 100), plus the
 * event requeue its own status write causes, never fails at 1, 10 and 100 failing keys; one that
 * retries immediately, in a loop, or with a fixed short requeue always fails, at the same counts.
 */
const API = 'https://billing.example';
const KIND = 'Invoice';

type Style = 'backoff' | 'immediate' | 'loop' | 'fixed' | 'poll' | 'status-loop' | 'poll-throws';

const failuresOf = new Map<string, number>();

function invoicer(style: Style): ControllerDefinition {
  return defineController({
    name: `invoicer-${style}`,
    for: KIND,
    resyncPeriodMs: 0,
    async reconcile(ctx) {
      const inv = await ctx.client.tryGet<{ amount: number }, { error?: string; synced?: boolean; failures?: number }>(KIND, ctx.key);
      if (!inv) return undefined;
      const tries = style === 'loop' ? 20 : 1;
      let res: { ok: boolean; status: number } | undefined;
      for (let i = 0; i < tries; i++) {
        // a lost response (connection reset) is a failure like a 5xx
        res = await ctx.fetch(`${API}/invoices`, { method: 'POST', body: JSON.stringify({ owner: ctx.key, amount: inv.spec.amount }) }).catch(() => ({ ok: false, status: 0 }));
        if (res.ok) break;
      }
      if (res?.ok) {
        if (!inv.status.synced) await ctx.client.updateStatus({ ...inv, status: { synced: true } });
        return undefined;
      }
      // the status write on failure is an event: one extra, immediate reconcile on the first failure
      const error = `billing answered ${res?.status ?? 0}`;
      if (style === 'poll-throws') {
        // polls every 2 s, but every third failure is thrown (the queue retries it 5 ms later)
        const n = (failuresOf.get(ctx.key) ?? 0) + 1;
        failuresOf.set(ctx.key, n);
        if (n % 3 === 0) throw new Error(error);
        return { requeueAfter: 2000 };
      }
      if (style === 'poll' || style === 'status-loop') {
        // counts failures in status: each failure's write is an event that re-runs the key at once
        const failures = (inv.status.failures ?? 0) + 1;
        if (style === 'status-loop' || failures % 2 === 1) await ctx.client.updateStatus({ ...inv, status: { error, failures } });
        return style === 'poll' ? { requeueAfter: 5000 } : undefined;
      }
      if (inv.status.error !== error) await ctx.client.updateStatus({ ...inv, status: { error } });
      if (style === 'immediate') return { requeueAfter: 1 };
      if (style === 'fixed') return { requeueAfter: 300 };
      throw new Error(error);
    },
  });
}

/** A 10 s outage; an immediate retry sends a request per key per millisecond, so its outage is 0.3 s (that proves it as well, and keeps the test fast). */
function scenario(c: ControllerDefinition, keys: number, outageMs = 10_000): Scenario {
  const workload: WorkloadAction[] = Array.from({ length: keys }, (_, i) => ({ at: 0, type: 'create', object: { kind: KIND, metadata: { name: `inv-${i}`, namespace: 'default' }, spec: { amount: i } } }));
  return { seed: 1, controllers: [{ name: c.name }], initialObjects: [], workload, faults: { events: [{ kind: 'test-outage', params: { match: API } }], background: [] }, options: { faultWindowMs: outageMs, settleMs: 3_000 } };
}

const downstream = () => ({ services: [fakeRestService({ baseUrl: API })] });

describe('bounded-downstream-qps: the default judgement against client-go backoff', () => {
  for (const keys of [1, 10, 100]) {
    it(`never fails the client-go default (rate-limited queue plus the event requeue) at ${keys} failing key${keys === 1 ? '' : 's'}`, async () => {
      const c = invoicer('backoff');
      const { verdict } = await judgeScenario(boundedDownstreamQps(), scenario(c, keys), { controllers: [c], options: { downstream, tailMs: 1000 } });
      if (!verdict.ok) throw new Error(`${verdict.summary}\n${verdict.explanation}`);
    });
    for (const style of ['immediate', 'loop', 'fixed'] as const) {
      it(`always fails ${style === 'fixed' ? 'a fixed short requeue (300 ms, under the rate bound)' : style === 'loop' ? 'a retry loop inside reconcile' : 'an immediate requeue (1 ms)'} at ${keys} failing key${keys === 1 ? '' : 's'}`, async () => {
        const c = invoicer(style);
        const { verdict } = await judgeScenario(boundedDownstreamQps(), scenario(c, keys, style === 'immediate' ? 300 : 10_000), { controllers: [c], options: { downstream, tailMs: 1000 } });
        expect(verdict.ok).toBe(false);
        if (!verdict.ok) expect(verdict.explanation).toMatch(/do not grow|without backoff|requests to/);
      });
    }
  }
});

describe('bounded-downstream-qps: what counts as a retry, and its wait', () => {
  // found on the bug zoo's fixed backup controller: each call to its API takes 200 ms to fail, so
  // client-go's 5, 10, 20, 40 ms backoff shows as 205, 210, 220, 240 ms between calls
  const slow = () => ({ services: [fakeRestService({ baseUrl: API, latencyMs: 200 })] });
  // five calls in a row that reach the service and lose their response after 200 ms
  const slowFailures = (c: ControllerDefinition): Scenario => ({
    ...scenario(c, 1, 3_000),
    faults: { events: Array.from({ length: 5 }, (_, nth) => ({ kind: 'flaky-downstream', nth, params: { fail: 'applied-but-lost' } })), background: [] },
  });
  const slowOptions = { downstream: slow, tailMs: 1000, faults: [flakyDownstream] };
  it('measures the wait from the end of the failed reconcile: a slow failing endpoint under client-go backoff passes', async () => {
    const c = invoicer('backoff');
    // five attempts, 201, 210, 220, 240 ms apart (waits 1, 10, 20, 40 ms)
    const { verdict } = await judgeScenario(boundedDownstreamQps(), slowFailures(c), { controllers: [c], options: slowOptions });
    if (!verdict.ok) throw new Error(`${verdict.summary}\n${verdict.explanation}`);
  });
  it('still fails a fixed short requeue against the slow endpoint (300 ms after every 200 ms failure)', async () => {
    const c = invoicer('fixed');
    const { verdict } = await judgeScenario(boundedDownstreamQps(), slowFailures(c), { controllers: [c], options: slowOptions });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.summary).toMatch(/retried without backoff \(waits [^)]*300 ms, 300 ms/);
  });

  // found on the bug zoo's fixed purchase-order controller: another writer touched the object
  // after each failure (api-conflict), and each of its events started a reconcile at once, as
  // client-go's queue does past any backoff
  const touchedByOthers = (c: ControllerDefinition): Scenario => {
    // an outage as long as the edits: every attempt of the backing-off controller is one an edit started
    const s = scenario(c, 1, 25);
    const touches: WorkloadAction[] = Array.from({ length: 10 }, (_, i) => ({ at: 1 + 2 * i, type: 'patch', kind: KIND, key: 'default/inv-0', patch: { metadata: { annotations: { 'example.com/touched': String(i) } } } }));
    return { ...s, workload: [...s.workload, ...touches] };
  };
  it('does not count reconciles that events from other writers started: client-go backoff with a user editing the failing object passes', async () => {
    const c = invoicer('backoff');
    const { verdict, run } = await judgeScenario(boundedDownstreamQps(), touchedByOthers(c), { controllers: [c], options: { downstream, tailMs: 1000 } });
    // the edits did start reconciles 2 ms apart, each failing
    expect(run.trace.filter((e) => e.type === 'reconcile:start' && e.t <= 25).length).toBeGreaterThanOrEqual(8);
    if (!verdict.ok) throw new Error(`${verdict.summary}\n${verdict.explanation}`);
  });
  it('still fails an immediate requeue when other writers edit the failing object too', async () => {
    const c = invoicer('immediate');
    const { verdict } = await judgeScenario(boundedDownstreamQps({ maxRequests: 10_000 }), touchedByOthers(c), { controllers: [c], options: { downstream, tailMs: 1000 } });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.summary).toMatch(/retried without backoff \(waits 1 ms, 1 ms/);
  });

  // found on the corpus's queue-scaler: it polls every 5 s and records failures in status, and
  // each status write re-runs the key at once (an event: client-go adds it past any backoff)
  it('does not count reconciles its own status write started: a 5 s poll that records every other failure passes', async () => {
    const c = invoicer('poll');
    const { verdict, run } = await judgeScenario(boundedDownstreamQps(), scenario(c, 1, 30_000), { controllers: [c], options: { downstream, tailMs: 1000 } });
    // the re-runs happened: reconciles that began within 5 ms of the previous one's end
    const ends = run.trace.filter((e) => e.type === 'reconcile:end').map((e) => e.t);
    const reruns = run.trace.filter((e) => e.type === 'reconcile:start' && ends.some((t) => e.t >= t && e.t - t <= 5));
    expect(reruns.length).toBeGreaterThanOrEqual(2);
    if (!verdict.ok) throw new Error(`${verdict.summary}\n${verdict.explanation}`);
  });
  it('still fails a controller whose retry is its own status write (re-run at watch speed)', async () => {
    const c = invoicer('status-loop');
    const { verdict } = await judgeScenario(boundedDownstreamQps(), scenario(c, 1, 300), { controllers: [c], options: { downstream, tailMs: 1000 } });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.summary).toMatch(/requests to|QPS/);
  });
  // found on the corpus's domain-verification: a 2 s poll whose other failures are thrown; a
  // requeueAfter result resets the queue's backoff (client-go's Forget), so those retry at 5 ms
  it('judges the requeueAfter waits and each run of the queue backoff apart: a 2 s poll that sometimes throws passes', async () => {
    const c = invoicer('poll-throws');
    const { verdict } = await judgeScenario(boundedDownstreamQps(), scenario(c, 1, 30_000), { controllers: [c], options: { downstream, tailMs: 1000 } });
    if (!verdict.ok) throw new Error(`${verdict.summary}\n${verdict.explanation}`);
  });
});
