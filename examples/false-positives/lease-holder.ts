import { http, HttpResponse } from 'msw';
import { defineController, type ControllerDefinition } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Report` is published to an external renderer that takes one writer per report: the
 * controller holds a lock at a lock service (PUT with holder = the Report's uid and a 30 s TTL),
 * renews it on a pass that finds less than 15 s left (client-go's leader election and
 * cert-manager's renewBefore work so), requeues itself every 10 s, and publishes only while it
 * holds the lock. The holder is the Report's uid, so a restarted or second replica takes the same
 * lock over instead of waiting out the TTL. Found by the sixth red team (rt45, FA-2): the quiet
 * tail's extra reconcile, or a resync, lands in the renewal window a moment before the timer's pass
 * and renews there, and the timer's pass then finds the lock fresh: one renewal either way, which
 * idempotence and no-hot-loop charged to the extra reconcile (properties/_internals/scheduled.ts,
 * `movedEarlier`).
 */
export const REPORT = 'Report';
const LOCKS = 'https://locks.example';
const TTL_MS = 30_000;
const RENEW_WITHIN_MS = 15_000;

interface ReportSpec {
  title: string;
}
interface ReportStatus {
  published?: string;
  observedGeneration?: number;
}

function leaseHolder(mistake: 'none' | 'renew-always'): ControllerDefinition {
  return defineController({
    name: 'lease-holder',
    for: REPORT,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx) {
      const rep = await ctx.client.tryGet<ReportSpec, ReportStatus>(REPORT, ctx.key);
      if (!rep || rep.metadata.deletionTimestamp !== undefined) return;
      const lockUrl = `${LOCKS}/locks/${rep.metadata.namespace}-${rep.metadata.name}`;
      const now = ctx.clock.now();
      const got = await ctx.fetch(lockUrl);
      if (got.status !== 404 && !got.ok) throw new Error(`GET lock: ${got.status}`);
      const lock = got.ok ? ((await got.json()) as { holder: string; expiresAt: number }) : undefined;
      const mine = lock?.holder === rep.metadata.uid && lock.expiresAt > now;
      if (lock && !mine && lock.expiresAt > now) return { requeueAfter: lock.expiresAt - now };
      // the buggy twin renews on every pass: every event or resync is a mutating call
      if (!mine || lock!.expiresAt - now < RENEW_WITHIN_MS || mistake === 'renew-always') {
        const res = await ctx.fetch(lockUrl, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-now': String(now) }, body: JSON.stringify({ holder: rep.metadata.uid, ttlMs: TTL_MS }) });
        if (!res.ok) throw new Error(`PUT lock: ${res.status}`);
      }
      const title = rep.spec.title;
      if (rep.status.published !== title) {
        const res = await ctx.fetch(`${LOCKS}/reports/${rep.metadata.uid}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
        if (!res.ok) throw new Error(`PUT report: ${res.status}`);
      }
      await writeStatus(ctx, rep, { published: title, observedGeneration: rep.metadata.generation });
      return { requeueAfter: 10_000 };
    },
  });
}

/** The lock service: the caller's clock in `x-now` (a handler has no virtual clock of its own). A fresh one per run. */
function lockServer() {
  const locks = new Map<string, { holder: string; expiresAt: number }>();
  const reports = new Map<string, string>();
  return [
    http.get(`${LOCKS}/locks/:id`, ({ params }) => {
      const l = locks.get(String(params['id']));
      return l ? HttpResponse.json(l) : HttpResponse.json({ error: 'none' }, { status: 404 });
    }),
    http.put(`${LOCKS}/locks/:id`, async ({ params, request }) => {
      const now = Number(request.headers.get('x-now'));
      const b = (await request.json()) as { holder: string; ttlMs: number };
      const cur = locks.get(String(params['id']));
      if (cur && cur.holder !== b.holder && cur.expiresAt > now) return HttpResponse.json({ error: 'held' }, { status: 409 });
      const l = { holder: b.holder, expiresAt: now + b.ttlMs };
      locks.set(String(params['id']), l);
      return HttpResponse.json(l);
    }),
    http.put(`${LOCKS}/reports/:id`, async ({ params, request }) => {
      const b = (await request.json()) as { title: string };
      reports.set(String(params['id']), b.title);
      return HttpResponse.json(b);
    }),
  ];
}

export const leaseHolderController = leaseHolder('none');

export const leaseHolderCase: FalsePositiveCase = {
  name: 'lease-holder',
  description: 'an external single-writer lock (30 s TTL) renewed on a pass that finds it expiring within 15 s, a pass every 10 s, and a report published only while holding it; two replicas with leader election',
  controllers: [leaseHolderController],
  options: {
    objects: { kind: REPORT, name: 'q3', spec: [{ title: 'Q3' }, { title: 'Q3 final' }] },
    replicas: 2,
    downstream: () => ({ handlers: lockServer(), timeoutMs: 2_000 }),
    // a settle phase longer than the lock's TTL: a Report deleted and recreated takes over only once
    // its old incarnation's lock (held by the old uid, no finalizer to release it) expires, up to
    // 30 s later (found by aimed swarm search, stop 46: created at 28.8 s and recreated 2 ms later,
    // published at 58.8 s, and the default 30 s settle ended at 60 s with no quiet check left; the
    // same plan drawn blind fails the same way)
    settleMs: 60_000,
  },
  buggy: {
    controllers: [leaseHolder('renew-always')],
    caughtBy: ['idempotence'],
    why: 'it renews the lock on every pass: each extra reconcile and resync is a mutating call the timer would not have made',
  },
};
