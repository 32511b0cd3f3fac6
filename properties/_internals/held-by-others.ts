import type { RunRecord } from '../../src/harness/property.js';
import type { StoredObject } from '../../src/store/object.js';
import { uidAliases, type StateDifference } from './normalize.js';
import { fmtPath } from './paths.js';
import { keyOfObject } from './primary.js';

/**
 * Recovery's differences that are grants another object still holds (session 7): an allocator
 * keeps what is in use when its pool shrinks (a reservation naming a claim, an address object
 * whose claimRef is that claim), as a PersistentVolume stays bound while its claim lives. A
 * revert of the pool's size cannot take those back, so what the pool holds after the revert
 * depends on which consumers came while it was bigger: history, not a leak. A difference is
 * such a grant when what the run has there (an extra object of the subtree, or a leaf the
 * earlier end state does not have the same) names, by uid, an object outside the reverted
 * object's subtree that both runs end with (a consumer the workload made in both, and that still
 * asks), and the earlier end state's value there does not name it.
 *
 * What stays compared: leftovers naming nobody outside (the pods of a scale-down that never
 * happened, a high-water mark, a count), leaves that name a consumer gone in either run (a
 * reservation leaked after its claim was deleted), and anything missing after the revert.
 * @internal
 */
export interface HeldSplit {
  kept: StateDifference[];
  /** `id` or `id: path`, and who holds it. */
  held: string[];
}

/** The uid references (normalized and raw) of the objects outside `subtree` that `run` and `before` both end with, to their `Kind key`. */
function consumers(run: RunRecord, before: RunRecord, subtree: ReadonlySet<string>): Map<string, string> {
  const live = (o: StoredObject) => o.metadata.deletionTimestamp === undefined;
  const inBefore = new Set(before.settledObjects.filter(live).map((o) => `${o.kind} ${keyOfObject(o)}`));
  const aliases = uidAliases(run.writes);
  const out = new Map<string, string>();
  for (const o of run.settledObjects) {
    const id = `${o.kind} ${keyOfObject(o)}`;
    if (!live(o) || subtree.has(id) || !inBefore.has(id) || o.kind === 'Lease') continue;
    out.set(aliases.get(o.metadata.uid) ?? `<uid of ${id}>`, id);
    out.set(o.metadata.uid, id);
  }
  return out;
}

/** The consumers `v` names (strings equal to one of their uid references, at any depth). */
function named(v: unknown, refs: ReadonlyMap<string, string>, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') {
    const id = refs.get(v);
    if (id !== undefined) out.add(id);
  } else if (Array.isArray(v)) for (const x of v) named(x, refs, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) named(x, refs, out);
  return out;
}

/** The holders `actual` names that `expected` does not. */
function newHolders(expected: unknown, actual: unknown, refs: ReadonlyMap<string, string>): string[] {
  if (actual === undefined || actual === null) return [];
  const before = named(expected, refs);
  return [...named(actual, refs)].filter((id) => !before.has(id));
}

/**
 * Splits recovery's differences into those still compared and the grants held by consumers both
 * runs have. `subtree` holds the `Kind key` of the reverted object and what it owns, in either run.
 */
export function heldByOthers(diffs: readonly StateDifference[], run: RunRecord, before: RunRecord, subtree: ReadonlySet<string>): HeldSplit {
  if (diffs.length === 0) return { kept: [], held: [] };
  const refs = consumers(run, before, subtree);
  if (refs.size === 0) return { kept: [...diffs], held: [] };
  const kept: StateDifference[] = [];
  const held: string[] = [];
  for (const d of diffs) {
    if (d.change === 'extra') {
      const by = newHolders(undefined, d.actual, refs);
      if (by.length > 0) held.push(`${d.id} (held by ${by.join(', ')})`);
      else kept.push(d);
      continue;
    }
    if (d.change === 'missing') {
      kept.push(d);
      continue;
    }
    const leaves = d.leaves.filter((l) => {
      const by = newHolders(l.expected, l.actual, refs);
      if (by.length === 0) return true;
      held.push(`${d.id}: ${fmtPath(l.path)} (held by ${by.join(', ')})`);
      return false;
    });
    if (leaves.length === d.leaves.length) kept.push(d);
    else if (leaves.length > 0) kept.push({ ...d, leaves, paths: leaves.map((l) => fmtPath(l.path)) });
  }
  return { kept, held };
}
