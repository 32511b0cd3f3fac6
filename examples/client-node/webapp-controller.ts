import { CustomObjectsApi, KubernetesObjectApi, makeInformer, PatchStrategy, type KubeConfig, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { API_VERSION, FINALIZER, GROUP, KIND, MANAGED_BY, PLURAL, VERSION, type WebApp, type WebAppCondition, type WebAppStatus } from './webapp.js';

/** Options of {@link startWebAppController}. Production code leaves them out. */
export interface WebAppControllerOptions {
  /** Waits (backoff, informer restarts). @defaultValue setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch. @defaultValue Date.now */
  now?: () => number;
  /**
   * `'if-changed'` compares before writing status (correct). `'always'` writes it on every
   * reconcile with a fresh `lastReconcileTime`: the classic hot loop (each write is a watch
   * event that triggers the next reconcile).
   * @defaultValue 'if-changed'
   */
  statusUpdate?: 'if-changed' | 'always';
}

const FIELD_MANAGER = 'webapp-controller';

function code(err: unknown): number | undefined {
  const c = (err as { code?: unknown; statusCode?: unknown } | null)?.code ?? (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof c === 'number' ? c : undefined;
}

function configMapName(app: WebApp): string {
  return `${app.metadata!.name!}-web`;
}

/** The ConfigMap a WebApp asks for, owned by it (so it goes when the WebApp goes). */
function desiredConfigMap(app: WebApp): V1ConfigMap & KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapName(app),
      namespace: app.metadata!.namespace!,
      labels: { 'app.kubernetes.io/managed-by': 'webapp-controller' },
      ownerReferences: [{ apiVersion: API_VERSION, kind: KIND, name: app.metadata!.name!, uid: app.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
    },
    data: { replicas: String(app.spec?.replicas ?? 1), image: app.spec?.image ?? 'nginx' },
  };
}

/** A resourceVersion in a merge patch makes it conditional: 409 if someone wrote meanwhile. */
function precondition(o: KubernetesObject): { resourceVersion?: string } {
  return o.metadata?.resourceVersion !== undefined ? { resourceVersion: o.metadata.resourceVersion } : {};
}

/** Deep equality of JSON data, whatever the key order (client-node's typed lists reorder keys). */
function sameJson(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown =>
    v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.map(canon) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined).map((k) => [k, canon((v as Record<string, unknown>)[k])])) : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

/**
 * A WebApp controller written only against `@kubernetes/client-node` 1.4: informers from
 * `makeInformer`, writes through `KubernetesObjectApi` (status through `CustomObjectsApi`,
 * which is the one client-node API that reaches the status subresource).
 *
 * It is level-triggered (every event only enqueues a key; reconcile reads the informer cache),
 * retries failures with per-key exponential backoff, restarts an informer that stopped on an
 * error (client-node informers stop for good on anything but a 410), creates idempotently
 * (409 AlreadyExists is success) after re-reading the owner (its cache may be behind), compares
 * before every write, and holds a finalizer until it has deleted the WebApp's ConfigMap.
 * @returns stop: ends the informers and the work loop
 */
export function startWebAppController(kc: KubeConfig, options: WebAppControllerOptions = {}): () => Promise<void> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? (() => Date.now());
  const always = options.statusUpdate === 'always';
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const custom = kc.makeApiClient(CustomObjectsApi);
  let stopped = false;

  const apps = makeInformer<WebApp>(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => objects.list<WebApp>(API_VERSION, KIND));
  const maps = makeInformer<V1ConfigMap & KubernetesObject>(kc, '/api/v1/configmaps', () => objects.list<V1ConfigMap & KubernetesObject>('v1', 'ConfigMap', undefined, undefined, undefined, undefined, undefined, MANAGED_BY), MANAGED_BY);

  // ---- work queue: a set of keys, one worker, per-key exponential backoff
  const queue = new Set<string>();
  const failures = new Map<string, number>();
  let working = false;
  const enqueue = (key: string): void => {
    if (stopped) return;
    queue.add(key);
    void drain();
  };
  async function drain(): Promise<void> {
    if (working) return;
    working = true;
    try {
      while (!stopped && queue.size > 0) {
        const key = queue.values().next().value as string;
        queue.delete(key);
        try {
          await reconcile(key);
          failures.delete(key);
        } catch (err) {
          const n = (failures.get(key) ?? 0) + 1;
          failures.set(key, n);
          const wait = code(err) === 429 ? 1000 : Math.min(50 * 2 ** (n - 1), 30_000);
          void sleep(wait).then(() => enqueue(key));
        }
      }
    } finally {
      working = false;
    }
  }

  // ---- informers: events only enqueue; an informer that stopped on an error is restarted
  const keyOf = (o: KubernetesObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  for (const verb of ['add', 'update', 'delete'] as const) {
    apps.on(verb, (app) => enqueue(keyOf(app)));
    maps.on(verb, (cm) => {
      const owner = cm.metadata?.ownerReferences?.find((r) => r.kind === KIND && r.controller);
      if (owner) enqueue(`${cm.metadata?.namespace ?? ''}/${owner.name}`);
    });
  }
  const restarts = new Map<unknown, number>();
  for (const informer of [apps, maps]) {
    informer.on('error', () => {
      if (stopped) return; // stop() aborts the watch, which client-node reports as an error too
      const n = (restarts.get(informer) ?? 0) + 1;
      restarts.set(informer, n);
      void sleep(Math.min(100 * 2 ** (n - 1), 10_000)).then(() => {
        if (!stopped) void informer.start().catch(() => {});
      });
    });
    informer.on('connect', () => restarts.set(informer, Math.min(restarts.get(informer) ?? 0, 4)));
  }

  async function reconcile(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const app = apps.get(name, namespace);
    if (!app) return; // gone: its ConfigMap goes with it (ownerReference)
    const header = { apiVersion: API_VERSION, kind: KIND, metadata: { name, namespace } };

    if (app.metadata?.deletionTimestamp) {
      if (!app.metadata.finalizers?.includes(FINALIZER)) return;
      try {
        await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMapName(app), namespace } });
      } catch (err) {
        if (code(err) !== 404) throw err;
      }
      const rest = app.metadata.finalizers.filter((f) => f !== FINALIZER);
      await objects.patch({ ...header, metadata: { ...header.metadata, finalizers: rest, ...precondition(app) } }, undefined, undefined, FIELD_MANAGER, undefined, PatchStrategy.MergePatch);
      return;
    }

    if (!app.metadata?.finalizers?.includes(FINALIZER)) {
      const finalizers = [...(app.metadata?.finalizers ?? []), FINALIZER];
      await objects.patch({ ...header, metadata: { ...header.metadata, finalizers, ...precondition(app) } }, undefined, undefined, FIELD_MANAGER, undefined, PatchStrategy.MergePatch);
      return; // the update event brings us back with the finalizer in place
    }

    const desired = desiredConfigMap(app);
    const current = maps.get(desired.metadata!.name!, namespace);
    if (!current) {
      // Creating is the one step a stale cache makes harmful: a child of an owner that is already
      // gone is garbage-collected at once, and its deletion brings us back here. Re-read first.
      const live = await objects.read<WebApp>(header).catch((err: unknown) => (code(err) === 404 ? undefined : Promise.reject(err)));
      if (!live || live.metadata?.deletionTimestamp || live.metadata?.uid !== app.metadata?.uid) return;
      try {
        await objects.create(desired, undefined, undefined, FIELD_MANAGER);
      } catch (err) {
        if (code(err) !== 409) throw err; // AlreadyExists: our cache is behind, the next event fixes it
      }
    } else if (!sameJson(current.data, desired.data) || !sameJson(current.metadata?.ownerReferences, desired.metadata?.ownerReferences)) {
      await objects.patch({ ...desired, metadata: { ...desired.metadata, labels: desired.metadata!.labels! } }, undefined, undefined, FIELD_MANAGER, undefined, PatchStrategy.MergePatch);
    }

    const ready: Omit<WebAppCondition, 'lastTransitionTime'> = { type: 'Ready', status: 'True', reason: 'ConfigMapReady', message: `ConfigMap ${desired.metadata!.name!} is up to date` };
    const old = app.status?.conditions?.find((c) => c.type === 'Ready');
    const unchangedCondition = old !== undefined && old.status === ready.status && old.reason === ready.reason && old.message === ready.message;
    const status: WebAppStatus = {
      observedGeneration: app.metadata?.generation ?? 0,
      replicas: app.spec?.replicas ?? 1,
      conditions: [{ ...ready, lastTransitionTime: unchangedCondition ? old.lastTransitionTime : new Date(now()).toISOString() }],
    };
    if (always) status.lastReconcileTime = new Date(now()).toISOString();
    const { lastReconcileTime: _ignored, ...currentStatus } = app.status ?? {};
    if (always || !sameJson(currentStatus, status)) {
      await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name, fieldManager: FIELD_MANAGER, body: [{ op: 'add', path: '/status', value: status }] });
    }
  }

  void apps.start().catch(() => {});
  void maps.start().catch(() => {});
  return async () => {
    stopped = true;
    queue.clear();
    await Promise.allSettled([apps.stop(), maps.stop()]);
  };
}
