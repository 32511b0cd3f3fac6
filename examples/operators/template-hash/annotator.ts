/**
 * A template-hash annotator, written the way the client-node examples write scripts: the
 * KubeConfig comes from loadFromDefault() at module load, an informer (makeInformer) watches every
 * Deployment, and each one gets an annotation with the hash of its pod template, which a
 * dashboard and a rollout gate read to tell which version of the pods a Deployment asks for.
 *
 * client-node's informer stops for good when its watch fails (a cut connection, a 5xx on the
 * list); the example in client-node's README restarts it after a few seconds with setTimeout.
 */
import { createHash } from 'node:crypto';
import { KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';

export const ANNOTATION = 'example.com/template-hash';

const kc = new KubeConfig();
kc.loadFromDefault();
const objects = KubernetesObjectApi.makeApiClient(kc);

type Deployment = V1Deployment & KubernetesObject;

/** JSON with sorted keys: the same template always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The hash of a Deployment's pod template (also used by ../hash-applier). */
export function templateHash(d: Deployment): string {
  return createHash('sha256').update(canonical(d.spec?.template ?? {})).digest('hex').slice(0, 16);
}

/** Retry delays per object (ms): a failed write is tried again from the cache, with backoff. */
const backoff = new Map<string, number>();

/** Level-triggered: whatever event arrives, compare the annotation with the template as it is now. */
async function annotate(d: Deployment, latest: (name: string, namespace: string) => Deployment | undefined): Promise<void> {
  const { name, namespace } = d.metadata as { name: string; namespace: string };
  const want = templateHash(d);
  if (d.metadata?.annotations?.[ANNOTATION] === want) return;
  try {
    await objects.patch<Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace, annotations: { [ANNOTATION]: want } } }, undefined, undefined, 'template-hash', undefined, PatchStrategy.MergePatch);
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
  const informer = makeInformer<Deployment>(kc, '/apis/apps/v1/deployments', () => objects.list<Deployment>('apps/v1', 'Deployment'));
  const latest = (name: string, namespace: string) => informer.get(name, namespace);
  informer.on('add', (d) => void annotate(d, latest));
  informer.on('update', (d) => void annotate(d, latest));
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
  console.log('template-hash annotator started');
}
