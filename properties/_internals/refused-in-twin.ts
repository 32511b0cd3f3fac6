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
 * Objects (`Kind namespace/name`) and namespaces (`Namespace name`) someone other than the user
 * deleted (a controller, the garbage collector, a fault): a refusal of the user's action on one of
 * them, or on an object in one of them, may be a wrong delete's mark.
 */
function deletedByOthers(run: RunRecord): Set<string> {
  const out = new Set<string>();
  for (const w of run.writes) if (w.verb === 'delete' && w.error === undefined && w.actor !== 'user') out.add(`${w.kind} ${w.key}`);
  return out;
}

/**
 * The differences about objects the two runs' users declared differently: the user's last action
 * on the object was refused in the fault-free run (an update answered NotFound because the
 * controller had already, and rightly, deleted the object there) and accepted in this run (where
 * the controller saw the object later). The runs then do not share a desired state for it, nor for
 * what it owns, so those are not compared. The other way round, refused only under faults, too,
 * unless someone other than the user deleted the object or its namespace in this run (a wrong
 * delete answered by NotFound is what a bug looks like): a resize the API server refused because
 * a fault kept the claim unbound, or a create in a namespace whose own create a fault failed,
 * declares nothing the fault-free run's user declared.
 */
export function declaredApart(diffs: readonly StateDifference[], run: RunRecord, twin: RunRecord): { kept: StateDifference[]; left: string[] } {
  const refusedInTwin = refusedObjects(twin);
  const refusedHere = refusedObjects(run);
  if (refusedInTwin.size === 0 && refusedHere.size === 0) return { kept: [...diffs], left: [] };
  const apart = new Map<string, string>();
  for (const [id, error] of refusedInTwin) if (!refusedHere.has(id)) apart.set(id, `refused in the fault-free run: ${error ?? 'refused'}`);
  if (refusedHere.size > 0) {
    const deleted = deletedByOthers(run);
    for (const [id, error] of refusedHere) {
      if (refusedInTwin.has(id)) continue;
      const ns = /^\S+ ([^/]+)\//.exec(id)?.[1];
      if (deleted.has(id) || (ns !== undefined && deleted.has(`Namespace ${ns}`))) continue;
      apart.set(id, `refused in this run: ${error ?? 'refused'}`);
    }
  }
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
    else left.push(root === d.id ? `${d.id} (the user's last action on it was ${apart.get(root)!})` : `${d.id} (owned by ${root})`);
  }
  return { kept, left };
}
