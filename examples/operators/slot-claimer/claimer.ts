/**
 * A first-come-first-served slot claimer, written the way client-node scripts are: each Claim
 * (example.com/v1) gets the lowest free slot of the pool ConfigMap `default/slots` (a key per
 * slot, `""` when free, else the holder `<namespace>/<name>/<uid>`), and its `status.slot` says
 * which. The only guard against two writers is the JSON patch `test` op on the slot it takes (the
 * patch fails with 422 when someone took it since the read). A deleted Claim's slot goes back to
 * the pool; holders whose Claim is gone from a live list of the Claims (a delete event lost, a restart)
 * are freed at every event and every 10 s (a resync), so nothing leaks; then the live Claims are served oldest first. No
 * timers but the resync and the retry of a failed step: which slot a Claim gets depends on which Claims held one
 * when the claimer came to it (a Claim created just before another's deletion gets the next free
 * slot, or the deleted one's when the claimer saw the deletion first: both correct).
 *
 * `onDeleteEventOnly` (the buggy twin) frees a slot only when it hears its Claim's delete event:
 * a Claim deleted while the claimer was down (a crash, a restart) keeps its slot for ever.
 */
import { CoreV1Api, CustomObjectsApi, KubeConfig, makeInformer, type KubernetesObject } from '@kubernetes/client-node';

export const GROUP = 'example.com';
export const VERSION = 'v1';
export const PLURAL = 'claims';
export const POOL = { namespace: 'default', name: 'slots' };
/** How often every Claim is looked at again, events or not. */
export const RESYNC_MS = 10_000;

interface Claim extends KubernetesObject {
  status?: { slot?: number };
}

const kc = new KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

const holderOf = (c: Claim) => `${c.metadata!.namespace}/${c.metadata!.name}/${c.metadata!.uid}`;
const slotsOf = (data: Record<string, string> | undefined) =>
  Object.entries(data ?? {})
    .map(([k, v]) => ({ slot: Number(k), holder: v }))
    .filter((s) => Number.isInteger(s.slot))
    .sort((a, b) => a.slot - b.slot);

export function main(options: { onDeleteEventOnly: boolean }): void {
  const informer = makeInformer<Claim>(kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }) as never);
  // one step at a time: the steps read the pool and write it
  let queue: Promise<void> = Promise.resolve();
  const serially = (step: () => Promise<void>, retry: () => void): void => {
    queue = queue.then(step).catch((err: unknown) => {
      console.error(`step failed, retried in 500 ms: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      setTimeout(retry, 500);
    });
  };

  /** Frees the slots whose holders are not among `claims` (a deleted one, a lost delete event). */
  async function release(claims: readonly Claim[], deleted?: Claim): Promise<void> {
    const live = new Set(claims.map(holderOf));
    const pool = await core.readNamespacedConfigMap(POOL);
    for (const { slot, holder } of slotsOf(pool.data)) {
      if (holder === '' || live.has(holder)) continue;
      // BUG (onDeleteEventOnly): only the Claim of the delete event heard is let go
      if (options.onDeleteEventOnly && (deleted === undefined || holder !== holderOf(deleted))) continue;
      await core.patchNamespacedConfigMap({ ...POOL, body: [{ op: 'test', path: `/data/${slot}`, value: holder }, { op: 'replace', path: `/data/${slot}`, value: '' }] });
      console.log(`slot ${slot} freed (${holder} is gone)`);
    }
  }

  async function claim(now: Claim): Promise<void> {
    if (now.metadata?.deletionTimestamp) return;
    const holder = holderOf(now);
    const pool = await core.readNamespacedConfigMap(POOL);
    const slots = slotsOf(pool.data);
    let mine = slots.find((s) => s.holder === holder)?.slot;
    if (mine === undefined) {
      const free = slots.find((s) => s.holder === '');
      if (!free) return;
      // the test op is the guard: someone who took the slot since the read makes the patch fail
      await core.patchNamespacedConfigMap({ ...POOL, body: [{ op: 'test', path: `/data/${free.slot}`, value: '' }, { op: 'replace', path: `/data/${free.slot}`, value: holder }] });
      mine = free.slot;
      console.log(`${holder} got slot ${mine}`);
    }
    if (now.status?.slot !== mine) await custom.patchNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, plural: PLURAL, namespace: now.metadata!.namespace!, name: now.metadata!.name!, body: [{ op: 'add', path: '/status', value: { slot: mine } }] });
  }

  // every event: free what is gone, then serve the live Claims, oldest first (first come, first served)
  const sync = (deleted?: Claim) =>
    serially(async () => {
      // a live list, not the cache: a cache behind a create or a delete would free or skip a slot wrongly
      const { items } = (await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as { items: Claim[] };
      await release(items, deleted);
      const claims = items.sort((a, b) => String(a.metadata!.creationTimestamp).localeCompare(String(b.metadata!.creationTimestamp)) || a.metadata!.name!.localeCompare(b.metadata!.name!));
      for (const c of claims) await claim(c);
    }, () => sync(deleted));
  informer.on('add', () => sync());
  informer.on('update', () => sync());
  informer.on('delete', (c) => sync(c));
  // and every 10 s (a resync, as client-go's informers have): a Claim whose events were all lost (its
  // ADDED, then its DELETED, which the informer drops for an object it never cached) would otherwise
  // hold its slot until some other Claim's event (hunt host:slot-claimer seed 962 run 9)
  setInterval(() => sync(), RESYNC_MS);
  informer.on('error', (err: unknown) => {
    console.error(`informer stopped: ${err instanceof Error ? err.message : String(err)}`);
    setTimeout(() => void informer.start(), 5_000);
  });
  void informer.start();
  console.log('slot claimer started');
}
