import type { RunRecord } from '../../src/harness/property.js';
import { at } from './json.js';
import { alike, ownerFieldOf, readDownstream, userTimes } from './downstream-state.js';
import { aliasUids, uidAliases } from './normalize.js';
import { timelineOf } from './timeline.js';

/**
 * The most alike copies of one owner's external resource that were alive at once during a run,
 * replayed from the fake services' history (creates, deletes, out-of-band removals, in order):
 * no-duplicate-side-effects judges the end, and a duplicate made and cleaned up again before it
 * (a second DNS record served for five seconds, a second charge refunded) leaves the end clean.
 * Owners holding a uid are named by the object (`<uid of Kind ns/name>`), so a run and its
 * fault-free twin compare. A resource a reconcile the end of the run cut short had created is
 * left out, as the end-state check leaves it out (a renewal between issuing and revoking), and so
 * are `transient` contents (replacements.ts `transientContents` of the fault-free run: a lock row
 * taken and released within one reconcile, which a failed release leaves beside the next one).
 * @internal
 */

/** The most copies alive at once, per service, collection and owner. */
export interface Peak {
  service: string;
  collection: string;
  /** The owner value as the resources hold it. */
  owner: string;
  /** The owner in words: `HostRecord default/web` for a uid of an object the run created, else the value. */
  ownerName: string;
  n: number;
  /** The copies alive at that moment. */
  ids: string[];
}

/** Peaks keyed by `service/collection owner` (owner normalized), only where an owner held more than one copy at once. */
export function copiesAtOnce(run: RunRecord, ownerField: string | undefined, transient: ReadonlySet<string> = new Set()): Map<string, Peak> {
  const keep = userTimes(run);
  const out = new Map<string, Peak>();
  const services = readDownstream(run.downstream);
  if (services.every((s) => s.history.length === 0)) return out;
  const aliases = uidAliases(run.writes);
  const inFlight = new Set<string>();
  for (const r of timelineOf(run).requests) if (r.method === 'POST' && r.reconcile !== undefined && r.reconcile.end === undefined && r.headers?.['location'] !== undefined) inFlight.add(r.headers['location']);
  for (const s of services) {
    const creates = s.history.filter((h) => h.op === 'create');
    const field = ownerFieldOf(run, s, ownerField, creates.map((h) => h.body));
    if (field === undefined) continue;
    const alive = new Map<string, string>(); // id → class
    const members = new Map<string, Set<string>>(); // class → ids alive
    for (const h of s.history) {
      if (h.op !== 'create') {
        const c = alive.get(h.id);
        if (c !== undefined) members.get(c)?.delete(h.id);
        alive.delete(h.id);
        continue;
      }
      if (inFlight.has(`${s.baseUrl}/${encodeURIComponent(h.collection)}/${encodeURIComponent(h.id)}`)) continue;
      // a lock row taken and released within one reconcile fault-free: one left behind by a failed release is no copy of anything
      if (transient.size > 0 && transient.has(`${s.name}/${h.collection} ${aliasUids(alike(h.body, '', keep), aliases)}`)) continue;
      const owner = at(h.body, field);
      if (owner === undefined || owner === null || typeof owner === 'object') continue;
      const ownerName = aliases.get(String(owner)) ?? String(owner);
      const c = `${h.collection}\u0000${ownerName}\u0000${alike(h.body, field, keep)}`;
      alive.set(h.id, c);
      let set = members.get(c);
      if (!set) members.set(c, (set = new Set()));
      set.add(h.id);
      if (set.size < 2) continue;
      const key = `${s.name}/${h.collection} ${ownerName}`;
      const best = out.get(key);
      const named = /^<uid of (.*)>$/.exec(ownerName)?.[1];
      if (!best || set.size > best.n) out.set(key, { service: s.name, collection: h.collection, owner: String(owner), ownerName: named !== undefined ? `${named} (${String(owner)})` : String(owner), n: set.size, ids: [...set] });
    }
  }
  return out;
}
