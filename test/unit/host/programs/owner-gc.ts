/**
 * Host fixture: a garbage collector. Every second it lists the Echo objects (the owners) and the
 * ConfigMaps labelled `echo-owner`, and deletes each ConfigMap whose owner it did not list. It
 * lists the owners with `resourceVersion=0` (the API server may answer from its watch cache, and a
 * lagging replica answers with an older state): an owner created just before goes missing, and its
 * ConfigMap is deleted (red team round 10 M-1). `--quorum` lists them without a resourceVersion (a
 * quorum read, always current), and `--recheck` asks for the owner with a live GET before it
 * deletes: either is a correct twin.
 */
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';

const kc = new KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(CoreV1Api);
const objects = kc.makeApiClient(CustomObjectsApi);
const quorum = process.argv.includes('--quorum');
const recheck = process.argv.includes('--recheck');

/** Whether the owner is gone, asked of the API server itself (a GET is never served from a cache). */
async function ownerGone(name: string): Promise<boolean> {
  if (!recheck) return true;
  try {
    await objects.getNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'echoes', name });
    return false;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return true;
    throw err;
  }
}

async function sweep(): Promise<void> {
  const owners = (await objects.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'echoes', ...(quorum ? {} : { resourceVersion: '0' }) })) as { items: { metadata: { name: string } }[] };
  const names = new Set(owners.items.map((o) => o.metadata.name));
  const owned = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'echo-owner' });
  for (const cm of owned.items) {
    const owner = cm.metadata?.labels?.['echo-owner'];
    if (owner !== undefined && !names.has(owner) && (await ownerGone(owner))) await core.deleteNamespacedConfigMap({ namespace: 'default', name: cm.metadata!.name! }).catch(() => undefined);
  }
}

let busy = false;
setInterval(() => {
  if (busy) return;
  busy = true;
  void sweep()
    .catch((err: unknown) => console.error(`sweep: ${String(err)}`))
    .finally(() => {
      busy = false;
    });
}, 1_000);
