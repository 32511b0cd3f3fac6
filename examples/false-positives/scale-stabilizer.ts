import { http, HttpResponse } from 'msw';
import { CrashedError, defineController, defineProperty, fromVirtualTimestamp, isStoreError, virtualTimestamp, type Client, type JsonObject, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Scaler` sizes the Deployment of its own name (the HorizontalPodAutoscaler's
 * `scaleTargetRef`, by convention here) from a replica recommendation it reads from an external
 * metrics API every POLL_MS (`requeueAfter`), clamped to [minReplicas, maxReplicas]. Like the HPA's
 * default behaviour it scales UP at once but DOWN only to the highest recommendation of the last
 * WINDOW_MS (`behavior.scaleDown.stabilizationWindowSeconds`): a recommendation that dips for a
 * moment does not shed Pods that are needed again a few seconds later. It writes only the
 * Deployment's `spec.replicas` (a merge patch, as the HPA writes the scale subresource), never
 * creates or owns it: the Deployment is the user's.
 *
 * The recommendation history is kept IN STATUS (`status.recommendation`, the latest one, and
 * `status.stabilization`, the higher recommendations superseded within the window, each with
 * the time it was last recommended). kube-controller-manager's HPA keeps it in memory and loses it
 * when the controller restarts (or fails over to another replica), so a restart right after a dip
 * scales down at once; that is a known limit of the HPA, not a property worth copying: a
 * controller that promises a stabilization window keeps it across its own restarts, and a status
 * is where a controller keeps what it must not forget. The history is written compactly so that
 * a steady recommendation costs no write: nothing is recorded while the recommendation stays the
 * same (its "last recommended" is implicitly now); when it changes, the previous one is pushed
 * with `lastRecommended = now` (at most one poll later than the last time the API actually said
 * it: the hold errs on the long side), entries that expired or that the current recommendation
 * (fresher) dominates are dropped. The status is written BEFORE the Deployment is scaled, so a
 * crash between the two leaves a history that asks for at least what was applied. A failed
 * metrics call (HTTP error, timeout, reset) is a missing reading: the size stays, a condition
 * says why, the next poll tries again. The Scaler is read live (its status is the memory).
 *
 * Its buggy twin keeps the history in memory, per controller incarnation, as the HPA does: after a
 * crash-restart within the window of a dip, it scales the Deployment down at once, caught by this
 * case's own oracle `scale-down-stabilization` (no other property: the end state is the same, as
 * the window ends anyway; only when the Pods went is wrong).
 */
export const SCALER = 'Scaler';
export const RECOMMENDER_API = 'https://recommender.example/v1';
/** How often the recommendation is read (the HPA's --horizontal-pod-autoscaler-sync-period defaults to 15 s). */
const POLL_MS = 3_000;
/** The scale-down stabilization window (the HPA's default is 300 s). */
export const WINDOW_MS = 10_000;

interface ScalerSpec {
  metric: string;
  minReplicas: number;
  maxReplicas: number;
}
interface Held extends JsonObject {
  replicas: number;
  lastRecommended: string;
}
interface ScalerStatus {
  recommendation?: number;
  desiredReplicas?: number;
  stabilization?: Held[];
  observedGeneration?: number;
  conditions?: Condition[];
}

/** The metrics API's recommendation per metric (fixed per run: what changes is which metric a Scaler follows). */
export const RECOMMENDATIONS: Readonly<Record<string, number>> = { peak: 6, steady: 4, calm: 2 };

const clamp = (s: ScalerSpec, n: number) => Math.min(s.maxReplicas, Math.max(s.minReplicas, n));

/** The history after a reading: `prev` pushed when `cur` replaces it, then expired and dominated entries dropped. */
export function stabilize(held: readonly Held[], prev: number | undefined, cur: number | undefined, now: number): Held[] {
  const all = [...held];
  if (prev !== undefined && cur !== undefined && cur !== prev) all.push({ replicas: prev, lastRecommended: virtualTimestamp(now) });
  const live = all.filter((h) => fromVirtualTimestamp(h.lastRecommended) + WINDOW_MS > now && (cur === undefined || h.replicas > cur));
  // an entry a later one recommends at least as much as adds nothing
  return live.filter((h, i) => !live.some((o, j) => j !== i && o.replicas >= h.replicas && (fromVirtualTimestamp(o.lastRecommended) > fromVirtualTimestamp(h.lastRecommended) || (o.lastRecommended === h.lastRecommended && j > i))));
}

/** The memory of the buggy twin: per controller incarnation (its client), per Scaler uid. */
const memory = new WeakMap<Client, Map<string, { recommendation?: number; held: Held[] }>>();

function define(mistake: 'none' | 'memory') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const s = await ctx.client.tryGet<ScalerSpec, ScalerStatus>(SCALER, ctx.key, { live: true });
    if (!s || s.metadata.deletionTimestamp !== undefined) return;
    const ns = s.metadata.namespace;
    const now = ctx.clock.now();
    let rec: number | undefined;
    let failure: string | undefined;
    try {
      // the metrics API is asked on behalf of the Scaler (its uid, for the API's audit log)
      const q = new URLSearchParams({ namespace: ns ?? '', target: s.metadata.name, scaler: s.metadata.uid });
      const res = await ctx.fetch(`${RECOMMENDER_API}/recommendations/${encodeURIComponent(s.spec.metric)}?${q.toString()}`);
      if (res.ok) {
        const r = (await res.json()) as { replicas?: unknown };
        rec = typeof r.replicas === 'number' ? r.replicas : undefined;
        if (rec === undefined) failure = `metric ${s.spec.metric}: no recommendation`;
      } else failure = res.status === 404 ? `metric ${s.spec.metric} unknown` : `HTTP ${res.status}`;
    } catch (err) {
      // a failed call (timeout, reset, a body cut short) is a missing reading; a crash is not
      if (err instanceof CrashedError || isStoreError(err)) throw err;
      failure = err instanceof Error ? err.name : String(err);
    }
    // BUG (memory): the history lives in this incarnation's memory, as the HPA's does
    let mem = memory.get(ctx.client);
    if (!mem) memory.set(ctx.client, (mem = new Map()));
    const remembered = mistake === 'memory' ? (mem.get(s.metadata.uid) ?? { held: [] }) : { recommendation: s.status.recommendation, held: s.status.stabilization ?? [] };
    const cur = rec ?? remembered.recommendation;
    const held = stabilize(remembered.held, remembered.recommendation, cur, now);
    if (mistake === 'memory') mem.set(s.metadata.uid, { ...(cur !== undefined ? { recommendation: cur } : {}), held });
    const dep = await ctx.client.tryGet('Deployment', { namespace: ns, name: s.metadata.name }, { live: true });
    const current = typeof dep?.spec['replicas'] === 'number' ? dep.spec['replicas'] : 1;
    // without any reading yet, the size stays (clamped)
    const desired = clamp(s.spec, cur === undefined ? current : Math.max(cur, ...held.map((h) => h.replicas)));
    const conditions = setCondition(
      setCondition(
        s.status.conditions,
        { type: 'AbleToScale', status: dep ? 'True' : 'False', reason: dep ? 'TargetFound' : 'TargetMissing', message: dep ? '' : `Deployment ${s.metadata.name} not found`, observedGeneration: s.metadata.generation },
        now,
      ),
      { type: 'MetricsAvailable', status: failure === undefined ? 'True' : 'False', reason: failure === undefined ? 'Read' : 'ReadFailed', message: failure ?? '', observedGeneration: s.metadata.generation },
      now,
    );
    const status: ScalerStatus = {
      ...(cur !== undefined ? { recommendation: cur } : {}),
      ...(dep ? { desiredReplicas: desired } : {}),
      ...(mistake === 'none' && held.length > 0 ? { stabilization: held } : {}),
      observedGeneration: s.metadata.generation,
      conditions,
    };
    // the history first: a crash before the scale leaves a record asking for at least as much
    await writeStatus(ctx, s, status);
    if (dep && dep.metadata.deletionTimestamp === undefined && dep.spec['replicas'] !== desired) await ctx.client.patch('Deployment', { namespace: ns, name: s.metadata.name }, { spec: { replicas: desired } });
    const expiries = held.map((h) => fromVirtualTimestamp(h.lastRecommended) + WINDOW_MS - now);
    return { requeueAfter: Math.max(1, Math.min(POLL_MS, ...expiries)) };
  }
  return defineController({
    name: 'scale-stabilizer',
    for: SCALER,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const scaleStabilizerController = define('none');

const metricsOf = (url: string) => {
  const u = new URL(url);
  return { metric: decodeURIComponent(u.pathname.split('/').pop() ?? ''), namespace: u.searchParams.get('namespace') ?? '', target: u.searchParams.get('target') ?? '', scaler: u.searchParams.get('scaler') ?? '' };
};

const PROBE = 'scale-down-stabilization:replicas';

/**
 * The window, as an oracle: no write of the scaler lowers a Deployment below the highest
 * recommendation (clamped to the Scaler's bounds then) the metrics API gave the same Scaler (by
 * uid: a Scaler deleted and made again starts afresh, as a new HPA does) in the WINDOW_MS before.
 * A probe after every write records each Deployment's replicas and its Scaler's uid and bounds;
 * the judge pairs each decrease with the successful metrics answers of that Scaler.
 */
export const scaleDownStabilization = defineProperty<{ windowMs: number }>({
  name: 'scale-down-stabilization',
  description: 'a scaler never scales a Deployment below the highest recommendation of its stabilization window',
  defaults: { windowMs: WINDOW_MS },
  probes: () => [
    {
      name: PROBE,
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view: WorldView) => {
        const data: JsonObject = {};
        for (const d of view.list('Deployment')) {
          const s = view.get(SCALER, `${d.metadata.namespace ?? ''}/${d.metadata.name}`);
          data[`${d.metadata.namespace ?? ''}/${d.metadata.name}`] = { replicas: typeof d.spec['replicas'] === 'number' ? d.spec['replicas'] : 1, ...(s ? { scaler: s.metadata.uid, min: s.spec['minReplicas'] as number, max: s.spec['maxReplicas'] as number } : {}) };
        }
        return { ok: true, data };
      },
    },
  ],
  judge: (run: RunRecord, o): Verdict => {
    const samples = run.probes[PROBE] ?? [];
    const last = new Map<string, number>();
    for (const sample of samples) {
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      for (const [key, v] of Object.entries(sample.data ?? {}) as [string, { replicas: number; scaler?: string; min?: number; max?: number }][]) {
        const before = last.get(key);
        last.set(key, v.replicas);
        if (before === undefined || v.replicas >= before || !w || w.kind !== 'Deployment' || w.key !== key || !w.actor.startsWith('controller:scale-stabilizer') || v.scaler === undefined) continue;
        const [ns, name] = key.split('/') as [string, string];
        const answers = run.requests.filter((r) => r.status === 200 && r.tEnd <= sample.t && r.tEnd > sample.t - o.windowMs && r.url.startsWith(RECOMMENDER_API)).map((r) => ({ r, m: metricsOf(r.url) })).filter(({ m }) => m.scaler === v.scaler && m.target === name && m.namespace === ns);
        for (const { r, m } of answers) {
          const rec = RECOMMENDATIONS[m.metric];
          if (rec === undefined) continue;
          const floor = Math.min(before, Math.min(v.max ?? rec, Math.max(v.min ?? rec, rec)));
          if (v.replicas < floor)
            return {
              ok: false,
              summary: `Deployment ${key} scaled down from ${before} to ${v.replicas} at ${sample.t} ms, ${sample.t - r.tEnd} ms after the metrics API recommended ${rec} (window ${o.windowMs} ms)`,
              explanation: `The scaler lowered Deployment ${key}'s replicas from ${before} to ${v.replicas} at t=${sample.t} ms (${w.actor}), though its Scaler (uid ${v.scaler}) had been recommended ${rec} replicas by ${r.url} at t=${r.tEnd} ms, within the ${o.windowMs} ms stabilization window: the scale-down did not hold the higher recommendation for the window (a history kept only in memory, lost by a restart, makes the next reading count alone).`,
              evidence: { deployment: key, t: sample.t, from: before, to: v.replicas, recommended: rec, answeredAt: r.tEnd },
            };
        }
      }
    }
    return { ok: true };
  },
});

/** Converged: every Scaler's Deployment at its clamped recommendation, no history held, status observed. */
export function scaled(view: WorldView): true | string {
  for (const s of view.list(SCALER)) {
    if (s.metadata.deletionTimestamp !== undefined) continue;
    const spec = s.spec as unknown as ScalerSpec;
    const status = s.status as ScalerStatus;
    if (status.observedGeneration !== s.metadata.generation) return `Scaler ${s.metadata.name} has not observed generation ${s.metadata.generation}`;
    if (status.stabilization !== undefined) return `Scaler ${s.metadata.name} still holds a recommendation of ${status.stabilization.map((h) => h.replicas).join(', ')}`;
    const rec = RECOMMENDATIONS[spec.metric];
    const d = view.get('Deployment', `${s.metadata.namespace ?? ''}/${s.metadata.name}`);
    if (rec !== undefined && d && d.spec['replicas'] !== clamp(spec, rec)) return `Deployment ${s.metadata.name} has ${String(d.spec['replicas'])} replicas, its Scaler recommends ${clamp(spec, rec)}`;
  }
  return true;
}

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default', labels: { app: name } },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: `${name}:1` }] } } },
});

export const scaleStabilizer: FalsePositiveCase = {
  name: 'scale-stabilizer',
  description: 'an HPA-style Scaler polls a replica recommendation from an external metrics API and scales its Deployment up at once but down only to the highest recommendation of the last 10 s, keeping that history in status so a restart keeps the window',
  controllers: [scaleStabilizerController],
  options: {
    // the Deployments are the user's, there from the start; the workload makes Scalers for them and switches their metric
    story: { objects: [deployment('web'), deployment('api')] },
    objects: {
      kind: SCALER,
      names: ['web', 'api'],
      spec: [
        { metric: 'peak', minReplicas: 1, maxReplicas: 8 },
        { metric: 'calm', minReplicas: 1, maxReplicas: 8 },
        { metric: 'steady', minReplicas: 1, maxReplicas: 5 },
        { metric: 'peak', minReplicas: 3, maxReplicas: 5 },
      ],
    },
    downstream: () => ({
      handlers: [http.get(`${RECOMMENDER_API}/recommendations/:metric`, ({ params }) => (RECOMMENDATIONS[String(params['metric'])] !== undefined ? HttpResponse.json({ id: params['metric'], replicas: RECOMMENDATIONS[String(params['metric'])] }) : new HttpResponse(null, { status: 404 })))],
      timeoutMs: 2_000,
    }),
    maxObjects: 2,
  },
  properties: [scaleDownStabilization(), convergence({ converged: scaled }), ...endStateProperties()],
  buggy: {
    controllers: [define('memory')],
    caughtBy: ['scale-down-stabilization'],
    world: { maxObjects: 2, maxActions: 4 },
    why: 'it keeps the recommendation history in memory, as the HPA does: a crash-restart within the window of a dip forgets the higher recommendation and scales the Deployment down at once',
    // the test's seed: the CI's twin test finds it at run 3 (the seed before took 37; bench/hunt-fp-rate.ts measures how often it shows)
    seed: 37,
  },
};
