/**
 * A TTL expirer, written the way client-node scripts are: every Sandbox (example.com/v1) lives for
 * `spec.ttlSeconds` from its creation; the operator writes `status.expiresAt` and `status.phase`
 * (`Active`, then `Expired` once the TTL has passed). It decides by the clock: an informer brings
 * each Sandbox, and a setTimeout per Sandbox fires at its expiry, when the Sandbox is re-read from
 * the informer's cache (it may have been deleted, recreated or given another TTL since) and judged
 * again against `Date.now()`.
 *
 * The deadline is counted from `metadata.creationTimestamp`, never from when the operator first
 * saw the Sandbox, so a restarted operator (timers gone, informer re-listing) expires it at the
 * same time as one that never stopped.
 */
import { CustomObjectsApi, KubeConfig, makeInformer, type KubernetesObject } from '@kubernetes/client-node';

export const GROUP = 'example.com';
export const VERSION = 'v1';
export const PLURAL = 'sandboxes';

interface Sandbox extends KubernetesObject {
  spec?: { ttlSeconds?: number };
  status?: { phase?: string; expiresAt?: string };
}

const kc = new KubeConfig();
kc.loadFromDefault();
const custom = kc.makeApiClient(CustomObjectsApi);

const timers = new Map<string, ReturnType<typeof setTimeout>>();
const backoff = new Map<string, number>();
const keyOf = (s: Sandbox) => `${s.metadata!.namespace}/${s.metadata!.name}`;

export function main(options: { retryFailedWrites: boolean }): void {
  const informer = makeInformer<Sandbox>(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }) as never);
  const latest = (s: Sandbox) => {
    const now = informer.get(s.metadata!.name!, s.metadata!.namespace);
    // a Sandbox recreated under the same name is another Sandbox, with its own deadline
    return now && now.metadata?.uid === s.metadata?.uid ? now : undefined;
  };

  function later(s: Sandbox, ms: number): void {
    const key = keyOf(s);
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        const now = latest(s);
        if (now) void reconcile(now);
      }, ms),
    );
  }

  async function reconcile(s: Sandbox): Promise<void> {
    if (s.metadata?.deletionTimestamp) return;
    const ttlMs = Math.max(0, Number(s.spec?.ttlSeconds ?? 0)) * 1000;
    const deadline = Date.parse(s.metadata!.creationTimestamp as unknown as string) + ttlMs;
    const expired = Date.now() >= deadline;
    const want = { phase: expired ? 'Expired' : 'Active', expiresAt: new Date(deadline).toISOString() };
    if (s.status?.phase !== want.phase || s.status?.expiresAt !== want.expiresAt) {
      try {
        await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace: s.metadata!.namespace!, name: s.metadata!.name!, body: [{ op: 'add', path: '/status', value: want }] });
        backoff.delete(keyOf(s));
        console.log(`${keyOf(s)} ${want.phase} (expires ${want.expiresAt})`);
      } catch (err) {
        console.error(`status of ${keyOf(s)} not written: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        if (!options.retryFailedWrites) return;
        const delay = Math.min((backoff.get(keyOf(s)) ?? 250) * 2, 30_000);
        backoff.set(keyOf(s), delay);
        later(s, delay);
        return;
      }
    }
    // +1 ms: the timer may fire at the deadline's millisecond, when it has passed
    if (!expired) later(s, deadline - Date.now() + 1);
  }

  informer.on('add', (s) => void reconcile(s));
  informer.on('update', (s) => void reconcile(s));
  informer.on('delete', (s) => {
    clearTimeout(timers.get(keyOf(s)));
    timers.delete(keyOf(s));
  });
  informer.on('error', (err: unknown) => {
    console.error(`informer stopped: ${err instanceof Error ? err.message : String(err)}`);
    setTimeout(() => void informer.start(), 5_000);
  });
  void informer.start();
  console.log('ttl expirer started');
}
