import { describe, expect, it } from 'vitest';
import { drift } from '../../faults/drift.js';
import { flakyDownstream } from '../../faults/flaky-downstream.js';
import { boundedDownstreamQps } from '../../properties/bounded-downstream-qps.js';
import { idempotence } from '../../properties/idempotence.js';
import { defaultProperties } from '../../properties/index.js';
import { staleReplay } from '../../properties/_internals/replayed.js';
import { timelineOf } from '../../properties/_internals/timeline.js';
import { defineController, type StoredObject } from '../../src/index.js';
import { simulate } from '../../src/harness/simulate.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { BUCKET, bucket, storageDownstream } from '../../examples/property-targets/bucket.js';
import { expectFailure, judgeAll, judgeScenario } from '../helpers/property-laws.js';

// Issue 12 item 6: "look the external resource up before creating it" was printed for a controller
// that did look it up; the real cause was an idempotency key reused after an out-of-band delete, so
// the service replayed the old 201. The request log now carries response headers
// (`idempotent-replayed`, `location`), and the advice names that mechanism.

const API = 'https://storage.example/buckets';
type Bucket = StoredObject<{ region: string }, { bucketId?: string }>;

/** A level-triggered bucket controller: looks its bucket up, creates one when it is missing. `keyOf` picks the idempotency key. */
const buckets = (keyOf: ((b: Bucket) => string) | undefined, requeueMs = 0) =>
  defineController({
    name: 'bucket',
    for: BUCKET,
    resyncPeriodMs: 5_000,
    async reconcile(ctx) {
      const b = (await ctx.client.tryGet(BUCKET, ctx.key, { live: true })) as Bucket | undefined;
      if (!b) return undefined;
      if (b.status.bucketId !== undefined) {
        const res = await ctx.fetch(`${API}/${b.status.bucketId}`);
        if (res.ok) return undefined;
        if (res.status !== 404) throw new Error(`get bucket: ${res.status}`);
      }
      const res = await ctx.fetch(API, { method: 'POST', headers: keyOf ? { 'Idempotency-Key': keyOf(b) } : {}, body: JSON.stringify({ owner: ctx.key, region: b.spec.region }) });
      if (!res.ok) throw new Error(`create bucket: ${res.status}`);
      const made = (await res.json()) as { id: string };
      if (b.status.bucketId !== made.id) await ctx.client.updateStatus({ ...b, status: { bucketId: made.id } });
      return requeueMs > 0 ? { requeueAfter: requeueMs } : undefined;
    },
  });
const uidKey = (b: Bucket) => b.metadata.uid;
// the key names the bucket the create replaces: a create after a deletion sends a new key
const replacesKey = (b: Bucket) => `${b.metadata.uid}/${b.status.bucketId ?? 'first'}`;

const deletedOutOfBand: Scenario = {
  seed: 1,
  controllers: [{ name: 'bucket' }],
  initialObjects: [],
  workload: [{ at: 0, type: 'create', object: bucket('b') }],
  faults: { events: [{ kind: 'drift', at: 3000, params: { action: 'delete', pick: 0, external: true } }], background: [] },
  options: { faultWindowMs: 10_000, settleMs: 20_000 },
};
const side = (c: ReturnType<typeof buckets>) => ({ controllers: [c], options: { downstream: storageDownstream } });

describe('advice for an idempotency key reused after the resource it made was deleted', () => {
  it('idempotence names the replayed 201 of a deleted bucket instead of "look it up first"', async () => {
    const v = expectFailure((await judgeScenario(idempotence(), deletedOutOfBand, side(buckets(uidKey)))).verdict);
    expect(v.explanation).toMatch(/the POST at t=30\.0\d* s \(and \d+ later POSTs?\) was answered from the service's idempotency-key cache \(idempotent-replayed: true\) with the 201 of the create at t=0\.00\d s, naming https:\/\/storage\.example\/buckets\/1, which drift \(storage\.example\) had deleted at t=3\.0 s: nothing was created/);
    expect(v.explanation).toMatch(/the controller had looked it up \(GET at t=[\d.]+ s → 404\), so looking up first is not what is missing/);
    expect(v.explanation).toMatch(/derive it from what the create replaces/);
    expect(v.explanation).not.toMatch(/look the external resource up before creating/);
  });

  it('bounded-downstream-qps gives the same advice to a fast poll of replays, not "failures are retried without backoff"', async () => {
    const v = expectFailure((await judgeScenario(boundedDownstreamQps(), deletedOutOfBand, side(buckets(uidKey, 20)))).verdict);
    expect(v.explanation).toMatch(/0 of them failed \(201\)/);
    expect(v.explanation).toMatch(/calls that succeed, repeated/);
    expect(v.explanation).toMatch(/idempotent-replayed: true\) with the 201 of the create at t=0\.00\d s, naming https:\/\/storage\.example\/buckets\/1/);
    expect(v.explanation).not.toMatch(/retried without backoff|rate-limited queue/);
  });

  it('a key that names the bucket it replaces passes every default property', async () => {
    expect((await judgeAll(defaultProperties(), deletedOutOfBand, side(buckets(replacesKey)))).map((f) => `${f.property}: ${f.verdict.summary}`)).toEqual([]);
  });

  it('keeps the old advice when nothing was replayed: a controller that creates without a key', async () => {
    // no key: every create makes a bucket, so the tail POSTs are real creates, not replays
    const blind = defineController({
      name: 'bucket',
      for: BUCKET,
      resyncPeriodMs: 5_000,
      async reconcile(ctx) {
        await ctx.fetch(API, { method: 'POST', body: JSON.stringify({ owner: ctx.key, region: 'eu' }) });
      },
    });
    const v = expectFailure((await judgeScenario(idempotence(), { ...deletedOutOfBand, faults: { events: [], background: [] } }, side(blind))).verdict);
    expect(v.explanation).toMatch(/look the external resource up before creating or changing it/);
    expect(v.explanation).not.toMatch(/idempotency-key cache/);
  });

  it('a replay of a bucket that still exists (a lost response retried) is not the stale replay', async () => {
    const lost: Scenario = { ...deletedOutOfBand, faults: { events: [{ kind: 'flaky-downstream', nth: 0, params: { fail: 'applied-but-lost' } }], background: [] } };
    const { run } = await simulate(lost, { controllers: [buckets(uidKey)], downstream: storageDownstream, faults: [flakyDownstream], properties: [] });
    const requests = timelineOf(run).requests;
    expect(requests.filter((r) => r.headers?.['idempotent-replayed'] === 'true').length).toBeGreaterThan(0);
    expect(staleReplay(run, requests)).toBeUndefined();
  });

  it('a replay of a bucket drift only edited (any action but delete) is not the stale replay: it still exists', async () => {
    // posts on every pass with one key: every POST after the first is a replay of a bucket that exists
    const posting = defineController({
      name: 'bucket',
      for: BUCKET,
      resyncPeriodMs: 5_000,
      async reconcile(ctx) {
        const b = (await ctx.client.tryGet(BUCKET, ctx.key, { live: true })) as Bucket | undefined;
        if (!b) return undefined;
        await ctx.fetch(API, { method: 'POST', headers: { 'Idempotency-Key': b.metadata.uid }, body: JSON.stringify({ owner: ctx.key, region: b.spec.region }) });
        return undefined;
      },
    });
    const edited: Scenario = { ...deletedOutOfBand, faults: { events: [{ kind: 'drift', at: 3000, params: { action: 'annotation', pick: 0, external: true } }], background: [] } };
    const { run } = await simulate(edited, { controllers: [posting], downstream: storageDownstream, faults: [drift], properties: [] });
    const requests = timelineOf(run).requests;
    expect(run.trace.some((e) => e.type === 'fault:inject' && e['kind'] === 'drift' && e['action'] === 'annotation')).toBe(true);
    expect(requests.filter((r) => r.t > 3000 && r.headers?.['idempotent-replayed'] === 'true').length).toBeGreaterThan(0);
    expect(staleReplay(run, requests)).toBeUndefined();
  });
});
