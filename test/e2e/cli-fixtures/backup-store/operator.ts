/**
 * A minimal backup operator (from scratch/reach40/backup-jsonpatch, trimmed): every Backup
 * (example.com/v1, spec.target) has a record in an external store at
 * https://backup-store.example.com (global fetch, POST with an idempotency key, PATCH, DELETE),
 * a finalizer that removes the record before the Backup goes, and a status written with JSON
 * Patch. A setInterval resync (5 s) lists every Backup; a Watch adds speed.
 *
 * The bug (`forgetOnStoreError`): when the store's DELETE fails (a 5xx), the finalizer is
 * removed anyway: the record leaks.
 */
import * as k8s from '@kubernetes/client-node';

const GROUP = 'example.com';
const VERSION = 'v1';
const PLURAL = 'backups';
const FINALIZER = 'example.com/backup-record';
const STORE = process.env.BACKUP_STORE ?? 'https://backup-store.example.com';

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);

interface Backup {
  apiVersion: string;
  kind: string;
  metadata: k8s.V1ObjectMeta;
  spec?: { target?: string };
  status?: { phase?: string; target?: string; recordId?: string; observedGeneration?: number };
}

const codeOf = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  return typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
};
const msg = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0];

/** fetch with a timeout through an AbortController. */
async function call(path: string, init: RequestInit = {}, timeoutMs = 3_000): Promise<Response> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  try {
    return await fetch(`${STORE}${path}`, { ...init, signal: ac.signal });
  } finally {
    clearTimeout(timer);
  }
}

async function storeHealthy(): Promise<boolean> {
  try {
    const r = await call('/healthz', {}, 1_000);
    return r.ok;
  } catch (err) {
    console.error(`healthz: ${msg(err)} ${msg((err as { cause?: unknown }).cause)}`);
    return false;
  }
}

interface StoreRecord {
  id: string;
  owner: string;
  target: string;
}

async function recordsOf(owner: string): Promise<StoreRecord[]> {
  const r = await call(`/backups?owner=${encodeURIComponent(owner)}`);
  if (!r.ok) throw new Error(`store GET /backups: ${r.status}`);
  return (await r.json()) as StoreRecord[];
}

async function reconcile(b: Backup, options: { forgetOnStoreError: boolean }): Promise<void> {
  const { name, namespace, resourceVersion } = b.metadata as { name: string; namespace: string; resourceVersion: string };
  const owner = `${namespace}/${name}`;
  const finalizers = b.metadata.finalizers ?? [];
  const at = finalizers.indexOf(FINALIZER);
  if (b.metadata.deletionTimestamp) {
    if (at < 0) return;
    try {
      // every record of this Backup, also one whose id never reached the status (a crash after the POST)
      for (const rec of await recordsOf(owner)) {
        const r = await call(`/backups/${rec.id}`, { method: 'DELETE' });
        if (!r.ok && r.status !== 404) throw new Error(`store DELETE ${rec.id}: ${r.status}`);
      }
    } catch (err) {
      if (!options.forgetOnStoreError) throw err;
      console.error(`${msg(err)}; leaving it to the store`);
    }
    await custom.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: [{ op: 'test', path: `/metadata/finalizers/${at}`, value: FINALIZER }, { op: 'remove', path: `/metadata/finalizers/${at}` }] },
      jsonPatch,
    );
    return;
  }
  if (at < 0) {
    const ops = b.metadata.finalizers
      ? [{ op: 'add', path: '/metadata/finalizers/-', value: FINALIZER }]
      : [{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }];
    try {
      await custom.patchNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }, ...ops] },
        jsonPatch,
      );
    } catch (err) {
      if (codeOf(err) !== 422) throw err; // 422: the test failed, the object changed: its newer version comes through the watch
    }
    return; // the patched object comes back through the watch or the next resync
  }
  const target = b.spec?.target ?? 'default';
  let id = b.status?.recordId;
  // the idempotency key of a create: the Backup's uid, and after a lost record the id it replaces
  // (the store answers a repeated key with its first answer, so a re-create needs a new key)
  let key = b.metadata.uid!;
  if (id) {
    // level-triggered: the record may have been removed or edited in the store since
    const got = await call(`/backups/${id}`);
    if (got.status === 404) {
      key = `${key}/after-${id}`;
      id = undefined;
    }
    else if (!got.ok) throw new Error(`store GET /backups/${id}: ${got.status}`);
    else if (b.status?.phase === 'Ready' && b.status.target === target && b.status.observedGeneration === b.metadata.generation && ((await got.json()) as StoreRecord).target === target) return;
  }
  if (!(await storeHealthy())) throw new Error('backup store unhealthy');
  if (!id) {
    const post = await call('/backups', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ owner, target }) });
    if (!post.ok) throw new Error(`store POST /backups: ${post.status}`);
    id = ((await post.json()) as StoreRecord).id;
  } else {
    const patch = await call(`/backups/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ target }) });
    if (!patch.ok) throw new Error(`store PATCH /backups/${id}: ${patch.status}`);
  }
  await custom.patchNamespacedCustomObjectStatus(
    { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: [{ op: b.status ? 'replace' : 'add', path: '/status', value: { phase: 'Ready', target, recordId: id, observedGeneration: b.metadata.generation } }] },
    jsonPatch,
  );
}

export function main(options: { forgetOnStoreError: boolean }): void {
  const busy = new Set<string>();
  const again = new Map<string, Backup>();
  const handle = (b: Backup): void => {
    const key = `${b.metadata.namespace}/${b.metadata.name}`;
    if (busy.has(key)) {
      again.set(key, b);
      return;
    }
    busy.add(key);
    reconcile(b, options)
      .catch((err: unknown) => console.error(`reconcile ${key}: ${codeOf(err) ?? ''} ${msg(err)}`)) // the next resync retries
      .finally(() => {
        busy.delete(key);
        const next = again.get(key);
        again.delete(key);
        if (next) handle(next);
      });
  };
  const resync = async (): Promise<void> => {
    try {
      const list = (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as { items: Backup[] };
      for (const b of list.items) handle(b);
    } catch (err) {
      console.error(`resync: ${msg(err)}`);
    }
  };
  const watch = (): void => {
    void new k8s.Watch(kc).watch(`/apis/${GROUP}/${VERSION}/${PLURAL}`, {}, (type: string, b: Backup) => {
      if (type === 'ADDED' || type === 'MODIFIED') handle(b);
    }, () => setTimeout(watch, 1_000));
  };
  setInterval(() => void resync(), 5_000);
  void resync();
  watch();
  console.log('backup operator started');
}
