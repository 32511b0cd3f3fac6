import type { RunRecord } from '../../src/harness/property.js';
import { stateIdOf, uidAliases, type StateDifference } from './normalize.js';

/**
 * Objects (`Kind namespace/name`) whose user's last action was refused: the last `user:action`
 * attempt on the object carries an error (src/harness/user-actions.ts), with that error. The
 * tail's re-applies are the harness's probes, not the user's intent (as in esr.ts).
 */
export function refusedObjects(run: RunRecord): Map<string, string | undefined> {
  const last = new Map<string, string | undefined>();
  for (const e of run.trace) {
    if (e.type === 'run:phase' && e['phase'] === 'tail') break;
    if (e.type !== 'user:action' || typeof e['kind'] !== 'string' || typeof e['key'] !== 'string') continue;
    last.set(`${e['kind']} ${e['key']}`, typeof e['error'] === 'string' ? e['error'] : undefined);
  }
  const out = new Map<string, string | undefined>();
  for (const [id, error] of last) if (error !== undefined) out.set(id, error);
  return out;
}

/**
 * The differences about objects the two runs' users declared differently: the user's last action
 * on the object was refused in the fault-free run (an update answered NotFound because the
 * controller had already, and rightly, deleted the object there) and accepted in this run (where
 * the controller saw the object later). The runs then do not share a desired state for it, nor for
 * what it owns, so those are not compared. The other way round (refused only under faults, e.g.
 * after a wrong delete) stays compared: that is what a bug looks like.
 */
export function declaredApart(diffs: readonly StateDifference[], run: RunRecord, twin: RunRecord): { kept: StateDifference[]; left: string[] } {
  const refusedInTwin = refusedObjects(twin);
  if (refusedInTwin.size === 0) return { kept: [...diffs], left: [] };
  const refusedHere = refusedObjects(run);
  const apart = new Map<string, string>();
  for (const [id, error] of refusedInTwin) if (!refusedHere.has(id)) apart.set(id, error ?? 'refused');
  if (apart.size === 0) return { kept: [...diffs], left: [] };
  // the objects that hang off them in either run (ownerReferences, transitively), by state id
  const under = new Map<string, string>();
  for (const r of [run, twin]) {
    const aliases = uidAliases(r.writes);
    const byUid = new Map(r.settledObjects.map((o) => [o.metadata.uid, o] as const));
    const rootOf = (uid: string | undefined, depth: number): string | undefined => {
      const o = uid === undefined ? undefined : byUid.get(uid);
      if (!o || depth > 8) return undefined;
      const id = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
      if (apart.has(id)) return id;
      for (const ref of o.metadata.ownerReferences) {
        const root = rootOf(ref.uid, depth + 1);
        if (root) return root;
      }
      return undefined;
    };
    for (const o of r.settledObjects) {
      const root = rootOf(o.metadata.uid, 0);
      if (root) under.set(stateIdOf(o, aliases), root);
    }
  }
  const kept: StateDifference[] = [];
  const left: string[] = [];
  for (const d of diffs) {
    const root = apart.has(d.id) ? d.id : under.get(d.id);
    if (root === undefined) kept.push(d);
    else left.push(root === d.id ? `${d.id} (the user's last action on it was refused in the fault-free run: ${apart.get(root)!})` : `${d.id} (owned by ${root})`);
  }
  return { kept, left };
}
