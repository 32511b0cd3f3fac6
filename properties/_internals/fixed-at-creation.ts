import type { RunRecord } from '../../src/harness/property.js';
import { immutabilityErrors } from '../../src/store/immutability.js';
import type { StoredObject } from '../../src/store/object.js';
import { at, isRecord } from './json.js';
import { stateIdOf, uidAliases, type StateDifference } from './normalize.js';
import type { Segment } from './paths.js';
import { keyOfObject } from './primary.js';
import { timelineOf } from './timeline.js';

/** When an object was created (its create in the trace), and its controlling owner's uid. */
export function creationOf(run: RunRecord, o: StoredObject): { t: number; index: number; ownerUid: string } | undefined {
  const ownerUid = o.metadata.ownerReferences.find((r) => r.controller)?.uid ?? claimSetOf(run, o)?.metadata.uid;
  const created = ownerUid !== undefined ? timelineOf(run).writes.find((w) => w.verb === 'create' && w.uid === o.metadata.uid && w.error === undefined) : undefined;
  return ownerUid !== undefined && created ? { t: created.t, index: created.index, ownerUid } : undefined;
}

/** The StatefulSet whose claim template made this claim (`<template>-<set>-<ordinal>`; it retains claims without owning them). */
function claimSetOf(run: RunRecord, o: StoredObject): StoredObject | undefined {
  if (o.kind !== 'PersistentVolumeClaim') return undefined;
  return run.settledObjects.find((s) => {
    if (s.kind !== 'StatefulSet' || s.metadata.namespace !== o.metadata.namespace) return false;
    const templates = Array.isArray(s.spec['volumeClaimTemplates']) ? (s.spec['volumeClaimTemplates'] as { metadata?: { name?: string } }[]) : [];
    return templates.some((t) => {
      const prefix = `${t.metadata?.name ?? ''}-${s.metadata.name}-`;
      return o.metadata.name.startsWith(prefix) && /^\d+$/.test(o.metadata.name.slice(prefix.length));
    });
  });
}

/**
 * Which declaration of its controlling owner an object was created under: the number of spec
 * versions the owner had had (its create and every accepted write that changed its spec) when
 * the object was created, and the same for the owner's own owner (a Pod of a Job of a schedule).
 * Undefined for an object with no controlling owner, or whose create is not in the trace.
 */
export function declaredVersion(run: RunRecord, o: StoredObject, depth = 0): string | undefined {
  if (depth > 8) return undefined;
  // a claim is made from its set's claim templates, which are fixed when the set is made
  if (!o.metadata.ownerReferences.some((r) => r.controller)) {
    const set = claimSetOf(run, o);
    return set ? declaredVersion(run, set, depth + 1) : undefined;
  }
  const c = creationOf(run, o);
  if (!c) return undefined;
  let versions = 0;
  for (const w of timelineOf(run).writes) {
    if (w.index > c.index) break;
    if (w.uid !== c.ownerUid || w.noop || w.error !== undefined) continue;
    if (w.verb === 'create' || w.changed.some((x) => x === 'spec' || x.startsWith('spec.'))) versions++;
  }
  if (versions === 0) return undefined;
  // a Pod its Job made is fixed by the declaration the Job was made under, too
  const owner = run.settledObjects.find((x) => x.metadata.uid === c.ownerUid);
  const above = owner ? declaredVersion(run, owner, depth + 1) : undefined;
  return above === undefined ? String(versions) : `${above}/${versions}`;
}

/** Which declaration of its owner an object was created under, per run (undefined: unknown, compared as usual). */
export type Declaration = (run: RunRecord, o: StoredObject) => string | undefined;

/** `o` with the value at `path` replaced (a copy along the path only). */
function withValue(o: unknown, path: readonly Segment[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (typeof head === 'number' && Array.isArray(o)) {
    const copy = [...o];
    copy[head] = withValue(o[head], rest, value);
    return copy;
  }
  if (typeof head === 'string' && isRecord(o)) return { ...o, [head]: withValue(o[head], rest, value) };
  return o;
}

/** Whether kube-apiserver would refuse to change this one leaf from one run's value to the other's, in either direction. */
function immutableLeaf(o: StoredObject, other: StoredObject, path: readonly Segment[]): boolean {
  const mine = at(o, path.map(String));
  const theirs = at(other, path.map(String));
  if (mine === undefined || theirs === undefined) return false;
  // either way: a claim's storage may grow, never shrink
  return immutabilityErrors(o, withValue(o, path, theirs) as StoredObject, undefined).length > 0 || immutabilityErrors(other, withValue(other, path, mine) as StoredObject, undefined).length > 0;
}

/**
 * Differences in fields the API server never lets change (a Job's pod template, a StatefulSet's
 * claim templates), of objects the two runs created under different declarations of their
 * owner (a Job made before the user changed the schedule's spec in one run, after it in the
 * other, because the controller saw the object later): the value was fixed by when the object
 * was created, and no controller can change it since. Those leaves are left out, and so is the
 * status of such an object and of its owner where only status is left differing (a claim's
 * capacity; a "recreate the Broker to change its storage" condition), and what such an object
 * made from the template it can never change (the Pods of a Job made while a schedule's spec was
 * away: no controller updates a Pod its Job made); the rest is kept.
 */
export function fixedAtCreation(diffs: readonly StateDifference[], run: RunRecord, twin: RunRecord, declared: { run: Declaration; twin: Declaration } = { run: declaredVersion, twin: declaredVersion }): { kept: StateDifference[]; left: string[] } {
  const kept: StateDifference[] = [];
  const left: string[] = [];
  const aliases = new Map([run, twin].map((r) => [r, uidAliases(r.writes)] as const));
  for (const d of diffs) {
    // the object each side has under that id (one only: siblings of a generated name are not told apart)
    const find = (r: RunRecord) => {
      if (d.change !== 'differs') return undefined;
      const found = r.settledObjects.filter((o) => stateIdOf(o, aliases.get(r)) === d.id);
      return found.length === 1 ? found[0] : undefined;
    };
    const [a, b] = [find(run), find(twin)];
    const da = a && declared.run(run, a);
    const db = b && declared.twin(twin, b);
    if (!a || !b || da === undefined || db === undefined || da === db) {
      kept.push(d);
      continue;
    }
    const leaves = d.leaves.filter((l) => !immutableLeaf(b, a, l.path));
    for (const l of d.leaves) if (!leaves.includes(l)) left.push(`${d.id}: ${d.paths[d.leaves.indexOf(l)]!}`);
    if (leaves.length > 0) kept.push({ ...d, leaves, paths: leaves.map((l) => d.paths[d.leaves.indexOf(l)]!) });
  }
  if (left.length === 0) return { kept, left };
  // an owner's status that reports on such a child (a "storage change pending" condition) differs for the same reason
  const fixedIds = new Set(left.map((l) => l.slice(0, l.indexOf(': '))));
  const reportsOn = new Set<string>();
  for (const o of run.settledObjects) {
    if (!fixedIds.has(stateIdOf(o, aliases.get(run)))) continue;
    reportsOn.add(stateIdOf(o, aliases.get(run))); // its own status (a claim's capacity) follows its spec
    const ownerUid = o.metadata.ownerReferences.find((r) => r.controller)?.uid;
    const owner = ownerUid === undefined ? undefined : run.settledObjects.find((x) => x.metadata.uid === ownerUid);
    if (owner) reportsOn.add(stateIdOf(owner, aliases.get(run)));
  }
  // what such an object made from the template it can never change (a Job's Pods, which no controller updates) is fixed
  // by it too: its spec, the labels and annotations it copied and the status that reports on them
  const templated = new Set<string>();
  const fixedTemplate = new Set(left.filter((l) => l.includes(': spec.template.')).map((l) => l.slice(0, l.indexOf(': '))));
  for (const r of [run, twin]) {
    for (const o of r.settledObjects) {
      const ownerUid = o.metadata.ownerReferences.find((x) => x.controller)?.uid;
      const owner = ownerUid === undefined ? undefined : r.settledObjects.find((x) => x.metadata.uid === ownerUid);
      if (owner && fixedTemplate.has(stateIdOf(owner, aliases.get(r)))) templated.add(stateIdOf(o, aliases.get(r)));
    }
  }
  const fromTemplate = (p: string) => p.startsWith('spec.') || p.startsWith('status.') || p.startsWith('metadata.labels') || p.startsWith('metadata.annotations');
  const out: StateDifference[] = [];
  for (const d of kept) {
    const statusOnly = reportsOn.has(d.id) && d.paths.every((p) => p.startsWith('status.'));
    if (d.change !== 'differs' || !(statusOnly || (templated.has(d.id) && d.paths.every(fromTemplate)))) {
      out.push(d);
      continue;
    }
    for (const p of d.paths) left.push(`${d.id}: ${p}`);
  }
  return { kept: out, left };
}

/**
 * For recovery: whether an object (or an owner above it, up to the object `kind`/`key`) was made
 * while that object's spec was away (in [awayAt, backAt)): 'away', else 'home'; undefined for
 * objects that object does not own. `home` judges every object as made under the usual spec (the
 * earlier run, which never left it).
 */
export function madeWhileAway(r: { kind: string; key: string; awayAt: number; backAt: number }, home = false): Declaration {
  return (run, o) => {
    let away = false;
    let cur: StoredObject | undefined = o;
    for (let depth = 0; cur && depth < 8; depth++) {
      const c = creationOf(run, cur);
      if (!c) return undefined;
      if (c.t >= r.awayAt && c.t < r.backAt) away = true;
      const owner = run.settledObjects.find((x) => x.metadata.uid === c.ownerUid);
      if (owner && owner.kind === r.kind && keyOfObject(owner) === r.key) return home ? 'home' : away ? 'away' : 'home';
      cur = owner;
    }
    return undefined;
  };
}
