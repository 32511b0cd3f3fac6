import { defineController, defineProperty, deployment, podLifecycle, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { apply, contains } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Argo CD's sync waves, in small. An `Application` renders three resources, each with a sync-wave:
 * wave 0 its config (a ConfigMap), wave 1 the Deployment that runs its image with that config,
 * wave 2 the route (a ConfigMap a gateway reads) that sends traffic to that image. A sync
 * operation applies one wave at a time and moves on only once every resource of the wave is
 * Healthy by Argo's health checks (a Deployment: `observedGeneration` caught up with `generation`,
 * every replica updated and available, no old replica left; a ConfigMap: it exists), so traffic
 * never moves to an image before it runs.
 *
 * The operation lives in status (`operation: { revision, wave, phase }`, Argo's operationState):
 * a new revision (a hash of the spec) starts a new operation at the first wave, each advance is
 * written (optimistic, resourceVersion of the live read) before the next wave is applied, so a
 * restarted controller resumes where the operation was. Every rendered resource carries the
 * revision it was applied for (annotation), which is also what the case's oracle reads. Health is
 * judged on a LIVE read of the wave's resources (what was applied a moment ago, not a cache that
 * may not show it yet); a cache is enough to notice drift after a Succeeded operation (self-heal:
 * a new operation walks the waves again, applying only what differs).
 *
 * The oracle, `waves-in-order`: each write the controller makes to a resource of wave w, applied
 * for revision r, comes after every resource of the Application's lower waves had been seen in
 * sync with r and Healthy (by the real health checks) at some write before. (Seen at some point,
 * not "is now": a Pod that dies after a wave completed does not undo the wave, in Argo either.)
 *
 * Its buggy twin checks a Deployment's health by its Available condition alone, as early health
 * checks did: right after the image changes, the status still reports the old ReplicaSet
 * Available, and the route moves to an image no Pod runs yet.
 */
export const APP = 'Application';
const WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
const REVISION_ANNOTATION = 'apps.example.com/revision';
const APP_LABEL = 'apps.example.com/instance';

interface AppSpec {
  image: string;
  config: string;
  replicas: number;
}
interface Operation {
  revision: string;
  wave: number;
  phase: 'Running' | 'Succeeded';
}
interface AppStatus {
  operation?: Operation;
  sync?: 'Synced' | 'OutOfSync';
  health?: 'Healthy' | 'Progressing' | 'Missing';
}
type App = StoredObject<AppSpec, AppStatus>;

const revisionOf = (spec: AppSpec) => shortHash(JSON.stringify([spec.image, spec.config, spec.replicas]));

interface Rendered {
  wave: number;
  object: NewObject & { metadata: { name: string } };
}

/** The Application's resources, each with its wave and the revision it is applied for. */
export function render(app: { metadata: { name: string; namespace?: string | undefined }; spec: AppSpec }, owner?: App): Rendered[] {
  const name = app.metadata.name;
  const rev = revisionOf(app.spec);
  const meta = (suffix: string, wave: number) => ({
    name: `${name}${suffix}`,
    namespace: app.metadata.namespace,
    labels: { [APP_LABEL]: name },
    annotations: { [WAVE_ANNOTATION]: String(wave), [REVISION_ANNOTATION]: rev },
    ...(owner ? { ownerReferences: [controllerRef(owner)] } : {}),
  });
  const labels = { app: name };
  return [
    { wave: 0, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('-config', 0), data: { 'app.conf': app.spec.config } } },
    {
      wave: 1,
      object: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta('', 1),
        spec: {
          replicas: app.spec.replicas,
          selector: { matchLabels: labels },
          template: { metadata: { labels, annotations: { 'apps.example.com/config-hash': shortHash(app.spec.config) } }, spec: { containers: [{ name: 'app', image: app.spec.image }] } },
        },
      },
    },
    { wave: 2, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('-route', 2), data: { backend: name, image: app.spec.image } } },
  ];
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Argo CD's health check of a Deployment: the controller observed this generation, every replica is updated and available, and no old one is left. */
function deploymentHealthy(d: StoredObject): boolean {
  const s = d.status;
  const want = num(d.spec['replicas'] ?? 1);
  if (num(s['observedGeneration']) < d.metadata.generation) return false;
  return num(s['updatedReplicas']) >= want && num(s['replicas']) <= num(s['updatedReplicas']) && num(s['availableReplicas']) >= want;
}

/** The buggy twin's health check: the Available condition, whichever generation it was reported for. */
function availableOnly(d: StoredObject): boolean {
  return ((d.status['conditions'] ?? []) as { type?: string; status?: string }[]).some((c) => c.type === 'Available' && c.status === 'True');
}

export type HealthCheck = (d: StoredObject) => boolean;
const healthy = (o: StoredObject | undefined, deploymentCheck: HealthCheck) => o !== undefined && o.metadata.deletionTimestamp === undefined && (o.kind !== 'Deployment' || deploymentCheck(o));
const inSync = (o: StoredObject | undefined, r: Rendered) => o !== undefined && contains(o, { ...r.object, kind: undefined, apiVersion: undefined, metadata: { labels: r.object.metadata.labels, annotations: r.object.metadata.annotations } });
const refOf = (r: Rendered) => ({ namespace: r.object.metadata.namespace, name: r.object.metadata.name });

function define(deploymentCheck: HealthCheck) {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    // the operation is kept in status: decide on the latest one, not on a cache behind this controller's own writes
    const app = await ctx.client.tryGet<AppSpec, AppStatus>(APP, ctx.key, { live: true });
    if (!app || app.metadata.deletionTimestamp !== undefined) return undefined;
    const resources = render(app, app);
    const waves = [...new Set(resources.map((r) => r.wave))].sort((a, b) => a - b);
    const rev = revisionOf(app.spec);
    let op: Operation = app.status.operation?.revision === rev ? app.status.operation : { revision: rev, wave: waves[0]!, phase: 'Running' };
    if (op.phase === 'Succeeded') {
      // self-heal: a resource someone changed or deleted starts a new operation (from the cache: a stale one only costs a walk that applies nothing)
      const current = await Promise.all(resources.map((r) => ctx.client.tryGet(r.object.kind, refOf(r))));
      if (resources.some((r, i) => !inSync(current[i], r))) op = { revision: rev, wave: waves[0]!, phase: 'Running' };
    }
    let current = app;
    while (op.phase === 'Running') {
      const batch = resources.filter((r) => r.wave === op.wave);
      for (const r of batch) await apply(ctx, r.object);
      // the gate: the wave as the API server holds it now
      const live = await Promise.all(batch.map((r) => ctx.client.tryGet(r.object.kind, refOf(r), { live: true })));
      if (!batch.every((r, i) => inSync(live[i], r) && healthy(live[i], deploymentCheck))) {
        await writeStatus(ctx, current, { operation: op, sync: 'OutOfSync', health: 'Progressing' });
        // the Deployment's status changes bring the next pass (owned); the resync is the backstop
        return undefined;
      }
      const next = waves.find((w) => w > op.wave);
      op = next === undefined ? { revision: rev, wave: op.wave, phase: 'Succeeded' } : { revision: rev, wave: next, phase: 'Running' };
      // recorded before the next wave is applied: a restarted controller resumes here
      if (op.phase === 'Running') {
        current = await ctx.client.updateStatus({ ...current, status: { operation: op, sync: 'OutOfSync', health: 'Progressing' } });
      }
    }
    const cached = await Promise.all(resources.map((r) => ctx.client.tryGet(r.object.kind, refOf(r))));
    const allHealthy = cached.every((o) => healthy(o, deploymentCheck));
    await writeStatus(ctx, current, { operation: op, sync: resources.every((r, i) => inSync(cached[i], r)) ? 'Synced' : 'OutOfSync', health: cached.some((o) => o === undefined) ? 'Missing' : allHealthy ? 'Healthy' : 'Progressing' });
    return undefined;
  };
}

const defineSyncWaves = (deploymentCheck: HealthCheck) =>
  defineController({ name: 'sync-waves', for: APP, owns: ['ConfigMap', 'Deployment'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define(deploymentCheck) });
export const syncWavesController = defineSyncWaves(deploymentHealthy);

const PROBE = 'waves-in-order:resources';
interface ResourceFact {
  wave: number;
  revision: string;
  /** In sync with the revision it carries, and Healthy by Argo's checks. */
  healthy: boolean;
}
/** Per Application key, per resource key (kind/name). */
type Facts = Record<string, Record<string, ResourceFact>>;

const appKey = (o: { metadata: { namespace?: string | undefined; name: string } }) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Every resource the Applications' label selects, with its wave, revision and health. */
function facts(view: WorldView): Facts {
  const out: Facts = {};
  const apps = new Map((view.list(APP) as unknown as App[]).map((a) => [appKey(a), a]));
  for (const kind of ['ConfigMap', 'Deployment']) {
    for (const o of view.list(kind)) {
      const instance = o.metadata.labels[APP_LABEL];
      const wave = o.metadata.annotations[WAVE_ANNOTATION];
      const revision = o.metadata.annotations[REVISION_ANNOTATION];
      if (instance === undefined || wave === undefined || revision === undefined) continue;
      const key = `${o.metadata.namespace ?? ''}/${instance}`;
      // in sync with its revision: checked against the Application's spec when that is still the revision (drift may have edited it since)
      const app = apps.get(key);
      const r = app && revisionOf(app.spec) === revision ? render(app).find((x) => x.object.kind === kind && x.object.metadata.name === o.metadata.name) : undefined;
      (out[key] ??= {})[`${kind}/${o.metadata.name}`] = { wave: Number(wave), revision, healthy: healthy(o, deploymentHealthy) && (r === undefined || inSync(o, r)) };
    }
  }
  return out;
}

/**
 * No resource of a wave is written for a revision before every resource of the lower waves was
 * seen in sync with that revision and Healthy (see the file's comment).
 */
export const wavesInOrder = defineProperty<Record<string, never>>({
  name: 'waves-in-order',
  description: 'a sync operation applies a wave only after every resource of the lower waves was Healthy at its revision',
  defaults: {},
  probes: () => [{ name: PROBE, everyMs: 'write', phases: ['faults', 'settle', 'tail'], fn: (view: WorldView) => ({ ok: true, data: facts(view) as unknown as JsonObject }) }],
  judge: (run: RunRecord): Verdict => {
    // `${app}|${resource}@${revision}`: seen in sync with that revision and Healthy
    const seen = new Set<string>();
    /** Per app, every resource it ever had, with its wave. */
    const resourcesOf = new Map<string, Map<string, number>>();
    for (const sample of run.probes[PROBE] ?? []) {
      const f = (sample.data as unknown as Facts | undefined) ?? {};
      for (const [app, rs] of Object.entries(f)) {
        const all = resourcesOf.get(app) ?? new Map<string, number>();
        resourcesOf.set(app, all);
        for (const [r, x] of Object.entries(rs)) {
          all.set(r, x.wave);
          if (x.healthy) seen.add(`${app}|${r}@${x.revision}`);
        }
      }
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      if (!w || !w.actor.startsWith('controller:sync-waves') || w.error !== undefined || w.noop || w.removed || (w.kind !== 'ConfigMap' && w.kind !== 'Deployment')) continue;
      const name = w.key.includes('/') ? w.key.slice(w.key.indexOf('/') + 1) : w.key;
      const ns = w.key.includes('/') ? w.key.slice(0, w.key.indexOf('/')) : '';
      for (const [app, rs] of Object.entries(f)) {
        if (!app.startsWith(`${ns}/`)) continue;
        const written = rs[`${w.kind}/${name}`];
        if (!written) continue;
        for (const [r, wave] of resourcesOf.get(app) ?? []) {
          if (wave >= written.wave || seen.has(`${app}|${r}@${written.revision}`)) continue;
          return {
            ok: false,
            summary: `Application ${app}: ${w.kind} ${w.key} (wave ${written.wave}) written for revision ${written.revision} at ${sample.t} ms before ${r} (wave ${wave}) was Healthy at that revision`,
            explanation: `At t=${sample.t} ms the controller wrote ${w.kind} ${w.key}, of sync wave ${written.wave}, for revision ${written.revision} of Application ${app}; ${r}, of the lower wave ${wave}, had not yet been seen in sync with that revision and Healthy. A sync operation must wait for every resource of a wave to be Healthy (for a Deployment: observedGeneration caught up, every replica updated and available) before it applies the next.`,
            evidence: { app, t: sample.t, written: `${w.kind}/${w.key}`, wave: written.wave, revision: written.revision, notHealthy: r },
          };
        }
      }
    }
    return { ok: true };
  },
});

/** Settled: every Application's operation Succeeded for its current spec, and every resource is in sync and Healthy. */
export function synced(view: WorldView): true | string {
  for (const app of view.list(APP) as unknown as App[]) {
    if (app.metadata.deletionTimestamp !== undefined) continue;
    const op = app.status.operation;
    if (op?.revision !== revisionOf(app.spec) || op.phase !== 'Succeeded') return `Application ${appKey(app)}: operation ${op ? `${op.phase} at wave ${op.wave} for ${op.revision}` : 'absent'}, spec is revision ${revisionOf(app.spec)}`;
    for (const r of render(app)) {
      const o = view.get(r.object.kind, `${r.object.metadata.namespace ?? ''}/${r.object.metadata.name}`) ?? view.get(r.object.kind, r.object.metadata.name);
      if (!inSync(o, r) || !healthy(o, deploymentHealthy)) return `Application ${appKey(app)}: ${r.object.kind} ${r.object.metadata.name} is ${o ? 'not in sync or not Healthy' : 'missing'}`;
    }
    if (app.status.sync !== 'Synced' || app.status.health !== 'Healthy') return `Application ${appKey(app)} reports ${app.status.sync ?? '?'} / ${app.status.health ?? '?'}`;
  }
  return true;
}

export const syncWaves: FalsePositiveCase = {
  name: 'sync-waves',
  description: 'Argo CD sync waves: an Application applies its config, then its Deployment, then its route, one wave at a time, each only once the lower waves are Healthy (observedGeneration caught up, replicas updated and available); the operation is resumed from status',
  controllers: [syncWavesController],
  options: {
    objects: {
      kind: APP,
      name: 'shop',
      spec: [
        { image: 'shop:1', config: 'threads=4', replicas: 1 },
        { image: 'shop:2', config: 'threads=4', replicas: 1 },
        { image: 'shop:2', config: 'threads=8', replicas: 2 },
      ],
    },
    environment: [deployment, podLifecycle],
  },
  properties: [wavesInOrder(), convergence({ converged: synced }), ...podEndStateProperties()],
  buggy: {
    controllers: [defineSyncWaves(availableOnly)],
    caughtBy: ['waves-in-order'],
    why: 'it judges a Deployment Healthy by its Available condition alone: right after a new image is applied, the status still reports the old ReplicaSet Available for the previous generation, and the route moves to the new image before any Pod runs it',
  },
};
