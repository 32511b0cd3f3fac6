/**
 * rt round 8, a real client-node 1.4 program: an Exposure (example.com/v1 `exposures`) asks for a
 * Service of its app. The correct operator server-side-applies just what it owns (selector, type,
 * one port) under its field manager with force, and writes the Exposure's status (the cluster IP
 * the API server allocated) by a merge patch of the status subresource only when it differs.
 *
 * The buggy one is the classic "GET, compare, PUT" operator: it reads the Service, compares the
 * live spec with the one it builds (JSON.stringify), PUTs its spec when they differ, and records a
 * `lastSynced` time in status after every sync. On a real cluster the live spec carries the API
 * server's defaults and allocations (clusterIP, clusterIPs, sessionAffinity, ipFamilies, …), so
 * they always differ; the status write is an Exposure event that brings the next sync: a hot loop.
 */
import { CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1Service } from '@kubernetes/client-node';

interface Exposure extends KubernetesObject {
  spec?: { app: string; port: number; targetPort: number; type: string };
  status?: { clusterIP?: string; lastSynced?: string };
}

const GROUP = 'example.com';
const VERSION = 'v1';
const PLURAL = 'exposures';
const MANAGER = 'exposure-operator';

const kc = new KubeConfig();
kc.loadFromDefault();
const objects = KubernetesObjectApi.makeApiClient(kc);
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

function desired(e: Exposure): V1Service & KubernetesObject {
  const { name, namespace, uid } = e.metadata as { name: string; namespace: string; uid: string };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'Exposure', name, uid, controller: true, blockOwnerDeletion: true }] },
    spec: { selector: { app: e.spec!.app }, type: e.spec!.type, ports: [{ name: 'http', port: e.spec!.port, targetPort: e.spec!.targetPort as never, protocol: 'TCP' }] },
  };
}

export function main(mode: 'apply' | 'get-compare-put'): void {
  const exposures = makeInformer<Exposure>(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }) as never);
  const queue = new Set<string>();
  const backoff = new Map<string, number>();
  let running = false;

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const e = exposures.get(name, namespace);
    if (!e || e.metadata?.deletionTimestamp) return;
    let svc: V1Service;
    if (mode === 'apply') {
      // the informer's cache may still show an Exposure that was deleted (its DELETED event not
      // seen yet): read it from the API server before making anything for it (found by the hunt:
      // a resync racing the relist after a watch fell behind re-created the Service)
      try {
        const live = (await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name })) as Exposure;
        if (live.metadata?.uid !== e.metadata?.uid || live.metadata?.deletionTimestamp) return;
      } catch (err) {
        if ((err as { code?: number }).code === 404) return;
        throw err;
      }
      svc = await objects.patch<V1Service & KubernetesObject>(desired(e), undefined, undefined, MANAGER, true, PatchStrategy.ServerSideApply);
    } else {
      const want = desired(e);
      let live: V1Service | undefined;
      try {
        live = await core.readNamespacedService({ name, namespace });
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
      }
      if (!live) svc = await core.createNamespacedService({ namespace, body: want });
      else if (JSON.stringify(live.spec) !== JSON.stringify(want.spec)) svc = await core.replaceNamespacedService({ name, namespace, body: { ...want, metadata: { ...want.metadata, resourceVersion: live.metadata?.resourceVersion ?? '' } } });
      else svc = live;
    }
    const clusterIP = svc.spec?.clusterIP ?? '';
    if (mode === 'apply') {
      if (e.status?.clusterIP === clusterIP) return;
      // client-node 1.4 sends a JSON patch for a plain array body
      await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name, fieldManager: MANAGER, body: [{ op: 'add', path: '/status', value: { clusterIP } }] });
    } else {
      await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: [{ op: 'add', path: '/status', value: { clusterIP, lastSynced: new Date().toISOString() } }] });
    }
  }

  async function work(): Promise<void> {
    if (running) return;
    running = true;
    try {
      while (queue.size > 0) {
        const key = queue.values().next().value as string;
        queue.delete(key);
        try {
          await sync(key);
          backoff.delete(key);
        } catch (err) {
          const delay = Math.min((backoff.get(key) ?? 250) * 2, 30_000);
          backoff.set(key, delay);
          console.error(`sync ${key} failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); retry in ${delay} ms`);
          setTimeout(() => {
            queue.add(key);
            void work();
          }, delay);
        }
      }
    } finally {
      running = false;
    }
  }
  const enqueue = (e: Exposure) => {
    queue.add(`${e.metadata!.namespace}/${e.metadata!.name}`);
    void work();
  };
  exposures.on('add', enqueue);
  exposures.on('update', enqueue);
  exposures.on('error', (err: unknown) => {
    console.error(`informer stopped: ${err instanceof Error ? err.message : String(err)}`);
    setTimeout(() => void exposures.start(), 5_000);
  });
  // a periodic resync, as controller-runtime's: a lost event or a failed write is retried
  setInterval(() => {
    for (const e of exposures.list()) enqueue(e);
  }, 10_000);
  void exposures.start();
  console.log('exposure operator started');
}
