import { http, HttpResponse } from 'msw';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Probe` polls an external health endpoint every 5 s (`requeueAfter`) and reports a
 * `Reachable` condition, written only when its status or reason change: a flaky endpoint flips it
 * and it recovers. Written by the sixth red team (rt45); its twin that stamped each probe's time
 * into the condition's message (a write per poll) was caught by no-hot-loop, a class the bug zoo
 * keeps, so the corpus gate does not spend 100 runs on it again.
 */
export const PROBE = 'Probe';
const HEALTH = 'https://health.example';

interface ProbeSpec {
  target: string;
}
interface ProbeStatus {
  conditions?: Condition[];
  observedGeneration?: number;
}

function healthPoller(): ControllerDefinition {
  return defineController({
    name: 'health-poller',
    for: PROBE,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx: ReconcileContext) {
      const p = await ctx.client.tryGet<ProbeSpec, ProbeStatus>(PROBE, ctx.key);
      if (!p || p.metadata.deletionTimestamp !== undefined) return;
      let ok = false;
      let reason = 'Unreachable';
      try {
        const res = await ctx.fetch(`${HEALTH}/targets/${p.spec.target}`);
        ok = res.ok;
        reason = res.ok ? 'Healthy' : `HTTP${res.status}`;
      } catch {
        reason = 'Unreachable';
      }
      const conditions = setCondition(p.status.conditions, { type: 'Reachable', status: ok ? 'True' : 'False', reason, message: ok ? 'target answered' : 'target did not answer', observedGeneration: p.metadata.generation }, ctx.clock.now());
      await writeStatus(ctx, p, { conditions, observedGeneration: p.metadata.generation });
      return { requeueAfter: 5_000 };
    },
  });
}

export const healthPollerCase: FalsePositiveCase = {
  name: 'health-poller',
  description: 'a Probe polls an external health endpoint every 5 s and reports a Reachable condition, written only when its status or reason change',
  controllers: [healthPoller()],
  options: {
    objects: { kind: PROBE, name: 'db', spec: [{ target: 'db' }, { target: 'cache' }] },
    downstream: () => ({ handlers: [http.get(`${HEALTH}/targets/:t`, () => HttpResponse.json({ ok: true }))], timeoutMs: 2_000 }),
  },
};
