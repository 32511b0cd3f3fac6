/**
 * A checksum annotator, written the way the client-node examples write scripts: the KubeConfig
 * comes from loadFromDefault() at module load, an informer (makeInformer) watches every
 * ConfigMap, and each one gets an annotation with the checksum of its data, so that workloads
 * mounting it can roll when it changes.
 *
 * client-node's informer stops for good when its watch fails (a cut connection, a 5xx on the
 * list); the example in client-node's README restarts it after a few seconds with setTimeout.
 */
import { createHash } from 'node:crypto';
import { KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';

export const ANNOTATION = 'example.com/data-checksum';

const kc = new KubeConfig();
kc.loadFromDefault();
const objects = KubernetesObjectApi.makeApiClient(kc);

type ConfigMap = V1ConfigMap & KubernetesObject;

function checksum(data: Record<string, string> | undefined): string {
  const canonical = JSON.stringify(Object.entries(data ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** Retry delays per object (ms): a failed write is tried again from the cache, with backoff. */
const backoff = new Map<string, number>();

/** Level-triggered: whatever event arrives, compare the annotation with the data as it is now. */
async function annotate(cm: ConfigMap, latest: (name: string, namespace: string) => ConfigMap | undefined): Promise<void> {
  const { name, namespace } = cm.metadata as { name: string; namespace: string };
  const want = checksum(cm.data);
  if (cm.metadata?.annotations?.[ANNOTATION] === want) return;
  try {
    await objects.patch<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations: { [ANNOTATION]: want } } }, undefined, undefined, 'checksum-annotator', undefined, PatchStrategy.MergePatch);
    backoff.delete(`${namespace}/${name}`);
    console.log(`annotated ${namespace}/${name} with ${want}`);
  } catch (err) {
    // informers have no resync: nothing brings this object back unless it changes, so retry
    const key = `${namespace}/${name}`;
    const delay = Math.min((backoff.get(key) ?? 500) * 2, 30_000);
    backoff.set(key, delay);
    console.error(`could not annotate ${key} (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); retrying in ${delay} ms`);
    setTimeout(() => {
      const now = latest(name, namespace);
      if (now) void annotate(now, latest);
    }, delay);
  }
}

/** Starts the annotator; `restartOnError` is what the README's example does after an informer error. */
export function main(options: { restartOnError: boolean }): void {
  const informer = makeInformer<ConfigMap>(kc, '/api/v1/configmaps', () => objects.list<ConfigMap>('v1', 'ConfigMap'));
  const latest = (name: string, namespace: string) => informer.get(name, namespace);
  informer.on('add', (cm) => void annotate(cm, latest));
  informer.on('update', (cm) => void annotate(cm, latest));
  informer.on('error', (err: unknown) => {
    console.error(`informer stopped: ${err instanceof Error ? err.message : String(err)}`);
    if (options.restartOnError) {
      setTimeout(() => {
        console.log('restarting the informer');
        void informer.start();
      }, 5_000);
    }
  });
  void informer.start();
  console.log('checksum annotator started');
}
