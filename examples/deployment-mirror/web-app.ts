import { virtualTimestamp, type JsonObject, type NewObject, type ReconcileContext, type StoredObject } from '../../src/index.js';

/**
 * The WebApp custom resource both deployment-mirror controllers reconcile: the user asks for
 * `replicas` copies of `image`; the controller runs them as a Deployment and mirrors the
 * Deployment's availability into the WebApp's status (`availableReplicas` and a `Ready`
 * condition), the way most operators report "is my thing up".
 */
export const WEB_APP_KIND = 'WebApp';

export interface WebAppSpec {
  replicas: number;
  image: string;
  /** Annotations for the pods (copied into the Deployment's pod template). */
  podAnnotations?: Record<string, string>;
}

export interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  lastTransitionTime: string;
}

export interface WebAppStatus {
  observedGeneration?: number;
  availableReplicas?: number;
  conditions?: Condition[];
}

export type WebApp = StoredObject<WebAppSpec, WebAppStatus>;

/** Specs `check` creates and updates WebApps with (a scale change and an image change). */
export const WEB_APP_SAMPLES = [
  { replicas: 3, image: 'nginx:1' },
  { replicas: 2, image: 'nginx:2' },
];

/** The Deployment a WebApp should have: same name, controlled by the WebApp. */
export function desiredDeployment(app: WebApp): NewObject {
  const labels = { app: app.metadata.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: app.metadata.name,
      ...(app.metadata.namespace !== undefined ? { namespace: app.metadata.namespace } : {}),
      labels,
      ownerReferences: [{ apiVersion: 'example.dev/v1', kind: WEB_APP_KIND, name: app.metadata.name, uid: app.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas: app.spec.replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels, ...(app.spec.podAnnotations ? { annotations: app.spec.podAnnotations } : {}) }, spec: { containers: [{ name: 'web', image: app.spec.image }] } },
    },
  };
}

/**
 * Creates the Deployment, or brings its spec back to the desired one. Returns the Deployment as
 * it now is, or undefined when there is nothing to do yet: a Deployment of that name belongs to
 * someone else (the one of a deleted and recreated WebApp, still being garbage-collected), or
 * the WebApp is gone although the cache still shows it.
 */
export async function ensureDeployment(ctx: ReconcileContext, app: WebApp): Promise<StoredObject | undefined> {
  const want = desiredDeployment(app);
  const dep = await ctx.client.tryGet('Deployment', ctx.key);
  if (!dep) {
    // the cache may still hold a WebApp that was just deleted: creating a Deployment for it
    // would only feed the garbage collector, so confirm the owner with a live read first
    const live = await ctx.client.tryGet(WEB_APP_KIND, ctx.key, { live: true });
    if (!live || live.metadata.uid !== app.metadata.uid || live.metadata.deletionTimestamp !== undefined) return undefined;
    return ctx.client.create(want);
  }
  if (!dep.metadata.ownerReferences.some((r) => r.uid === app.metadata.uid && r.controller === true)) return undefined;
  // only the fields this controller sets: the API server fills in the rest (strategy,
  // revisionHistoryLimit, the Pod template's dnsPolicy, imagePullPolicy, …), so a whole-spec
  // comparison differs on every reconcile and rewrites a spec that is already right
  // (the Pod annotations it owns whole: one the user removed from the WebApp must go)
  if (!setFieldsMatch(dep.spec, want.spec) || !sameJson(podAnnotations(dep.spec) ?? {}, app.spec.podAnnotations ?? {})) return ctx.client.update({ ...dep, spec: want.spec ?? {} });
  return dep;
}

function podAnnotations(spec: unknown): unknown {
  const t = (spec as { template?: { metadata?: { annotations?: unknown } } } | undefined)?.template;
  return t?.metadata?.annotations;
}

/** The Deployment controller's own verdict: `Available=True` for the spec it has seen. */
export function deploymentAvailable(dep: StoredObject): boolean {
  const conditions = Array.isArray(dep.status['conditions']) ? dep.status['conditions'] : [];
  const available = conditions.some((c) => c !== null && typeof c === 'object' && !Array.isArray(c) && c['type'] === 'Available' && c['status'] === 'True');
  const observed = typeof dep.status['observedGeneration'] === 'number' ? dep.status['observedGeneration'] : 0;
  return available && observed >= dep.metadata.generation;
}

/** The status to report; the Ready condition keeps its transition time while it does not change. */
export function statusFor(app: WebApp, dep: StoredObject | undefined, ready: boolean, now: number): WebAppStatus {
  const status: 'True' | 'False' = ready ? 'True' : 'False';
  const prev = app.status.conditions?.find((c) => c.type === 'Ready');
  const available = dep && typeof dep.status['availableReplicas'] === 'number' ? dep.status['availableReplicas'] : 0;
  return {
    observedGeneration: app.metadata.generation,
    availableReplicas: available,
    conditions: [
      {
        type: 'Ready',
        status,
        reason: ready ? 'DeploymentAvailable' : dep ? 'DeploymentUnavailable' : 'DeploymentMissing',
        lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : virtualTimestamp(now),
      },
    ],
  };
}

/** Writes the status only when it differs, so the controller's own write does not feed it again. */
export async function reportStatus(ctx: ReconcileContext, app: WebApp, status: WebAppStatus): Promise<void> {
  if (sameJson(app.status, status)) return;
  await ctx.client.updateStatus({ ...app, status });
}

/** A WebApp object for a scenario (plain JSON, as a scenario file holds it). */
export function webApp(name: string, spec: WebAppSpec, namespace = 'default'): NewObject {
  const json: JsonObject = { replicas: spec.replicas, image: spec.image, ...(spec.podAnnotations ? { podAnnotations: { ...spec.podAnnotations } } : {}) };
  return { apiVersion: 'example.dev/v1', kind: WEB_APP_KIND, metadata: { name, namespace }, spec: json };
}

/**
 * Whether `live` has every field of `desired` with its value (objects: the keys `desired` sets;
 * arrays: the same length, item by item): what a controller that sets a few fields of an object
 * the API server defaults must compare.
 */
export function setFieldsMatch(live: unknown, desired: unknown): boolean {
  if (desired === null || typeof desired !== 'object') return live === desired;
  if (live === null || typeof live !== 'object' || Array.isArray(live) !== Array.isArray(desired)) return false;
  if (Array.isArray(desired)) return desired.length === (live as unknown[]).length && desired.every((d, i) => setFieldsMatch((live as unknown[])[i], d));
  return Object.entries(desired).every(([k, v]) => v === undefined || setFieldsMatch((live as Record<string, unknown>)[k], v));
}

/** Structural equality of JSON values (key order does not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
