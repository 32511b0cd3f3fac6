import type { RunRecord } from '../../src/harness/property.js';
import type { StoredObject } from '../../src/store/object.js';
import { readDownstream, type ServiceSnapshot } from './downstream-state.js';
import { isRecord } from './json.js';
import { fmtPath } from './paths.js';
import type { StateDifference } from './normalize.js';
import { keyOfObject } from './primary.js';
import { scheduledWork } from './scheduled.js';
import { timelineOf, type Timeline, type TimelineRequest } from './timeline.js';

/** What {@link scheduledRecords} keeps and leaves out. @internal */
export interface ScheduledSplit {
  kept: StateDifference[];
  /** `<id>: <path> (<service>/<collection>)` of each leaf left out. */
  counted: string[];
}

/**
 * Recovery: a status count of work done by the clock that no revert takes back. A cron that posts
 * a report per slot to an API with no undo (a webhook receiver: every POST is a run) and reports
 * the slots fired (`status.firedRuns`) fires one more slot while its spec asks for more runs; once
 * the spec goes back, that run is posted all the same, and a truthful count says so (corpus
 * lease-cron, scratch/lease44). A high-water mark of the spec (`status.maxReplicas`) counts
 * nothing outside the cluster and stays compared.
 *
 * A leaf `status.…` of the reverted object is such a count when, for one downstream collection:
 * its value in each run equals the number of the collection's records naming the object (by uid),
 * and the run ends with more of them than the earlier end state; neither run ever deleted a record
 * of the collection (a log, not resources kept in line with the spec); in the earlier end state's
 * run the controller made such records in scheduled work (a reconcile its own `requeueAfter`
 * started, `_internals/scheduled.ts`: what it does when a time it chose comes); and there the leaf
 * moved with each record it posted (a write of the object changing it in the same reconcile:
 * after each POST, a count, or before each, a claim as the reminder fault target makes). A high-water mark of the spec was set before any record and moved with none:
 * still compared. What it may hide: a leak of external resources made by the clock one per
 * reconcile and counted in status (recovery compares no downstream resources in any case).
 * @internal
 */
export function scheduledRecords(diffs: readonly StateDifference[], run: RunRecord, before: RunRecord, kind: string, key: string): ScheduledSplit {
  if (diffs.length === 0) return { kept: [], counted: [] };
  const mineRun = objectOf(run, kind, key);
  const mineBefore = objectOf(before, kind, key);
  if (!mineRun || !mineBefore) return { kept: [...diffs], counted: [] };
  const logs = scheduledLogs(before, mineBefore.metadata.uid, key, run);
  if (logs.length === 0) return { kept: [...diffs], counted: [] };
  const tl = timelineOf(before);
  const countsRun = recordCounts(readDownstream(run.downstream), mineRun.metadata.uid);
  const countsBefore = recordCounts(readDownstream(before.downstream), mineBefore.metadata.uid);
  const kept: StateDifference[] = [];
  const counted: string[] = [];
  for (const d of diffs) {
    if (d.change !== 'differs' || !d.id.startsWith(`${kind} `) || !d.id.endsWith(` ${key}`)) {
      kept.push(d);
      continue;
    }
    const leaves = d.leaves.filter((l) => {
      if (l.path[0] !== 'status' || typeof l.expected !== 'number' || typeof l.actual !== 'number' || l.actual <= l.expected) return true;
      const path = fmtPath(l.path);
      const log = logs.find((c) => countsRun.get(c.id) === l.actual && countsBefore.get(c.id) === l.expected && movesWith(tl, c.url, kind, key, path));
      if (log === undefined) return true;
      counted.push(`${d.id}: ${path} (${log.id.replace('\u0000', '/')})`);
      return false;
    });
    if (leaves.length === d.leaves.length) kept.push(d);
    else if (leaves.length > 0) kept.push({ ...d, leaves, paths: leaves.map((l) => fmtPath(l.path)) });
  }
  return { kept, counted };
}

function objectOf(run: RunRecord, kind: string, key: string): StoredObject | undefined {
  return run.settledObjects.find((o) => o.kind === kind && keyOfObject(o) === key);
}

/** Whether a resource body names `uid` in a string field, two levels deep. */
function names(body: Record<string, unknown>, uid: string, depth = 2): boolean {
  for (const [k, v] of Object.entries(body)) {
    if (k === 'id') continue;
    if (v === uid) return true;
    if (depth > 1 && isRecord(v) && names(v, uid, depth - 1)) return true;
  }
  return false;
}

/** Per `<service>\u0000<collection>`, the records at the end naming `uid`. */
function recordCounts(services: readonly ServiceSnapshot[], uid: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of services) for (const r of s.resources) if (names(r.body, uid)) out.set(`${s.name}\u0000${r.collection ?? ''}`, (out.get(`${s.name}\u0000${r.collection ?? ''}`) ?? 0) + 1);
  return out;
}

/**
 * The collections (`<service>\u0000<collection>`) that are logs of scheduled work in `before`: no
 * record of them deleted in `before` nor in `run`, and a create of one naming `uid` made in a
 * reconcile of `key` that was scheduled work (matched by the request's URL ending in the collection).
 */
function scheduledLogs(before: RunRecord, uid: string, key: string, run: RunRecord): { id: string; url: string }[] {
  const services = readDownstream(before.downstream);
  const deleted = new Set<string>();
  for (const s of [...services, ...readDownstream(run.downstream)]) for (const c of s.history) if (c.op !== 'create') deleted.add(`${s.name}\u0000${c.collection}`);
  const candidates = new Map<string, { baseUrl: string; collection: string }>();
  for (const s of services) {
    for (const c of s.history) {
      const id = `${s.name}\u0000${c.collection}`;
      if (c.op === 'create' && !deleted.has(id) && names(c.body, uid)) candidates.set(id, { baseUrl: s.baseUrl, collection: c.collection });
    }
  }
  if (candidates.size === 0) return [];
  const tl = timelineOf(before);
  // from its first timer firing on (what came before is the world catching up: the object made, the first claim)
  const scheduled = scheduledWork(tl, 0, { catchingUp: true });
  const out: { id: string; url: string }[] = [];
  for (const [id, c] of candidates) {
    const url = `${c.baseUrl.replace(/\/$/, '')}/${c.collection}`;
    const made = posts(tl, url, key).some((q) => q.reconcile !== undefined && scheduled.has(q.reconcile));
    if (made) out.push({ id, url });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** The accepted POSTs to `url` (query left out) made in reconciles of `key` (not those of the collection's other owners). */
function posts(tl: Timeline, url: string, key: string): TimelineRequest[] {
  return tl.requests.filter((q) => q.mutating && q.method === 'POST' && q.status >= 200 && q.status < 300 && q.url.split('?')[0] === url && q.reconcile?.key === key);
}

/**
 * Whether the object's `path` moved with every record posted to `url` in `tl` (the earlier end
 * state's fault-free run): each POST made in a reconcile has its own write of the object that
 * changed the path, in that reconcile, between the POST before it and the POST after it: after
 * the POST (it posts, then counts) or before it (it claims the slot by counting, then posts: a
 * crash between the two loses a record, never doubles one). A count of the records does; a
 * high-water mark of the spec, set before any record was made and left alone by each, does not.
 */
function movesWith(tl: Timeline, url: string, kind: string, key: string, path: string): boolean {
  const made = posts(tl, url, key);
  if (made.length === 0 || made.some((q) => q.reconcile === undefined)) return false;
  const moved = (r: TimelineRequest['reconcile'], from: number, to: number) =>
    tl.writes.some((w) => w.reconcile === r && w.index > from && w.index < to && w.kind === kind && w.key === key && !w.noop && w.error === undefined && w.changed.includes(path));
  // per reconcile, one orientation for all its POSTs: each followed by its count, or each preceded by its claim
  for (const r of new Set(made.map((q) => q.reconcile))) {
    const idx = made.filter((q) => q.reconcile === r).map((q) => q.index);
    const counted = idx.every((at, i) => moved(r, at, idx[i + 1] ?? Infinity));
    const claimed = idx.every((at, i) => moved(r, idx[i - 1] ?? -Infinity, at));
    if (!counted && !claimed) return false;
  }
  return true;
}
