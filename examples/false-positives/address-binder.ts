import { defineController, type WorldView, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * An IPAM binder in the style of the PersistentVolume controller (and Cluster API's IPAM
 * contract): an `IPClaim` asks for an address of an `IPPool`, whose own controller keeps one
 * `IPAddress` object per address of its range. Binding is two-phase and bidirectional: the
 * binder first reserves a free address by writing `spec.claimRef` (name and uid of the claim) on
 * the IPAddress, with the resourceVersion it read from its cache (a stale cache gets a 409, never
 * an address two claims hold), and only then records `status.addressRef` on the claim. Every
 * read goes to the informer cache except where the cache cannot be trusted with identity:
 * before reserving (a live list of what is already reserved for this claim, so a crash between
 * the two phases, or a cache behind the reservation, never reserves a second address), before
 * declaring a bound address lost (it may only be the cache that does not show the claimRef yet),
 * and before releasing an address whose claim looks gone (the claim may have been recreated
 * under the same name: the claimRef's uid decides). A claim whose address was lost (deleted out
 * of band and made again, or rebound) forgets it first and releases what is still reserved for
 * it, so no two claims ever name one address, and is bound again. A claim's pool is immutable
 * (as Cluster API's IPAddressClaim.spec.poolRef). The claim records the address's uid too: an
 * address deleted and made again under its name is another address.
 * The pool controller makes the addresses (owned by the pool, so the garbage collector removes
 * them with it) and deletes those beyond its size only while unreserved, with a resourceVersion
 * precondition.
 */
export const IP_CLAIM = 'IPClaim';
export const IP_POOL = 'IPPool';
export const IP_ADDRESS = 'IPAddress';
const POOL_LABEL = 'ipam.example.com/pool';

interface ClaimRef {
  name: string;
  uid: string;
}
interface AddressSpec {
  address: string;
  claimRef?: ClaimRef | null;
}
interface ClaimSpec {
  pool: string;
}
interface ClaimStatus {
  phase?: 'Pending' | 'Bound';
  addressRef?: string;
  /** The uid of the address object: one deleted and made again under its name is another address. */
  addressUid?: string;
  address?: string;
  observedGeneration?: number;
}
interface PoolSpec {
  prefix: string;
  size: number;
}
type Address = StoredObject<AddressSpec, unknown>;
type Claim = StoredObject<ClaimSpec, ClaimStatus>;

const byName = (a: { metadata: { name: string } }, b: { metadata: { name: string } }) => a.metadata.name.localeCompare(b.metadata.name);
const poolOf = (a: Address) => a.metadata.labels[POOL_LABEL];
const usable = (a: Address, claim: Claim) => poolOf(a) === claim.spec.pool && a.metadata.deletionTimestamp === undefined;

/** Frees an address (optimistic: a cache behind it gets a 409 and a retry). */
async function release(ctx: ReconcileContext, a: Address): Promise<void> {
  await ctx.client.patch(IP_ADDRESS, { namespace: a.metadata.namespace, name: a.metadata.name }, { spec: { claimRef: null } }, { resourceVersion: a.metadata.resourceVersion });
}

/** `blindReserve` is the buggy twin: it reserves with a merge patch that carries no resourceVersion. */
const makeBinder = (blindReserve: boolean) => async (ctx: ReconcileContext): Promise<ReconcileResult> => {
  const [ns, name] = ctx.key.includes('/') ? (ctx.key.split('/') as [string, string]) : ['', ctx.key];
  let claim = await ctx.client.tryGet<ClaimSpec, ClaimStatus>(IP_CLAIM, ctx.key);
  const addresses = (await ctx.client.list<AddressSpec, unknown>(IP_ADDRESS, { namespace: ns })).sort(byName);
  // addresses reserved under this name for another claim (one deleted, or recreated with a new uid)
  const orphaned = addresses.filter((a) => a.spec.claimRef?.name === name && a.spec.claimRef.uid !== claim?.metadata.uid);
  if (orphaned.length > 0) {
    const current = await ctx.client.tryGet<ClaimSpec, ClaimStatus>(IP_CLAIM, ctx.key, { live: true });
    for (const a of orphaned) if (current?.metadata.uid !== a.spec.claimRef?.uid) await release(ctx, a);
  }
  if (!claim || claim.metadata.deletionTimestamp !== undefined) return;
  const gen = claim.metadata.generation;
  const bound = claim.status.addressRef;
  if (bound !== undefined) {
    const cached = addresses.find((a) => a.metadata.name === bound);
    const held = (a: Address | undefined): a is Address => a !== undefined && a.metadata.uid === claim!.status.addressUid && a.spec.claimRef?.uid === claim!.metadata.uid && usable(a, claim!);
    const a = held(cached) ? cached : await ctx.client.tryGet<AddressSpec, unknown>(IP_ADDRESS, { namespace: ns, name: bound }, { live: true });
    if (held(a)) {
      await writeStatus(ctx, claim, { phase: 'Bound', addressRef: bound, addressUid: a.metadata.uid, address: a.spec.address, observedGeneration: gen });
      // a second reservation (made on a view that did not show the first) goes back to the pool
      for (const extra of addresses) if (extra.metadata.name !== bound && extra.spec.claimRef?.uid === claim.metadata.uid) await release(ctx, extra);
      return undefined;
    }
    // lost (deleted, rebound) or in another pool now: forget it before anything frees it
    claim = await ctx.client.updateStatus({ ...claim, status: { phase: 'Pending', observedGeneration: gen } });
  }
  // unbound: first what is already reserved for it (a reservation whose status write never happened), read live
  const reserved = (await ctx.client.list<AddressSpec, unknown>(IP_ADDRESS, { namespace: ns, live: true })).filter((a) => a.spec.claimRef?.uid === claim!.metadata.uid).sort(byName);
  for (const a of reserved) if (!usable(a, claim)) await release(ctx, a);
  let chosen = reserved.find((a) => usable(a, claim!));
  if (!chosen) {
    const free = addresses.find((a) => usable(a, claim!) && !a.spec.claimRef);
    if (!free) {
      await writeStatus(ctx, claim, { phase: 'Pending', observedGeneration: gen });
      return undefined; // an address freed or added in the pool brings it back
    }
    const claimRef: ClaimRef = { name, uid: claim.metadata.uid };
    chosen = blindReserve
      ? await ctx.client.patch<AddressSpec, unknown>(IP_ADDRESS, { namespace: ns, name: free.metadata.name }, { spec: { claimRef: claimRef as unknown as null } })
      : await ctx.client.update<AddressSpec, unknown>({ ...free, spec: { ...free.spec, claimRef } });
  }
  await writeStatus(ctx, claim, { phase: 'Bound', addressRef: chosen.metadata.name, addressUid: chosen.metadata.uid, address: chosen.spec.address, observedGeneration: gen });
  return undefined;
};

/** An address event: the claim it is reserved for, or (free) every pending claim of its pool. */
function claimsFor(a: StoredObject, ctx: { list(kind: string, o?: { namespace?: string }): StoredObject[] }): string[] {
  const ns = a.metadata.namespace ?? '';
  const ref = a.spec['claimRef'] as ClaimRef | null | undefined;
  if (ref) return [`${ns}/${ref.name}`];
  return ctx
    .list(IP_CLAIM, { namespace: ns })
    .filter((c) => c.spec['pool'] === a.metadata.labels[POOL_LABEL] && (c.status as ClaimStatus).phase !== 'Bound')
    .map((c) => `${ns}/${c.metadata.name}`);
}

const defineBinder = (blindReserve: boolean) =>
  defineController({
    name: 'ip-binder',
    for: IP_CLAIM,
    watches: [{ kind: IP_ADDRESS, map: claimsFor }],
    // two claims reserving at once is what the resourceVersion is for
    maxConcurrentReconciles: 2,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: makeBinder(blindReserve),
  });

/** Keeps `<pool>-<i>` for i < size, owned by the pool; deletes the ones beyond only while unreserved. */
async function reconcilePool(ctx: ReconcileContext): Promise<void> {
  const pool = await ctx.client.tryGet<PoolSpec, { addresses?: number; observedGeneration?: number }>(IP_POOL, ctx.key, { live: true });
  if (!pool || pool.metadata.deletionTimestamp !== undefined) return;
  const ns = pool.metadata.namespace;
  const name = pool.metadata.name;
  for (let i = 0; i < pool.spec.size; i++) {
    await apply(ctx, { apiVersion: 'ipam.example.com/v1', kind: IP_ADDRESS, metadata: { name: `${name}-${i}`, namespace: ns, labels: { [POOL_LABEL]: name }, ownerReferences: [controllerRef(pool)] }, spec: { address: `${pool.spec.prefix}.${i + 1}` } });
  }
  const mine = (await ctx.client.list<AddressSpec, unknown>(IP_ADDRESS, { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: { matchLabels: { [POOL_LABEL]: name } } })).filter((a) => a.metadata.ownerReferences.some((r) => r.uid === pool.metadata.uid));
  for (const a of mine) {
    const i = Number(a.metadata.name.slice(name.length + 1));
    if (i >= pool.spec.size && !a.spec.claimRef && a.metadata.deletionTimestamp === undefined) await deleteIfPresent(ctx, IP_ADDRESS, { namespace: ns, name: a.metadata.name }, { uid: a.metadata.uid, resourceVersion: a.metadata.resourceVersion });
  }
  await writeStatus(ctx, pool, { addresses: pool.spec.size, observedGeneration: pool.metadata.generation });
}

export const ipPoolController = defineController({
  name: 'ip-pool',
  for: IP_POOL,
  owns: [IP_ADDRESS],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcilePool,
});

export const ipBinderController = defineBinder(false);

/**
 * What the binder must never do, after any write: two claims naming one address. By uid: a
 * claim whose address was deleted out of band still names it until its binder sees the loss
 * (found by the hunt: its status write could 409 on a stale cache for seconds), while the pool
 * makes an address of that name again and another claim takes it; that is not one address held
 * twice, and no binder can prevent it.
 */
export const oneClaimPerAddress = safetyInvariants({
  invariants: {
    'an address is named by at most one claim': (view) => {
      const seen = new Map<string, string>();
      for (const c of view.list(IP_CLAIM)) {
        const { addressRef: ref, addressUid: uid } = c.status as ClaimStatus;
        if (ref === undefined) continue;
        const at = `${c.metadata.namespace ?? ''}/${ref} (uid ${uid ?? '?'})`;
        const other = seen.get(at);
        if (other !== undefined) return `claims ${other} and ${c.metadata.name} both name address ${at}`;
        seen.set(at, c.metadata.name);
      }
      return true;
    },
  },
});

/**
 * Converged, for a binder: every claim and pool reports its generation, every claim is Bound to
 * an address of its pool reserved for it (uid) with that address's value, or Pending while its
 * pool has no free address, and no address is reserved for a claim that does not name it.
 */
export function bindingsSettled(view: WorldView): true | string {
  const addresses = view.list(IP_ADDRESS);
  const claims = view.list(IP_CLAIM).filter((c) => c.metadata.deletionTimestamp === undefined);
  for (const o of [...claims, ...view.list(IP_POOL)]) if ((o.status as { observedGeneration?: number }).observedGeneration !== o.metadata.generation) return `${o.kind} ${o.metadata.name} has not observed generation ${o.metadata.generation}`;
  for (const c of claims) {
    const s = c.status as ClaimStatus;
    const pool = (c.spec as unknown as ClaimSpec).pool;
    const inPool = addresses.filter((a) => a.metadata.namespace === c.metadata.namespace && a.metadata.labels[POOL_LABEL] === pool && a.metadata.deletionTimestamp === undefined);
    if (s.phase === 'Bound') {
      const a = inPool.find((x) => x.metadata.name === s.addressRef);
      const ref = a?.spec['claimRef'] as ClaimRef | null | undefined;
      if (!a || a.metadata.uid !== s.addressUid || ref?.uid !== c.metadata.uid || s.address !== a.spec['address']) return `claim ${c.metadata.name} reports Bound to ${s.addressRef ?? '?'} (${s.address ?? '?'}), which is not an address of pool ${pool} reserved for it with that value`;
    } else if (inPool.some((a) => !a.spec['claimRef'])) return `claim ${c.metadata.name} is ${s.phase ?? 'without a phase'} while pool ${pool} has a free address`;
  }
  for (const a of addresses) {
    const ref = a.spec['claimRef'] as ClaimRef | null | undefined;
    if (!ref) continue;
    const c = claims.find((x) => x.metadata.namespace === a.metadata.namespace && x.metadata.name === ref.name && x.metadata.uid === ref.uid);
    if (!c || (c.status as ClaimStatus).addressRef !== a.metadata.name) return `address ${a.metadata.name} is reserved for ${ref.name}, which does not name it (a leaked reservation)`;
  }
  return true;
}

export const addressBinder: FalsePositiveCase = {
  name: 'address-binder',
  description: 'IPClaims are bound to IPAddresses of a pool PV/PVC-binder style: a cached, optimistic two-phase bidirectional binding (claimRef on the address first, then the claim\'s status), repaired when an address is lost, deleted and made again, or its claim recreated',
  controllers: [ipBinderController, ipPoolController],
  options: {
    objects: [
      { kind: IP_CLAIM, name: 'app', spec: [{ pool: 'blue-0' }, { pool: 'green-0' }] },
      // a pool's size stays (a shrink keeps the addresses still reserved, so what exists would
      // depend on which claims came while it was bigger: recovery judges that, see the notes);
      // its prefix moves, and every address with it, reserved or not
      { kind: IP_POOL, name: 'blue', spec: [{ prefix: '10.0.1', size: 2 }, { prefix: '10.0.9', size: 2 }] },
      { kind: IP_POOL, name: 'green', spec: [{ prefix: '10.0.2', size: 1 }, { prefix: '10.0.8', size: 1 }] },
    ],
    maxObjects: 4,
    // a claim's pool is immutable, as Cluster API's IPAddressClaim.spec.poolRef: a claim moved to
    // another pool and back would find its address taken meanwhile (found by the hunt, recovery:
    // a binder's end state depends on which claims came while it was away)
    validation: { immutable: { [IP_CLAIM]: ['spec.pool'] } },
  },
  // which claim gets which address, and which of two claims gets a pool's last one, depends on
  // the order the binder saw them in (like a scheduler's node for a Pod): the end-state
  // comparison leaves the binding out, and bindingsSettled judges it instead (found by the hunt:
  // a delayed or lost address event, or a 409, let a later claim reserve first)
  properties: [sameEndState({ masks: [...(sameEndState().options['masks'] as string[]), 'spec.claimRef', 'status.addressRef', 'status.addressUid', 'status.address', 'status.phase'] }), oneClaimPerAddress, convergence({ converged: bindingsSettled })],
  buggy: {
    controllers: [defineBinder(true), ipPoolController],
    caughtBy: ['safety-invariants'],
    // two claims and their pool
    world: { maxObjects: 4 },
    why: 'it reserves a free address with a merge patch that carries no resourceVersion: two claims that both saw it free in their cache both reserve it, and both name it',
    // the test's seed: the CI's twin test finds it at run 1 (the seed before took 37; bench/hunt-fp-rate.ts measures how often it shows)
    seed: 14,
  },
};
