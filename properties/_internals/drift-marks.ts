import type { RunRecord } from '../../src/harness/property.js';
import type { StoredObject } from '../../src/store/object.js';
import { readDownstream, type ServiceSnapshot } from './downstream-state.js';
import { isRecord, stable } from './json.js';
import { externalStateId, stateIdOf, type Interchangeable, type StateDifference } from './normalize.js';
import { fmtPath, type Segment } from './paths.js';
import { timelineOf } from './timeline.js';

/**
 * What drift left unrepaired (same-end-state in runs where drift is the only world-changing
 * fault). Drift changes what a controller made; a level-triggered controller compares desired
 * with actual on every pass and puts it back (SPEC §3: "drift … survived by level-triggered
 * repair"). The rest of such a run is not comparable (a person's label of their own rightly
 * survives), so only the marks drift itself made are judged, against the fault-free run's end.
 * Only what the controller evidently maintains: a field it set at creation only (a generated
 * password a person may rotate, a display name) is its design to leave, and an object that ran
 * to completion (a Job, a Pod that does not restart) is not made again by a correct controller.
 * - an object a controller under test created and drift deleted, absent at the end while the
 *   fault-free run ends with it, unless it runs to completion (a Job, a Pod whose restartPolicy is
 *   Never or OnFailure);
 * - a field of such an object drift edited that still holds exactly what drift wrote while the
 *   fault-free run ends with another value, when a controller changed that field on the object
 *   after creating it (in this run or the fault-free one): it maintains the field, but from its
 *   own bookkeeping instead of from what the object holds; labels and annotations are not judged;
 * - an external resource the run created and drift deleted, absent at the end while the fault-free run has it;
 * - a top-level field of an external resource drift edited that still holds what drift wrote
 *   while the fault-free run ends with another value, when the system under test changed that
 *   field with a PUT or PATCH after creating the resource (in this run or the fault-free one): a
 *   console rename of a database it names once is not its to undo, a record's target it keeps
 *   updating is.
 * Nor is a deletion of what the configuration says is made once (`madeOnce`: kinds, and external
 * collections as `service/collection`): a point-in-time snapshot made again would hold other data.
 * A mark is not judged while its controller's periodic re-check was still to come: the last
 * reconcile of the object's owner asked to `requeueAfter` a time longer than the drift left before
 * the end (a re-check every 10 minutes repairs after the run, not never).
 * @internal
 */

/** One drift change still in place at the end. */
export interface DriftMark {
  /** When drift acted. */
  at: number;
  action: string;
  /** The state id (`ConfigMap default/web`, `downstream dns/records of <uid of Zone default/z>`). */
  id: string;
  /** What it did, in words (`deleted ConfigMap default/web`). */
  what: string;
  /** The field paths still as drift left them (empty for a deletion). */
  paths: string[];
  /** The fault-free run's and this run's values, per path (`null` for a whole absent object). */
  expected: Record<string, unknown>;
  actual: Record<string, unknown>;
}

/** Drift marks still in place, and the ones not judged because a periodic re-check was still due. */
export interface DriftJudgement {
  marks: DriftMark[];
  pending: string[];
  /** How many drift changes of objects controllers made (or of external resources) were looked at. */
  judged: number;
}

export function driftMarks(run: RunRecord, twin: RunRecord, diffs: readonly StateDifference[], aliases: ReadonlyMap<string, string>, interchangeable?: Interchangeable, madeOnce: ReadonlySet<string> = new Set()): DriftJudgement {
  const tl = timelineOf(run);
  const byUid = new Map<string, { kind: string; key: string }>();
  const createdByController = new Set<string>();
  for (const w of run.writes) {
    if (w.uid === undefined || w.error !== undefined) continue;
    if (!byUid.has(w.uid)) byUid.set(w.uid, { kind: w.kind, key: w.key });
    if (w.verb === 'create' && w.rv !== undefined && w.actor.startsWith('controller:')) createdByController.add(w.uid);
  }
  const settledByUid = new Map<string, StoredObject>();
  for (const o of run.settledObjects) settledByUid.set(o.metadata.uid, o);
  const services = readDownstream(run.downstream);
  const twinServices = readDownstream(twin.downstream);
  const diffOf = (id: string, change: StateDifference['change']): StateDifference[] => diffs.filter((d) => d.change === change && (d.id === id || d.id.startsWith(`${id} #`)));
  const out: DriftJudgement = { marks: [], pending: [], judged: 0 };
  for (const e of tl.faults) {
    if (e['kind'] !== 'drift') continue;
    const at = e.t;
    const action = typeof e['action'] === 'string' ? e['action'] : 'delete';
    if (e['external'] === true) {
      const service = String(e['service'] ?? '');
      const collection = typeof e['collection'] === 'string' ? e['collection'] : undefined;
      const rid = String(e['id'] ?? '');
      const svc = services.find((s) => s.name === service);
      if (action !== 'delete') {
        // the n-th out-of-band edit of this resource is this drift's (each drift edit changes a field)
        const mine = (f: Record<string, unknown>) => f['kind'] === 'drift' && f['external'] === true && f['action'] !== 'delete' && f['service'] === e['service'] && f['collection'] === e['collection'] && f['id'] === e['id'];
        const nth = tl.faults.slice(0, tl.faults.indexOf(e)).filter(mine).length;
        const edit = svc?.edits.filter((x) => x.via === 'out-of-band' && x.id === rid && x.collection === (collection ?? ''))[nth];
        const end = svc?.resources.find((r) => r.id === rid && (r.collection ?? '') === (collection ?? ''));
        if (!svc || !edit || !end) continue;
        const id = externalStateId(service, collection, end.body, run.settledObjects, aliases);
        out.judged++;
        if (periodicCheckDue(run, ownerKeyOf(end.body, byUid), at, out.pending, id)) continue;
        const maintained = maintainedFields(svc, twinServices.find((s) => s.name === service), collection ?? '', rid, id, twin, aliases);
        for (const d of diffOf(id, 'differs')) {
          const leaves = d.leaves.filter((l) => typeof l.path[0] === 'string' && edit.fields.includes(l.path[0]) && maintained.has(l.path[0]) && l.expected !== undefined && l.actual !== undefined && sameJson(valueAt(edit.body, l.path), l.actual));
          if (leaves.length > 0) out.marks.push(markOf(at, action, d.id, `edited the ${service} resource ${rid}${collection ? ` in ${collection}` : ''}`, leaves));
        }
        continue;
      }
      // made once for a moment's content (a point-in-time snapshot): made again, it would hold other data
      if (madeOnce.has(service) || (collection !== undefined && madeOnce.has(`${service}/${collection}`))) continue;
      const body = svc?.history.find((h) => h.op === 'remove' && h.id === rid && h.collection === collection)?.body;
      // as for stored objects (a controller's creates only): a resource the service held before the
      // run (another cluster's record) is not the controllers' to bring back (corpus record-gc, stop 35)
      if (!body || !svc!.history.some((h) => h.op === 'create' && h.id === rid && h.collection === collection)) continue;
      const id = externalStateId(service, collection, body, run.settledObjects, aliases);
      out.judged++;
      if (periodicCheckDue(run, ownerKeyOf(body, byUid), at, out.pending, id)) continue;
      for (const d of diffOf(id, 'missing')) out.marks.push({ at, action, id: d.id, what: `deleted the ${service} resource ${rid}${collection ? ` in ${collection}` : ''}`, paths: [], expected: { '': d.expected }, actual: { '': null } });
      continue;
    }
    const uid = typeof e['uid'] === 'string' ? e['uid'] : undefined;
    const kind = typeof e['objectKind'] === 'string' ? e['objectKind'] : undefined;
    const key = typeof e['key'] === 'string' ? e['key'] : undefined;
    if (uid === undefined || kind === undefined || key === undefined || !createdByController.has(uid)) continue;
    const ownerKey = controllingOwnerKey(run, uid, byUid);
    if (action === 'delete') {
      if (madeOnce.has(kind)) continue;
      const generateName = typeof e['generateName'] === 'string' ? e['generateName'] : undefined;
      const [ns, name] = key.includes('/') ? [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)] : [undefined, key];
      const id = stateIdOf({ kind, metadata: { name: name!, ...(ns !== undefined ? { namespace: ns } : {}), ...(generateName !== undefined ? { generateName } : {}) } } as unknown as StoredObject, aliases, interchangeable);
      out.judged++;
      if (periodicCheckDue(run, ownerKey, at, out.pending, id)) continue;
      for (const d of diffOf(id, 'missing')) {
        if (!runsToCompletion(d.expected)) out.marks.push({ at, action, id: d.id, what: `deleted ${kind} ${key}`, paths: [], expected: { '': d.expected }, actual: { '': null } });
      }
      continue;
    }
    const patch = e['patch'];
    const o = settledByUid.get(uid);
    if (!isRecord(patch) || !o) continue;
    const id = stateIdOf(o, aliases, interchangeable);
    out.judged++;
    if (periodicCheckDue(run, ownerKey, at, out.pending, id)) continue;
    const maintained = maintainedPaths(run, twin, kind, key, uid);
    for (const d of diffOf(id, 'differs')) {
      const leaves = d.leaves.filter((l) => l.path[0] !== 'metadata' && l.expected !== undefined && l.actual !== undefined && sameJson(valueAt(patch, l.path), l.actual) && maintained.some((m) => overlaps(m, fmtPath(l.path))));
      if (leaves.length > 0) out.marks.push(markOf(at, action, d.id, `${verbOf(action)} ${kind} ${key}`, leaves));
    }
  }
  return out;
}

/** A Job, or a Pod that does not restart: made to run once; a correct controller need not make it again. */
function runsToCompletion(v: unknown): boolean {
  if (!isRecord(v)) return false;
  if (v['kind'] === 'Job') return true;
  const spec = v['spec'];
  return v['kind'] === 'Pod' && isRecord(spec) && (spec['restartPolicy'] === 'Never' || spec['restartPolicy'] === 'OnFailure');
}

/**
 * Field paths a controller changed on the object after creating it: by uid in this run, by key in
 * the fault-free one (where the object has the same name, not the same uid).
 */
function maintainedPaths(run: RunRecord, twin: RunRecord, kind: string, key: string, uid: string): string[] {
  const out: string[] = [];
  for (const [r, mine] of [[run, (w: RunRecord['writes'][number]) => w.uid === uid], [twin, (w: RunRecord['writes'][number]) => w.kind === kind && w.key === key]] as const) {
    for (const w of r.writes) {
      if ((w.verb === 'update' || w.verb === 'patch') && w.actor.startsWith('controller:') && w.rv !== undefined && mine(w)) for (const c of w.changed) out.push(c);
    }
  }
  return out;
}

/**
 * Top-level fields of an external resource the system under test changed with PUT or PATCH after
 * creating it: of this resource in this run, of the resource with the same state id in the
 * fault-free one (ids are handed out in creation order, which faults change).
 */
function maintainedFields(svc: ServiceSnapshot, twinSvc: ServiceSnapshot | undefined, collection: string, rid: string, id: string, twin: RunRecord, aliases: ReadonlyMap<string, string>): Set<string> {
  const out = new Set<string>();
  for (const x of svc.edits) if (x.via === 'request' && x.collection === collection && x.id === rid) for (const f of x.fields) out.add(f);
  for (const x of twinSvc?.edits ?? []) {
    if (x.via !== 'request' || x.collection !== collection) continue;
    if (externalStateId(twinSvc!.name, collection || undefined, x.body, twin.settledObjects, aliases) === id.replace(/ #\d+$/, '')) for (const f of x.fields) out.add(f);
  }
  return out;
}

/** Whether one dotted path is the other or holds it (`spec.containers` and `spec.containers[0].image`). */
function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string) => x === y || (x.startsWith(y) && (x[y.length] === '.' || x[y.length] === '['));
  return inside(a, b) || inside(b, a);
}

function markOf(at: number, action: string, id: string, what: string, leaves: readonly { path: Segment[]; expected: unknown; actual: unknown }[]): DriftMark {
  const expected: Record<string, unknown> = {};
  const actual: Record<string, unknown> = {};
  for (const l of leaves) {
    expected[fmtPath(l.path)] = l.expected;
    actual[fmtPath(l.path)] = l.actual;
  }
  return { at, action, id, what, paths: Object.keys(expected), expected, actual };
}

function verbOf(action: string): string {
  switch (action) {
    case 'scale':
      return 'scaled (kubectl scale)';
    case 'image':
      return 'set the image of (kubectl set image)';
    case 'data':
      return 'edited the data of';
    default:
      return 'edited';
  }
}

/** The key of the object whose uid `uid`'s controlling owner reference names, if known. */
function controllingOwnerKey(run: RunRecord, uid: string, byUid: ReadonlyMap<string, { kind: string; key: string }>): string | undefined {
  const o = run.settledObjects.find((x) => x.metadata.uid === uid) ?? run.finalObjects.find((x) => x.metadata.uid === uid);
  const ref = o?.metadata.ownerReferences.find((r) => r.controller) ?? o?.metadata.ownerReferences[0];
  return ref ? byUid.get(ref.uid)?.key : undefined;
}

/** The key of the first object whose uid an external resource's body holds (its owner). */
function ownerKeyOf(body: unknown, byUid: ReadonlyMap<string, { kind: string; key: string }>, keys = keysOf(byUid)): string | undefined {
  // its uid, or its key (`default/alice`: services that name owners by key)
  if (typeof body === 'string') return byUid.get(body)?.key ?? (keys.has(body) ? body : undefined);
  if (Array.isArray(body)) {
    for (const x of body) {
      const k = ownerKeyOf(x, byUid, keys);
      if (k !== undefined) return k;
    }
    return undefined;
  }
  if (isRecord(body)) {
    for (const k of Object.keys(body).sort()) {
      if (k === 'id') continue;
      const found = ownerKeyOf(body[k], byUid, keys);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function keysOf(byUid: ReadonlyMap<string, { kind: string; key: string }>): Set<string> {
  const out = new Set<string>();
  for (const v of byUid.values()) out.add(v.key);
  return out;
}

/**
 * Whether the controller's periodic re-check of `ownerKey` was still to come at the end: its last
 * reconcile before the tail asked to come back after longer than drift left it. Noted in `pending`.
 */
function periodicCheckDue(run: RunRecord, ownerKey: string | undefined, at: number, pending: string[], id: string): boolean {
  if (ownerKey === undefined) return false;
  const end = run.timing.tailStart;
  let last: { end: number; requeueAfter: number | undefined; result: string | undefined } | undefined;
  for (const s of timelineOf(run).reconciles) {
    if (s.key !== ownerKey || s.end === undefined || s.end > end) continue;
    if (!last || s.end >= last.end) last = { end: s.end, requeueAfter: s.requeueAfter, result: s.result };
  }
  if (last?.result === 'requeueAfter' && last.requeueAfter !== undefined && last.requeueAfter > end - at) {
    pending.push(`${id} (its owner ${ownerKey} is re-checked every ${last.requeueAfter} ms; drift left ${end - at} ms)`);
    return true;
  }
  return false;
}

function valueAt(v: unknown, path: readonly Segment[]): unknown {
  let cur = v;
  for (const s of path) {
    if (typeof s === 'number') cur = Array.isArray(cur) ? cur[s] : undefined;
    else cur = isRecord(cur) ? cur[s] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  return stable(a) === stable(b);
}
