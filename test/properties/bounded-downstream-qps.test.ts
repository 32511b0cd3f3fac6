import { defineController } from '../../src/runtime/define-controller.js';
import { describe, expect, it } from 'vitest';
import { boundedDownstreamQps } from '../../properties/bounded-downstream-qps.js';
import { bucket, bucketCorrect, bucketRetryStormBuggy, storageDownstream } from '../../examples/property-targets/bucket.js';
import { createAll, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, judgeScenario, propertyLaws } from '../helpers/property-laws.js';

// the endpoint fails every call during the fault window
const outage = { events: [], background: [{ kind: 'flaky-downstream', rate: 1, params: { fail: 'status', status: 503 } }] };
const scenario = widgetScenario(['bucket'], createAll([bucket('logs')]), { faults: outage });
const options = { downstream: storageDownstream };

propertyLaws({
  property: boundedDownstreamQps(),
  buggy: { controllers: [bucketRetryStormBuggy], scenario, options },
  correct: {
    controllers: [bucketCorrect],
    options,
    scenarios: [
      { name: 'fault-free', scenario: { ...scenario, faults: { events: [], background: [] } } },
      { name: 'endpoint failing every call', scenario },
      { name: 'failing endpoint and event loss', scenario: { ...scenario, faults: { events: [], background: [...outage.background, { kind: 'event-loss', rate: 0.3 }] } } },
      { name: 'test outage fault', scenario: { ...scenario, faults: { events: [{ kind: 'test-outage', params: { match: 'storage.example' } }], background: [] } } },
    ],
  },
  explains: ['POST https://storage.example/buckets', 'within 2.0 s', 'bound 10 per 1.0 s', 'for default/logs', '503', 'they do not grow', /the downstream call POST https:\/\/storage.example\/buckets at t=0\.001 s answered 503 \(flaky-downstream\), and \d+ more flaky-downstream injections until t=/],
});

describe('boundedDownstreamQps', () => {
  it('counts per endpoint and shows the retry gaps as evidence', async () => {
    const v = expectFailure((await judgeScenario(boundedDownstreamQps(), scenario, { controllers: [bucketRetryStormBuggy], options })).verdict);
    expect(v.evidence['endpoint']).toBe('POST https://storage.example/buckets');
    expect(v.evidence['count']).toBeGreaterThan(10);
    expect((v.evidence['gapsMs'] as number[]).every((g) => g === 10)).toBe(true);
  });
  it('reports the peak when it holds', async () => {
    const { verdict } = await judgeScenario(boundedDownstreamQps(), scenario, { controllers: [bucketCorrect], options });
    expect(verdict.ok && verdict.stats?.['peakPerWindow']).toBeGreaterThan(3);
  });
  it('can require backoff even under the rate bound', async () => {
    const { verdict } = await judgeScenario(boundedDownstreamQps({ maxRequests: 10_000, requireBackoff: true }), scenario, { controllers: [bucketRetryStormBuggy], options });
    expect(expectFailure(verdict).summary).toMatch(/retried without backoff \(waits 10 ms, 10 ms/);
    const ok = await judgeScenario(boundedDownstreamQps({ requireBackoff: true }), scenario, { controllers: [bucketCorrect], options });
    expect(ok.verdict.ok).toBe(true);
  });
});

describe('boundedDownstreamQps false positives (regressions)', () => {
  it('counts each controller process on its own: two replicas that both back off are not a retry storm', async () => {
    // found by bench/hunt-false-positives.ts: under a second replica without leader election
    // (split brain) each process retried one Bucket with its own exponential backoff, and the
    // two sequences together passed the per-key bound
    const twoReplicas = { ...scenario, controllers: [{ name: 'bucket', replicas: 2 }] };
    const strict = boundedDownstreamQps({ sustainedMs: 1000 });
    // both processes active: declared without leader election
    const unelected = (c: typeof bucketCorrect) => defineController({ name: c.name, for: c.for, owns: [...c.owns], resyncPeriodMs: c.resyncPeriodMs, rateLimiter: c.rateLimiter, leaderElection: false, reconcile: c.reconcile });
    const { verdict, run } = await judgeScenario(strict, twoReplicas, { controllers: [unelected(bucketCorrect)], options });
    expect(new Set(run.requests.map((r) => r.actor)).size).toBe(2);
    expect(verdict).toMatchObject({ ok: true, stats: { peakPerWindow: 8 } });
    // counted per endpoint, both processes together exceed the bound
    expect(boundedDownstreamQps({ sustainedMs: 1000, per: 'endpoint' }).judge(run, undefined).ok).toBe(false);
    // and one process storming is still caught with two running
    const storm = await judgeScenario(strict, twoReplicas, { controllers: [unelected(bucketRetryStormBuggy)], options });
    expect(expectFailure(storm.verdict).summary).toMatch(/by controller:bucket\/[01]/);
  });
});
