import { defineController, defineProperty, deployment, podLifecycle, type JsonObject, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * A config reloader, Reloader (stakater) / Wave (pusher) style: the Deployments people annotate
 * `reloader.example.com/auto: "true"` are restarted when a ConfigMap or Secret their pod template
 * references (a `configMap` or `secret` volume, an `envFrom` ref) changes, since pods read them
 * only at start. The controller owns nothing: the Deployments, ConfigMaps and Secrets are the
 * users'. It keeps the hash of every referenced config's data in the pod template
 * (`spec.template.metadata.annotations["reloader.example.com/config-hash"]`), so a change of the
 * hash is a rollout, done by the Deployment controller; a Deployment it has not seen yet gets the
 * hash at once (adoption, from a live read of its configs), and `kubectl apply` keeps it (nobody
 * else declares it).
 *
 * Debounced: config edits come in bursts (a Helm upgrade rewrites three ConfigMaps, a person saves
 * twice), and a restart per edit churns every pod for nothing. A changed hash is first recorded as
 * pending on the Deployment itself (`metadata.annotations`: `pending-hash` and `pending-since`, the
 * controller's clock; metadata writes bump no generation and start no rollout, and a restarted
 * controller or another replica knows how long it has waited), and the restart comes only once the
 * configs have been quiet for `DEBOUNCE_MS` (a newer edit restarts the wait; an edit reverted
 * within it restarts nothing). The restart itself is irreversible (every pod replaced), so it is
 * decided on the configs read LIVE at that moment, never on the informer cache: a cache behind a
 * second edit of the burst would restart onto the superseded config and then once more. Every
 * write is a merge patch with the resourceVersion read (a stale Deployment gets 409).
 *
 * Its buggy twin trusts its cache at the end of the wait (the optimisation most hand-written
 * debouncers make: the timer fired, the cache says the hash, restart). A cache that missed the
 * burst's second edit (a lost watch event, a stream held back) restarts every pod onto a config
 * already replaced, and again once the cache catches up: the same end, one needless restart. The
 * case's oracle `restart-to-current-config` (a probe after every write) catches it: a restart
 * must carry the hash of the configs as the API server holds them when it is written. The
 * built-in no-extra-destructive-actions catches it too when the needless restart is one more than
 * the fault-free run made (a few runs in a hundred: the oracle sees every stale restart).
 */
export const RELOADER = 'reloader.example.com';
const AUTO = `${RELOADER}/auto`;
const HASH = `${RELOADER}/config-hash`;
const PENDING = `${RELOADER}/pending-hash`;
const SINCE = `${RELOADER}/pending-since`;
const DEBOUNCE_MS = 3000;

type Ref = `ConfigMap/${string}` | `Secret/${string}`;

interface Container {
  name: string;
  image: string;
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
}
interface Volume {
  name: string;
  configMap?: { name: string };
  secret?: { secretName: string };
}
interface DeploymentSpec {
  replicas: number;
  template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: { containers: Container[]; volumes?: Volume[] } };
}
type Deployment = StoredObject<DeploymentSpec, unknown>;

const deleting = (o: StoredObject<unknown, unknown>) => o.metadata.deletionTimestamp !== undefined;
const watched = (d: StoredObject<unknown, unknown>) => d.metadata.annotations[AUTO] === 'true' && !deleting(d);

/** The configs a pod template references, sorted. */
export function refsOf(d: Deployment): Ref[] {
  const out = new Set<Ref>();
  const spec = d.spec.template?.spec;
  for (const v of spec?.volumes ?? []) {
    if (v.configMap?.name) out.add(`ConfigMap/${v.configMap.name}`);
    if (v.secret?.secretName) out.add(`Secret/${v.secret.secretName}`);
  }
  for (const c of spec?.containers ?? [])
    for (const e of c.envFrom ?? []) {
      if (e.configMapRef?.name) out.add(`ConfigMap/${e.configMapRef.name}`);
      if (e.secretRef?.name) out.add(`Secret/${e.secretRef.name}`);
    }
  return [...out].sort();
}

/** Hash of the referenced configs' data (a missing one counts as missing), given a lookup by ref. */
export function configHash(refs: readonly Ref[], lookup: (ref: Ref) => StoredObject | undefined): string {
  const parts = refs.map((r) => {
    const o = lookup(r);
    const data = o && !deleting(o) ? ((o['data'] ?? {}) as Record<string, string>) : null;
    return [r, data === null ? null : Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))];
  });
  return shortHash(JSON.stringify(parts));
}

const templateHash = (d: Deployment) => d.spec.template?.metadata?.annotations?.[HASH];

function define(mistake: 'none' | 'cached-restart') {
  async function hashFrom(ctx: ReconcileContext, d: Deployment, live: boolean): Promise<string> {
    const refs = refsOf(d);
    const found = new Map<Ref, StoredObject | undefined>();
    for (const r of refs) {
      const [kind, name] = r.split('/') as [string, string];
      found.set(r, await ctx.client.tryGet(kind, { namespace: d.metadata.namespace, name }, live ? { live: true } : {}));
    }
    return configHash(refs, (r) => found.get(r));
  }

  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult | void> {
    const d = (await ctx.client.tryGet('Deployment', ctx.key)) as Deployment | undefined;
    if (!d || !watched(d)) return;
    const ref = { namespace: d.metadata.namespace, name: d.metadata.name };
    const rv = { resourceVersion: d.metadata.resourceVersion };
    const have = templateHash(d);
    const pending = d.metadata.annotations[PENDING];
    const since = Number(d.metadata.annotations[SINCE] ?? 'NaN');
    const now = ctx.clock.now();
    if (have === undefined) {
      // adoption: nothing to restart yet, only a hash to start from (live: a stale one would cost a restart)
      await ctx.client.patch('Deployment', ref, { spec: { template: { metadata: { annotations: { [HASH]: await hashFrom(ctx, d, true) } } } } }, rv);
      return;
    }
    const want = await hashFrom(ctx, d, false);
    if (want === have) {
      // reverted within the wait (or restarted by someone else): nothing pending any more
      if (pending !== undefined) await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [PENDING]: null, [SINCE]: null } } }, rv);
      return;
    }
    if (pending !== want || !Number.isFinite(since)) {
      await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [PENDING]: want, [SINCE]: String(now) } } }, rv);
      return { requeueAfter: DEBOUNCE_MS };
    }
    if (now < since + DEBOUNCE_MS) return { requeueAfter: since + DEBOUNCE_MS - now };
    // quiet for the whole wait, as far as the cache knows: confirm against the API server before every pod is replaced
    const confirmed = mistake === 'none' ? await hashFrom(ctx, d, true) : want;
    if (confirmed !== want) {
      await ctx.client.patch('Deployment', ref, { metadata: { annotations: confirmed === have ? { [PENDING]: null, [SINCE]: null } : { [PENDING]: confirmed, [SINCE]: String(now) } } }, rv);
      return confirmed === have ? undefined : { requeueAfter: DEBOUNCE_MS };
    }
    await ctx.client.patch('Deployment', ref, { metadata: { annotations: { [PENDING]: null, [SINCE]: null } }, spec: { template: { metadata: { annotations: { [HASH]: want } } } } }, rv);
  }

  /** The watched Deployments of the config's namespace that reference it (from the cache). */
  const referencing = (kind: 'ConfigMap' | 'Secret') => (o: StoredObject, view: { list(kind: string, options?: { namespace?: string }): StoredObject[] }) =>
    view
      .list('Deployment', { namespace: o.metadata.namespace ?? '' })
      .filter((d) => watched(d) && refsOf(d as unknown as Deployment).includes(`${kind}/${o.metadata.name}`))
      .map((d) => `${d.metadata.namespace}/${d.metadata.name}`);

  return defineController({
    name: 'reloader',
    for: 'Deployment',
    watches: [
      { kind: 'ConfigMap', map: referencing('ConfigMap') },
      { kind: 'Secret', map: referencing('Secret') },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const reloaderController = define('none');

const worldLookup = (view: WorldView, ns: string | undefined) => (r: Ref) => {
  const [kind, name] = r.split('/') as [string, string];
  return view.get(kind, `${ns ?? ''}/${name}`);
};

/** Converged: every watched Deployment's template carries the hash of its configs as they are, and nothing is pending. */
export function reloaded(view: WorldView): true | string {
  for (const o of view.list('Deployment')) {
    const d = o as unknown as Deployment;
    if (!watched(d)) continue;
    const want = configHash(refsOf(d), worldLookup(view, d.metadata.namespace));
    if (templateHash(d) !== want) return `Deployment ${d.metadata.namespace}/${d.metadata.name} runs config hash ${templateHash(d) ?? '(none)'}, its configs hash to ${want}`;
    if (d.metadata.annotations[PENDING] !== undefined) return `Deployment ${d.metadata.namespace}/${d.metadata.name} still has a restart pending (${d.metadata.annotations[PENDING]})`;
  }
  return true;
}

const PROBE = 'restart-to-current-config';
/** Per watched Deployment (namespace/name): its template hash and the hash of its configs in the world, after a write. */
type Facts = Record<string, { template: string | null; configs: string }>;

/** See the file's comment: every restart the controller writes carries the hash of the configs as the API server holds them then. */
export const restartToCurrentConfig = defineProperty<Record<string, never>>({
  name: PROBE,
  description: 'a restart (a new config hash in the pod template) carries the hash of the configs as the API server holds them when it is written',
  defaults: {},
  probes: () => [
    {
      name: PROBE,
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view: WorldView) => {
        const facts: Facts = {};
        for (const o of view.list('Deployment')) {
          const d = o as unknown as Deployment;
          if (!watched(d)) continue;
          facts[`${d.metadata.namespace ?? ''}/${d.metadata.name}`] = { template: templateHash(d) ?? null, configs: configHash(refsOf(d), worldLookup(view, d.metadata.namespace)) };
        }
        return { ok: true, data: facts as unknown as JsonObject };
      },
    },
  ],
  judge: (run: RunRecord): Verdict => {
    const last = new Map<string, string | null>();
    for (const sample of run.probes[PROBE] ?? []) {
      const facts = (sample.data as unknown as Facts | undefined) ?? {};
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      for (const [key, f] of Object.entries(facts)) {
        const was = last.get(key);
        last.set(key, f.template);
        if (!w || !w.actor.startsWith('controller:reloader') || w.kind !== 'Deployment' || w.key !== key) continue;
        // a restart: the hash moved from one value to another (adoption sets the first one)
        if (was === undefined || was === null || f.template === null || f.template === was || f.template === f.configs) continue;
        return {
          ok: false,
          summary: `Deployment ${key} was restarted at ${sample.t} ms onto config hash ${f.template}, though its configs hashed to ${f.configs} at the API server then`,
          explanation: `At t=${sample.t} ms the reloader changed Deployment ${key}'s pod-template config hash from ${was} to ${f.template}: every pod is replaced. The ConfigMaps and Secrets it references, as the API server held them at that moment, hash to ${f.configs}: the restart went onto a config already replaced, and another restart must follow. Confirm the configs with a live read before restarting (a cache may be behind the last edit of a burst).`,
          evidence: { deployment: key, t: sample.t, from: was, to: f.template, current: f.configs },
        };
      }
    }
    return { ok: true };
  },
});

const NS = 'default';
const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data });
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const secret = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, type: 'Opaque', data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });
const podSpec = (app: string, image: string, configMaps: string[], secrets: string[]) => ({
  replicas: 2,
  selector: { matchLabels: { app } },
  template: {
    metadata: { labels: { app } },
    spec: {
      containers: [{ name: app, image, envFrom: secrets.map((s) => ({ secretRef: { name: s } })) }],
      volumes: configMaps.map((c) => ({ name: c, configMap: { name: c } })),
    },
  },
});
const dep = (name: string, spec: JsonObject) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: NS, annotations: { [AUTO]: 'true' } }, spec });

export const configReloader: FalsePositiveCase = {
  name: 'config-reloader',
  description: 'Reloader/Wave style: Deployments annotated auto get the hash of the ConfigMaps and Secrets their pods reference in the pod template, restarting them on a change once the configs have been quiet for a debounce window (pending state on the Deployment, the restart confirmed live)',
  controllers: [reloaderController],
  options: {
    // api reads settings and flags (volumes) and credentials (envFrom); a burst of two settings edits at 3 s
    // and 4 s (one restart), a credential rotation at 10 s, a flag flipped at 15 s and back at 16.5 s (no restart)
    story: {
      objects: [
        cm('settings', { LOG_LEVEL: 'info', POOL: '10' }),
        cm('flags', { checkout: 'off' }),
        secret('creds', { password: 'p-1' }),
        dep('api', podSpec('api', 'api:1', ['settings', 'flags'], ['creds']) as unknown as JsonObject),
      ],
      actions: [
        { at: 3000, type: 'apply', object: cm('settings', { LOG_LEVEL: 'debug', POOL: '10' }) },
        { at: 4000, type: 'apply', object: cm('settings', { LOG_LEVEL: 'debug', POOL: '20' }) },
        { at: 10_000, type: 'apply', object: secret('creds', { password: 'p-2' }) },
        { at: 15_000, type: 'apply', object: cm('flags', { checkout: 'on' }) },
        { at: 16_500, type: 'apply', object: cm('flags', { checkout: 'off' }) },
      ],
      jitterMs: 400,
    },
    // generated: a worker Deployment (its references and image changed by its owners) and a plain one
    // that is not annotated (never touched)
    objects: [
      {
        kind: 'Deployment',
        namespace: NS,
        names: ['worker'],
        annotations: { [AUTO]: 'true' },
        spec: [
          podSpec('worker', 'worker:1', ['settings'], ['creds']) as unknown as JsonObject,
          podSpec('worker', 'worker:2', ['settings'], ['creds']) as unknown as JsonObject,
          podSpec('worker', 'worker:1', ['settings', 'flags'], []) as unknown as JsonObject,
        ],
      },
      { kind: 'Deployment', namespace: NS, names: ['batch'], spec: [podSpec('batch', 'batch:1', ['settings'], []) as unknown as JsonObject] },
    ],
    environment: [deployment, podLifecycle],
    maxObjects: 2,
  },
  // the config hash in the pod template is the reloader's to write (Reloader and Wave write into the user's Deployment by design)
  properties: [convergence({ converged: reloaded }), specStatusOwnership({ allowSpecPaths: ['spec.template.metadata.annotations'] }), restartToCurrentConfig(), ...podEndStateProperties()],
  buggy: {
    controllers: [define('cached-restart')],
    caughtBy: [PROBE],
    why: 'at the end of the debounce it restarts onto the hash its cache shows, without a live read: a cache that missed the second edit of a burst (a lost or held-back watch event) restarts every pod onto a superseded config, then once more',
  },
};
