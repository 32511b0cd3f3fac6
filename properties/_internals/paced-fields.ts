import type { LearnedMasks, RunRecord } from '../../src/harness/property.js';
import { keyOf } from '../../src/store/object.js';
import { stable } from './json.js';
import { fmtPath, leafDiffs } from './paths.js';
import { stateIdOf, type StateDifference } from './normalize.js';
import type { State } from './masks.js';

/**
 * Fields of objects a controller of a timing-dependent kind walks through without owning them
 * (an upgrade orchestrator's Nodes: cordoned, asked for a version, uncordoned; the version their
 * agent then reports): how far the walk got when its user paused or deleted the plan is pace, as
 * the plan's own progress is (same-end-state's `timingDependent`). Such an object seldom ends
 * exactly as in any one fault-free run of a later controller (a node cordoned and uncordoned
 * before its upgrade keeps `unschedulable: false`, where a run that never came to it has no such
 * field), so it is accepted field by field instead: each field that differs from the fault-free
 * run holds, on both sides, a value (or absence) that field has at the end of a fault-free run
 * whose controller came later (the `slow` and `world` benign runs). A value no fault-free run
 * ends with (a node left cordoned, a lock never released) is still reported.
 * @internal
 */

/** The learned list that holds them: `<id>\u0000<path>\u0000<value>` entries. */
export const PACED_FIELDS = 'pacedFields';

const ABSENT = '<absent>';
const side = (v: unknown) => (v === undefined ? ABSENT : stable(v));

/**
 * Ids (as a normalized state names them) of the objects in `r`'s settled world, of no controller's
 * primary kind and owned by no object of a kind in `kinds`, that a controller whose primary kind
 * is in `kinds` wrote (a write that changed something).
 */
export function pacedObjects(r: RunRecord, kinds: ReadonlySet<string>): Set<string> {
  const actors = r.controllers.filter((_, i) => kinds.has(r.primaryKinds[i] ?? '')).map((c) => `controller:${c}/`);
  if (actors.length === 0) return new Set();
  const written = new Set<string>();
  for (const w of r.writes) if (w.error === undefined && !w.noop && actors.some((a) => w.actor.startsWith(a))) written.add(`${w.kind} ${w.key}`);
  // another controller's primary objects stay compared whole: converging them is that controller's promise
  const reconciled = new Set(r.primaryKinds);
  const out = new Set<string>();
  for (const o of r.settledObjects) {
    if (reconciled.has(o.kind) || (o.metadata.ownerReferences ?? []).some((ref) => kinds.has(ref.kind))) continue;
    if (written.has(`${o.kind} ${keyOf(o.metadata)}`)) out.add(stateIdOf(o));
  }
  return out;
}

/**
 * The {@link PACED_FIELDS} entries: per object {@link pacedObjects} in the twin or a benign run,
 * present in both, each leaf on which the two end differently, with both values.
 */
export function learnPacedFields(twin: { record: RunRecord; state: State }, benign: readonly { record: RunRecord; state: State }[], kinds: ReadonlySet<string>): string[] {
  if (kinds.size === 0 || benign.length === 0) return [];
  const mine = pacedObjects(twin.record, kinds);
  const out = new Set<string>();
  for (const b of benign) {
    for (const id of new Set([...mine, ...pacedObjects(b.record, kinds)])) {
      if (!twin.state.has(id) || !b.state.has(id)) continue;
      for (const l of leafDiffs(twin.state.get(id), b.state.get(id))) {
        const at = `${id}\u0000${fmtPath(l.path)}\u0000`;
        out.add(at + side(l.expected));
        out.add(at + side(l.actual));
      }
    }
  }
  return [...out].sort();
}

/** Whether every field `d` differs in holds, on both sides, a value learned for it ({@link learnPacedFields}). */
export function acceptedPacedFields(d: StateDifference, learned: LearnedMasks | undefined): boolean {
  const entries = learned?.[PACED_FIELDS];
  if (!entries || entries.length === 0 || d.change !== 'differs' || d.leaves.length === 0) return false;
  const prefix = `${d.id}\u0000`;
  const allowed = new Set(entries.filter((e) => e.startsWith(prefix)));
  if (allowed.size === 0) return false;
  return d.leaves.every((l) => {
    const at = `${prefix}${fmtPath(l.path)}\u0000`;
    return allowed.has(at + side(l.expected)) && allowed.has(at + side(l.actual));
  });
}
