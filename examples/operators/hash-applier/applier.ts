/**
 * A template-hash annotator that writes with server-side apply, the way controller-runtime and
 * client-node users are told to: every Deployment gets two annotations, the hash of its pod
 * template and the images it runs, which a dashboard and a rollout gate read. It applies only
 * what it owns — the two annotations — under its own field manager (`template-hash-applier`,
 * `force: true` as controllers do); the API server merges them into the Deployment and leaves
 * the user's fields alone, and a re-apply of the same intent changes nothing.
 *
 * Server-side apply has one rule this example is about: an apply states everything the manager
 * wants. A field the manager applied before and leaves out now is removed. `split: true` breaks
 * it: two reconcile steps share the field manager and each applies only its own annotation, so
 * each apply removes the other's annotation, whose step puts it back…
 */
import { KubeConfig, KubernetesObjectApi, makeInformer, PatchStrategy, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';
import { templateHash } from '../template-hash/annotator.js';

export const ANNOTATION = 'example.com/template-hash';
export const IMAGES = 'example.com/images';
export const FIELD_MANAGER = 'template-hash-applier';

const kc = new KubeConfig();
kc.loadFromDefault();
const objects = KubernetesObjectApi.makeApiClient(kc);

type Deployment = V1Deployment & KubernetesObject;

function images(d: Deployment): string {
  return (d.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? '').join(',');
}

/** An applied configuration: only the annotations this manager owns, never the object read from the cache. */
function applied(d: Deployment, annotations: Record<string, string>): Deployment {
  const { name, namespace } = d.metadata as { name: string; namespace: string };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace, annotations } };
}

const backoff = new Map<string, number>();

async function apply(d: Deployment, annotations: Record<string, string>): Promise<void> {
  await objects.patch<Deployment>(applied(d, annotations), undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
}

async function annotate(d: Deployment, latest: (name: string, namespace: string) => Deployment | undefined, split: boolean): Promise<void> {
  const { name, namespace } = d.metadata as { name: string; namespace: string };
  if (d.metadata?.deletionTimestamp !== undefined) return;
  const want = { [ANNOTATION]: templateHash(d), [IMAGES]: images(d) };
  const have = d.metadata?.annotations ?? {};
  if (have[ANNOTATION] === want[ANNOTATION] && have[IMAGES] === want[IMAGES]) return;
  const key = `${namespace}/${name}`;
  try {
    if (!split) {
      await apply(d, want);
    } else if (have[ANNOTATION] !== want[ANNOTATION]) {
      await apply(d, { [ANNOTATION]: want[ANNOTATION] });
    } else {
      await apply(d, { [IMAGES]: want[IMAGES] });
    }
    backoff.delete(key);
  } catch (err) {
    const delay = Math.min((backoff.get(key) ?? 500) * 2, 30_000);
    backoff.set(key, delay);
    console.error(`could not annotate ${key} (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); retrying in ${delay} ms`);
    setTimeout(() => {
      // gone from the cache: deleted, nothing to do
      const now = latest(name, namespace);
      if (now) void annotate(now, latest, split);
    }, delay);
  }
}

/** Starts the applier: an informer on every Deployment, restarted after an error. */
export function main(options: { split: boolean }): void {
  const informer = makeInformer<Deployment>(kc, '/apis/apps/v1/deployments', () => objects.list<Deployment>('apps/v1', 'Deployment'));
  const latest = (name: string, namespace: string) => informer.get(name, namespace);
  informer.on('add', (d) => void annotate(d, latest, options.split));
  informer.on('update', (d) => void annotate(d, latest, options.split));
  informer.on('error', (err: unknown) => {
    console.error(`informer stopped: ${err instanceof Error ? err.message : String(err)}`);
    setTimeout(() => void informer.start(), 5_000);
  });
  void informer.start();
  console.log('template-hash applier started');
}
