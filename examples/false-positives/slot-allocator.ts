import { defineController, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * An allocator that keeps what is in use when its pool shrinks, as a PersistentVolume stays
 * while a claim holds it, or a port, a license seat, a node's CPU set: a `SlotClaim` asks for one
 * ordinal (`spec.slot`, immutable) of a `SlotPool` of `spec.size` slots. The allocator grants it
 * when it is below the size and free, first come first served (the oldest claim asking for a free
 * slot gets it, from a live list of the claims: a cache behind a create must not let a younger one
 * take it first, found by the hunt: which of two claims got it depended on reconcile order), in
 * two phases: first the reservation on the pool
 * (`status.slots[<slot>] = { name, uid }` of the claim, an optimistic status update with the
 * resourceVersion it read from its cache, so a stale cache gets a 409), then the claim's
 * `status` (Bound, with the pool's uid). A granted slot stays granted while its claim lives,
 * whatever the size becomes: a pool shrunk under a slot in use keeps it (the shrink only stops new
 * grants beyond it). So the end state depends on history: a claim of slot 2 that came while the
 * pool had 4 slots is Bound after the pool went back to 2, and one that came only after is
 * Pending. That is what this case exercises: recovery false-alarmed on it (the earlier end state
 * has no grant), fixed in the oracle (`properties/_internals/held-by-others.ts`); same-end-state
 * did, rarely (a fault that hides the pool's short-lived bigger size from the allocator: the twin
 * granted, the run could not), fixed in the harness: a fault-free run whose controller is busy
 * while the user changes the pool within seconds ends as the run does, and same-end-state accepts
 * objects that end exactly so (`busyWindows` in `src/harness/twin.ts`).
 *
 * Reservations are freed when their claim is gone: the reconcile of a claim that is not there
 * (or of one recreated under the name, another uid) removes the reservations made for that name
 * under another uid, after a live read of the claim (a cache behind a create must not free a
 * slot just granted). Pool events enqueue the claims the pool names and those of the pool still
 * Pending, so a deleted claim whose event was lost is freed at the pool's next event or resync.
 */
export const SLOT_POOL = 'SlotPool';
export const SLOT_CLAIM = 'SlotClaim';

interface Holder {
  name: string;
  uid: string;
}
interface PoolSpec {
  size: number;
}
interface PoolStatus {
  slots?: Record<string, Holder>;
}
interface ClaimSpec {
  pool: string;
  slot: number;
}
interface ClaimStatus {
  phase?: 'Pending' | 'Bound';
  slot?: number;
  /** The pool the grant is from: a pool deleted and made again under its name is another pool. */
  poolUid?: string;
  observedGeneration?: number;
}
type Pool = StoredObject<PoolSpec, PoolStatus>;
type Claim = StoredObject<ClaimSpec, ClaimStatus>;

function splitKey(key: string): [string | undefined, string] {
  const i = key.indexOf('/');
  return i < 0 ? [undefined, key] : [key.slice(0, i), key.slice(i + 1)];
}

/** The pool's status with these reservations (none: no `slots` at all, as a pool that never granted one). */
function withSlots(status: PoolStatus, slots: Record<string, Holder>): PoolStatus {
  const { slots: _old, ...rest } = status;
  return Object.keys(slots).length > 0 ? { ...rest, slots } : rest;
}

/** Removes the reservations for `name` whose uid is not the live claim's (a claim gone, or recreated). */
async function releaseStale(ctx: ReconcileContext, ns: string | undefined, name: string, pools: readonly Pool[]): Promise<void> {
  const stale = pools.filter((p) => Object.values(p.status.slots ?? {}).some((h) => h.name === name));
  if (stale.length === 0) return;
  const live = await ctx.client.tryGet<ClaimSpec, ClaimStatus>(SLOT_CLAIM, { namespace: ns, name }, { live: true });
  const keep = live && live.metadata.deletionTimestamp === undefined ? live.metadata.uid : undefined;
  for (const p of stale) {
    const slots = Object.fromEntries(Object.entries(p.status.slots ?? {}).filter(([, h]) => h.name !== name || h.uid === keep));
    if (Object.keys(slots).length !== Object.keys(p.status.slots ?? {}).length) await ctx.client.updateStatus({ ...p, status: withSlots(p.status, slots) });
  }
}

/**
 * The mistake a variant makes: `revoke` is the buggy twin (a pool shrunk under a granted slot
 * takes it back from its claim); `leak` never frees the reservation of a claim that is gone (a
 * target of recovery's unit test: what no consumer holds any more is a leak, still caught).
 */
type Mistake = 'none' | 'revoke' | 'leak';

const makeAllocator = (mistake: Mistake) => async (ctx: ReconcileContext): Promise<ReconcileResult> => {
  const [ns, name] = splitKey(ctx.key);
  const claim = (await ctx.client.tryGet<ClaimSpec, ClaimStatus>(SLOT_CLAIM, ctx.key)) as Claim | undefined;
  const pools = (await ctx.client.list<PoolSpec, PoolStatus>(SLOT_POOL, ns !== undefined ? { namespace: ns } : {})) as Pool[];
  // reservations under this name for a claim that is not this one (gone, or recreated)
  if (mistake !== 'leak' && pools.some((p) => Object.values(p.status.slots ?? {}).some((h) => h.name === name && h.uid !== claim?.metadata.uid))) await releaseStale(ctx, ns, name, pools);
  if (!claim) return undefined;
  if (claim.metadata.deletionTimestamp !== undefined) return undefined;
  const gen = claim.metadata.generation;
  const pending = async (): Promise<undefined> => {
    await writeStatus(ctx, claim, { phase: 'Pending', observedGeneration: gen });
    return undefined; // a pool event (grown, a slot freed) brings it back
  };
  const pool = pools.find((p) => p.metadata.name === claim.spec.pool);
  if (!pool || pool.metadata.deletionTimestamp !== undefined) return pending();
  const slot = String(claim.spec.slot);
  const holder = pool.status.slots?.[slot];
  if (holder !== undefined && holder.uid === claim.metadata.uid) {
    if (mistake === 'revoke' && claim.spec.slot >= pool.spec.size) {
      const { [slot]: _freed, ...rest } = pool.status.slots ?? {};
      await ctx.client.updateStatus({ ...pool, status: withSlots(pool.status, rest) });
      return pending();
    }
    await writeStatus(ctx, claim, { phase: 'Bound', slot: claim.spec.slot, poolUid: pool.metadata.uid, observedGeneration: gen });
    return undefined;
  }
  // held by another claim (a stale reservation is freed above), or beyond the size: not now
  if (holder !== undefined || claim.spec.slot >= pool.spec.size || claim.spec.slot < 0) return pending();
  // a free slot goes to the oldest claim asking for it (first come, first served), read live: a
  // cache behind a create must not let a younger claim take it first
  const rivals = (await ctx.client.list<ClaimSpec, ClaimStatus>(SLOT_CLAIM, { ...(ns !== undefined ? { namespace: ns } : {}), live: true })).filter((c) => c.spec.pool === claim.spec.pool && c.spec.slot === claim.spec.slot && c.metadata.deletionTimestamp === undefined && c.metadata.uid !== claim.metadata.uid);
  if (rivals.some((c) => older(c, claim))) return pending();
  // phase one: the reservation, optimistic (a cache behind another grant gets a 409 and a retry)
  const reserved = await ctx.client.updateStatus({ ...pool, status: { ...pool.status, slots: { ...(pool.status.slots ?? {}), [slot]: { name, uid: claim.metadata.uid } } } });
  // phase two: the claim (a crash in between is repaired by the next reconcile: the pool names it)
  await writeStatus(ctx, claim, { phase: 'Bound', slot: claim.spec.slot, poolUid: reserved.metadata.uid, observedGeneration: gen });
  return undefined;
};

/** First come, first served: by creation time, then name. */
function older(a: Claim, b: Claim): boolean {
  const [x, y] = [a.metadata.creationTimestamp, b.metadata.creationTimestamp];
  return x !== y ? x < y : a.metadata.name < b.metadata.name;
}

/** A pool event: the claims it names (one may be gone: its reservation is freed) and its claims not Bound. */
function claimsOfPool(p: StoredObject, view: { list(kind: string, o?: { namespace?: string }): StoredObject[] }): string[] {
  const ns = p.metadata.namespace;
  const prefix = ns !== undefined ? `${ns}/` : '';
  const named = Object.values(((p.status as PoolStatus).slots ?? {}) as Record<string, Holder>).map((h) => `${prefix}${h.name}`);
  const waiting = view
    .list(SLOT_CLAIM, ns !== undefined ? { namespace: ns } : {})
    .filter((c) => c.spec['pool'] === p.metadata.name && (c.status as ClaimStatus).phase !== 'Bound')
    .map((c) => `${prefix}${c.metadata.name}`);
  return [...new Set([...named, ...waiting])];
}

const defineAllocator = (mistake: Mistake) =>
  defineController({
    name: 'slot-allocator',
    for: SLOT_CLAIM,
    watches: [{ kind: SLOT_POOL, map: claimsOfPool }],
    // two claims reserving at once is what the resourceVersion is for
    maxConcurrentReconciles: 2,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: makeAllocator(mistake),
  });

export const slotAllocatorController = defineAllocator('none');
/** Never frees the reservations of claims that are gone (see {@link Mistake}). */
export const slotAllocatorLeaky = defineAllocator('leak');

/**
 * What the allocator promises, after any write: a claim that reports a slot of a pool (the pool
 * of that uid still there) is the holder of that slot in the pool's reservations. A slot is never
 * taken back from a live claim, so this holds from the grant until the claim is gone.
 */
export const grantsHeld = safetyInvariants({
  invariants: {
    'a Bound claim holds its slot in its pool': (view) => {
      for (const c of view.list(SLOT_CLAIM)) {
        const s = c.status as ClaimStatus;
        if (s.phase !== 'Bound' || s.slot === undefined) continue;
        const pool = view.list(SLOT_POOL).find((p) => p.metadata.namespace === c.metadata.namespace && p.metadata.name === c.spec['pool']);
        if (!pool || pool.metadata.uid !== s.poolUid) continue; // that pool is gone: the grant went with it
        const h = (pool.status as PoolStatus).slots?.[String(s.slot)];
        if (h?.uid !== c.metadata.uid) return `claim ${c.metadata.name} reports slot ${s.slot} of pool ${pool.metadata.name}, whose reservations give it to ${h ? `${h.name} (uid ${h.uid})` : 'nobody'}`;
      }
      return true;
    },
  },
});

/**
 * Converged, for the allocator: every claim reports its generation and is Bound exactly when its
 * pool holds its slot for it (Pending while the slot is beyond the size or the pool is missing),
 * no claim is Pending for a free slot below its pool's size, and no reservation names a claim that
 * is not there (a leaked slot).
 */
export function slotsSettled(view: WorldView): true | string {
  const claims = view.list(SLOT_CLAIM).filter((c) => c.metadata.deletionTimestamp === undefined);
  const pools = view.list(SLOT_POOL);
  for (const c of claims) {
    const s = c.status as ClaimStatus;
    if (s.observedGeneration !== c.metadata.generation) return `claim ${c.metadata.name} has not observed generation ${c.metadata.generation}`;
    const spec = c.spec as unknown as ClaimSpec;
    const pool = pools.find((p) => p.metadata.namespace === c.metadata.namespace && p.metadata.name === spec.pool && p.metadata.deletionTimestamp === undefined);
    const h = pool ? (pool.status as PoolStatus).slots?.[String(spec.slot)] : undefined;
    const held = pool !== undefined && h?.uid === c.metadata.uid;
    if (held && (s.phase !== 'Bound' || s.slot !== spec.slot || s.poolUid !== pool.metadata.uid)) return `claim ${c.metadata.name} holds slot ${spec.slot} of pool ${spec.pool} but reports ${s.phase ?? 'no phase'}`;
    if (!held && s.phase !== 'Pending') return `claim ${c.metadata.name} reports ${s.phase ?? 'no phase'} without holding slot ${spec.slot} of pool ${spec.pool}`;
    if (!held && pool && h === undefined && spec.slot < (pool.spec['size'] as number)) return `claim ${c.metadata.name} is Pending while slot ${spec.slot} of pool ${spec.pool} is free`;
  }
  for (const p of pools) {
    for (const [slot, h] of Object.entries((p.status as PoolStatus).slots ?? {})) {
      if (!claims.some((c) => c.metadata.namespace === p.metadata.namespace && c.metadata.name === h.name && c.metadata.uid === h.uid)) return `slot ${slot} of pool ${p.metadata.name} is reserved for ${h.name} (uid ${h.uid}), which is not there (a leaked slot)`;
    }
  }
  return true;
}

export const slotAllocator: FalsePositiveCase = {
  name: 'slot-allocator',
  description: 'SlotClaims are granted ordinals of a SlotPool by a two-phase optimistic reservation on the pool\'s status; a pool shrunk under slots in use keeps them until their claims are gone, so the end state depends on which claims came while it was bigger',
  controllers: [slotAllocatorController],
  options: {
    objects: [
      // the pool shrinks and grows: a claim of slot 2 granted while it had 4 keeps it after
      { kind: SLOT_POOL, name: 'pool', spec: [{ size: 4 }, { size: 2 }] },
      { kind: SLOT_CLAIM, name: 'wide', spec: [{ pool: 'pool-0', slot: 2 }] },
      { kind: SLOT_CLAIM, name: 'low', spec: [{ pool: 'pool-0', slot: 0 }] },
    ],
    maxObjects: 4,
    validation: { immutable: { [SLOT_CLAIM]: ['spec.pool', 'spec.slot'] } },
  },
  properties: [grantsHeld, convergence({ converged: slotsSettled })],
  buggy: {
    controllers: [defineAllocator('revoke')],
    caughtBy: ['safety-invariants'],
    world: { maxObjects: 4, maxActions: 4 },
    why: 'a pool shrunk under a granted slot takes it back: it frees the reservation while the claim still reports Bound (and the claim loses a slot it was using)',
  },
};
