import { defineController, fakeRestService, fromVirtualTimestamp, isStoreError, virtualTimestamp, type ReconcileContext, type JsonObject, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A singleton cron that must not double-fire, run without the manager's leader election
 * (`leaderElection: false`: every replica of a rolling update reconciles at once), so each
 * firing is claimed through a per-schedule coordination.k8s.io `Lease`, the way client-go's
 * leader election takes one: an update with the resourceVersion it read (two replicas that both
 * saw the slot unclaimed cannot both win), holderIdentity and renewTime saying who fires and
 * until when the claim holds.
 *
 * A `ReportSchedule` posts a report run to a downstream reports API (a webhook receiver with no
 * idempotency keys: every POST is a run) at every `everyMs` after its creation, `runs` times.
 * Slot n is fired once, in order, late slots caught up one by one (a report per period is owed).
 * The Lease `<schedule>-cron` carries the slot last claimed and the slot last fired (annotations);
 * the claim is made before the POST and the firing recorded after it. A claim another replica
 * holds is left alone until it expires (`LEASE_MS`, longer than the API's timeout); a claim of
 * its own (a retry, a restart: the identity is the replica's) or an expired one is taken over,
 * and the new holder first looks at the API for the slot's run, since the earlier holder may have
 * posted it and died before recording it. `status.firedRuns` reports the slots fired.
 *
 * Its buggy twin claims the slot with a merge patch (no resourceVersion precondition, last
 * writer wins) and trusts a claim it wrote without looking at the API: two replicas that both saw
 * the slot unclaimed both "win" and both post the run, and a replica restarted between its POST
 * and the record of it posts the run again.
 */
export const REPORT_SCHEDULE = 'ReportSchedule';
export const REPORTS_API = 'https://reports.example/v1';
const CLAIMED = 'cron.example.com/claimed-slot';
const FIRED = 'cron.example.com/fired-slot';
/** How long a claim holds (longer than the reports API's timeout, 5 s: a live holder's POST has landed or failed by then). */
const LEASE_MS = 15_000;
/** The reports API client's timeout. */
const API_TIMEOUT_MS = 5_000;

interface ScheduleSpec {
  everyMs: number;
  runs: number;
  report: string;
}
interface ScheduleStatus {
  firedRuns?: number;
  observedGeneration?: number;
}
interface Run {
  schedule: string;
  slot: number;
  report: string;
}
type Schedule = StoredObject<ScheduleSpec, ScheduleStatus>;

const slotOf = (lease: StoredObject, key: string) => {
  const n = Number(lease.metadata.annotations[key] ?? '0');
  return Number.isInteger(n) && n >= 0 ? n : 0;
};

function define(mistake: 'none' | 'patch-claim') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const s = (await ctx.client.tryGet<ScheduleSpec, ScheduleStatus>(REPORT_SCHEDULE, ctx.key, { live: true })) as Schedule | undefined;
    if (!s || s.metadata.deletionTimestamp !== undefined) return;
    const every = Math.max(1000, s.spec.everyMs);
    const total = Math.max(0, Math.floor(s.spec.runs));
    const created = fromVirtualTimestamp(s.metadata.creationTimestamp);
    const now = ctx.clock.now();
    const due = Math.min(total, Math.floor((now - created) / every));
    const me = `${ctx.controller}-${ctx.replica}`;
    const ref = { namespace: s.metadata.namespace, name: `${s.metadata.name}-cron` };
    let lease: StoredObject | undefined = await ctx.client.tryGet('Lease', ref, { live: true });
    if (!lease) {
      try {
        lease = await ctx.client.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { ...ref, ownerReferences: [controllerRef(s)], annotations: { [CLAIMED]: '0', [FIRED]: '0' } },
          spec: { holderIdentity: me, leaseDurationSeconds: LEASE_MS / 1000, renewTime: virtualTimestamp(now) },
        });
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
        lease = await ctx.client.get('Lease', ref, { live: true });
      }
    }
    // a Lease of an earlier schedule of this name: the garbage collector removes it soon
    if (!controlledBy(lease, s)) throw new Error(`Lease ${ref.name} belongs to an earlier ${REPORT_SCHEDULE} of this name`);
    const api = jsonApi(ctx.fetch, REPORTS_API);
    let fired = slotOf(lease, FIRED);
    while (fired < due) {
      const next = fired + 1;
      const holder: unknown = lease.spec['holderIdentity'];
      const renewed = typeof lease.spec['renewTime'] === 'string' ? fromVirtualTimestamp(lease.spec['renewTime']) : 0;
      if (slotOf(lease, CLAIMED) === next && holder !== me && now < renewed + LEASE_MS) {
        // another replica is firing it: look again when its claim expires (its record of the firing wakes us first)
        await writeStatus(ctx, s, { firedRuns: fired, observedGeneration: s.metadata.generation });
        return { requeueAfter: renewed + LEASE_MS - now };
      }
      const claim: JsonObject = { metadata: { annotations: { [CLAIMED]: String(next) } }, spec: { holderIdentity: me, renewTime: virtualTimestamp(now) } };
      // a claim of its own with time left for a POST is not written again: found by the hunt (bounded-downstream-qps under a
      // reports API outage): a claim renewed on every retry woke the schedule at once through its own Lease event, past the backoff
      const fresh = slotOf(lease, CLAIMED) === next && holder === me && now < renewed + LEASE_MS - API_TIMEOUT_MS;
      if (mistake === 'patch-claim') {
        // BUG (patch-claim): no resourceVersion precondition: a claim raced by another replica also "wins"
        if (!fresh) lease = await ctx.client.patch('Lease', ref, claim);
        await api.create<Run>('runs', { schedule: s.metadata.uid, slot: next, report: s.spec.report });
      } else {
        // the claim: 409 when another replica wrote the Lease since we read it (the retry reads it again)
        if (!fresh) lease = await ctx.client.patch('Lease', ref, claim, { resourceVersion: lease.metadata.resourceVersion });
        // an earlier holder of this claim (this replica before a restart, or one whose claim expired) may have posted it
        const there = await api.list<Run>('runs', { schedule: s.metadata.uid, slot: String(next) });
        if (there.length === 0) await api.create<Run>('runs', { schedule: s.metadata.uid, slot: next, report: s.spec.report });
      }
      lease = await ctx.client.patch('Lease', ref, { metadata: { annotations: { [FIRED]: String(next) } } }, { resourceVersion: lease.metadata.resourceVersion });
      fired = next;
    }
    await writeStatus(ctx, s, { firedRuns: fired, observedGeneration: s.metadata.generation });
    return due < total ? { requeueAfter: created + (due + 1) * every - now } : undefined;
  };
}

const defineLeaseCron = (mistake: 'none' | 'patch-claim') =>
  defineController({
    name: 'lease-cron',
    for: REPORT_SCHEDULE,
    owns: ['Lease'],
    // no manager-wide election: the per-schedule Lease is the lock
    leaderElection: false,
    resyncPeriodMs: RESYNC_MS,
    reconcile: define(mistake),
  });

export const leaseCronController = defineLeaseCron('none');

const schedule = (name: string, everyMs: number, runs: number, report: string) => ({ apiVersion: 'reports.example.com/v1', kind: REPORT_SCHEDULE, metadata: { name, namespace: 'default' }, spec: { everyMs, runs, report } });

export const leaseCron: FalsePositiveCase = {
  name: 'lease-cron',
  description: 'a singleton cron run without manager leader election (replicas active at once): each ReportSchedule slot is claimed through a per-schedule Lease with a resourceVersion-guarded update before its run is posted to a downstream reports API, a claim of a dead holder taken over after it expires, the API looked at first',
  controllers: [leaseCronController],
  options: {
    // two schedules: a daily-style digest every 3 s (4 runs) and an audit every 5 s (2 runs); the digest's period is changed at 4 s
    story: {
      objects: [schedule('digest', 3000, 4, 'digest'), schedule('audit', 5000, 2, 'audit')],
      actions: [{ at: 4000, type: 'patch', kind: REPORT_SCHEDULE, key: 'default/digest', patch: { spec: { everyMs: 2000 } } }],
    },
    objects: { kind: REPORT_SCHEDULE, name: 'report', spec: [{ everyMs: 3000, runs: 3, report: 'digest' }, { everyMs: 2000, runs: 4, report: 'audit' }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: REPORTS_API })], timeoutMs: API_TIMEOUT_MS }),
  },
  buggy: {
    controllers: [defineLeaseCron('patch-claim')],
    caughtBy: ['no-duplicate-side-effects'],
    // (second-replica alone catches it too since stop 44: two active replicas' API calls are round trips that interleave, both
    // read the slot unclaimed, both merge-patch their claim and both post the run)
    why: 'it trusts a claim it wrote and posts without looking at the API (and claims with a merge patch without the resourceVersion it read): a retry after the record of a firing was refused, or after a restart between its POST and that record, posts the run again',
  },
};
