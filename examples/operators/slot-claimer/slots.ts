/**
 * What the slot claimer (claimer.ts) promises once the world settled, for its check: no client
 * here (the harness side imports it). Which slot a Claim holds is the path's business (a Claim
 * made just before another's deletion may get the freed slot or the next one); that every live
 * Claim that could hold one does, that its status says which, and that no slot is held for a Claim
 * that is gone (a leak), is not. The buggy twin's leak (a Claim deleted while the claimer was
 * down keeps its slot) fails it whatever the timing.
 */
interface Obj {
  metadata: { name: string; namespace?: string | undefined; uid: string; deletionTimestamp?: string | undefined };
  data?: unknown;
  status?: unknown;
}

/** The converged predicate: the pool `default/slots` names only live Claims, each at most once, each Claim reports the slot it holds, and none waits while a slot is free. */
export function slotsHeld(view: { list(kind: string): readonly Obj[]; get(kind: string, key: string): Obj | undefined }): true | string {
  const pool = view.get('ConfigMap', 'default/slots');
  if (pool === undefined) return true;
  const claims = view.list('Claim').filter((c) => c.metadata.deletionTimestamp === undefined);
  const holderOf = (c: Obj) => `${c.metadata.namespace ?? ''}/${c.metadata.name}/${c.metadata.uid}`;
  const live = new Map(claims.map((c) => [holderOf(c), c]));
  const held = new Map<string, number>();
  let free: number | undefined;
  for (const [k, v] of Object.entries((pool.data ?? {}) as Record<string, string>)) {
    const slot = Number(k);
    if (!Number.isInteger(slot)) continue;
    if (v === '') {
      if (free === undefined || slot < free) free = slot;
      continue;
    }
    if (!live.has(v)) return `slot ${slot} is held for ${v}, which is gone (a leaked slot)`;
    if (held.has(v)) return `${v} holds slots ${held.get(v)} and ${slot}`;
    held.set(v, slot);
  }
  for (const [holder, c] of live) {
    const reported = (c.status as { slot?: unknown } | undefined)?.slot;
    const slot = held.get(holder);
    if (slot === undefined && free !== undefined) return `Claim ${c.metadata.namespace ?? ''}/${c.metadata.name} holds no slot while slot ${free} is free`;
    if (slot !== undefined && reported !== slot) return `Claim ${c.metadata.namespace ?? ''}/${c.metadata.name} holds slot ${slot} but reports ${JSON.stringify(reported ?? null)}`;
  }
  return true;
}
