import { fmtDuration, fmtObject, fmtTime, fmtWrite } from '../../src/report/explain.js';
import type { RunRecord } from '../../src/harness/property.js';
import { lastReconcile, lastWrite, type ProgramRequest, type ReconcileSpan, type Timeline } from './timeline.js';

/**
 * "What the controller last did" phrases, shared by the liveness properties (SPEC §5: when
 * convergence or deletion does not hold, say what the controller last did).
 * @internal
 */

/** A reconcile in words: `reconcile of default/web by web/0 at t=1.0 s (error: Conflict …)`. */
export function fmtReconcile(r: ReconcileSpan): string {
  let outcome: string;
  if (r.result === undefined) outcome = 'still running at the end of the run';
  else if (r.result === 'error') outcome = `failed: ${r.error ?? 'error'}`;
  else if (r.result === 'requeueAfter') outcome = `asked to requeue after ${fmtDuration(r.requeueAfter ?? 0)}`;
  else if (r.result === 'requeue') outcome = 'asked to requeue';
  else if (r.result === 'crashed') outcome = 'cut short by a crash';
  else if (r.result === 'stopped') outcome = 'cut short when its replica was stopped';
  else outcome = 'done';
  const took = r.end !== undefined && r.end > r.start ? `, took ${fmtDuration(r.end - r.start)}` : '';
  return `reconcile of ${r.key} by ${r.controller}/${r.replica} at ${fmtTime(r.start)} (${outcome}${took})`;
}

/** Evidence for one reconcile (plain JSON). */
export function reconcileEvidence(r: ReconcileSpan): { [k: string]: string | number | null } {
  return { controller: r.controller, replica: r.replica, key: r.key, n: r.n, start: r.start, end: r.end ?? null, result: r.result ?? null, error: r.error ?? null };
}

/**
 * What the controllers last did about one object before `before`: the last reconcile of its key
 * and the last controller write to it.
 */
export function lastActions(tl: Timeline, kind: string, key: string, before = Infinity, run?: RunRecord): string {
  if (tl.reconciles.length === 0 && tl.programRequests.length > 0) return programActions(tl, kind, key, before);
  const r = lastReconcile(tl, key, before);
  const w = lastWrite(tl, kind, key, before);
  const parts: string[] = [];
  // an owned object is written by the reconcile of its owner's key: say so instead of "never reconciled"
  if (r) parts.push(`the last ${fmtReconcile(r)}${backoff(r, before)}`);
  else if (!w?.reconcile) parts.push(`no controller ever reconciled ${key}${run ? lostForGood(run, kind, key, before) : ''}`);
  parts.push(w ? `the last controller write to it was ${fmtWrite(w)}${!r && w.reconcile ? `, in the ${fmtReconcile(w.reconcile)}` : ''}` : `no controller ever wrote ${fmtObject(kind, key)}`);
  return parts.join(', and ');
}

/**
 * A failed last reconcile whose retry the rate-limited queue put off past `before`: the key waits on
 * its own backoff (client-go's default doubles per consecutive failure, 5 ms up to 1000 s), which an
 * event would cut short but a predicate that drops resyncs does not.
 */
function backoff(r: ReconcileSpan, before: number): string {
  if (r.result !== 'error' || r.retryInMs === undefined || r.end === undefined) return '';
  const at = r.end + r.retryInMs;
  if (at < before || r.retryInMs < 1000) return '';
  return `; the rate-limited queue put its retry off ${fmtDuration(r.retryInMs)}, to ${fmtTime(at)} (per-item exponential backoff grows with each consecutive failure: cap it, e.g. rateLimiter.maxDelayMs, or let an event or resync bring the key back)`;
}

/**
 * Why a dropped notification was never repaired, when the controller's GenerationChanged predicate
 * is the reason: it also drops the resyncs that repair one (controller-runtime's does the same).
 */
function lostForGood(run: RunRecord, kind: string, key: string, before: number): string {
  const filtering = new Set((run.resyncFilteredBy ?? []).filter((c) => run.primaryKinds[run.controllers.indexOf(c)] === kind));
  if (filtering.size === 0) return '';
  // whichever fault dropped it (event-loss itself spares these: client-go never loses a notification)
  const drop = run.trace.find((e) => e.t < before && e.type === 'informer:notify' && e['decision'] === 'drop' && e['kind'] === kind && e['key'] === key && filtering.has(String(e['controller'])));
  if (!drop) return '';
  const c = String(drop['controller']);
  return ` (its ${String(drop['event'])} notification to ${c} at ${fmtTime(drop.t)} was dropped, and ${c}'s GenerationChanged predicate also drops the resyncs that would have repaired it, as controller-runtime's GenerationChangedPredicate does: only a new generation or a restart brings the key back; let resyncs through, or requeue periodically)`;
}

/** The path segments naming an object: `…/namespaces/<ns>/<plural>/<name>` or, cluster-scoped, `…/<plural>/<name>`. */
function aboutObject(path: string, key: string): boolean {
  const [ns, name] = key.includes('/') ? key.split('/', 2) as [string, string] : [undefined, key];
  const p = path.split('?', 1)[0]!;
  const at = p.split('/');
  const i = at.lastIndexOf(name);
  if (i < 0 || (i !== at.length - 1 && !(i === at.length - 2 && at[i + 1] === 'status'))) return false;
  return ns === undefined ? !at.includes('namespaces') : at[at.indexOf('namespaces') + 1] === ns;
}

/**
 * For hosted programs (no reconciles to speak of): the last request a program made about the
 * object, and the last write a program made to it.
 */
function programActions(tl: Timeline, kind: string, key: string, before: number): string {
  let req: ProgramRequest | undefined;
  for (let i = tl.programRequests.length - 1; i >= 0 && !req; i--) {
    const r = tl.programRequests[i]!;
    if (r.t < before && !r.watch && aboutObject(r.path, key)) req = r;
  }
  const w = lastWrite(tl, kind, key, before);
  const parts = [req ? `the last request about it was ${req.method} ${req.path} by the program ${req.controller}/${req.replica} at ${fmtTime(req.t)} (answered ${req.status})` : `no program ever sent a request naming ${fmtObject(kind, key)}`];
  parts.push(w ? `the last program write to it was ${fmtWrite(w)}` : `no program ever wrote ${fmtObject(kind, key)}`);
  return parts.join(', and ');
}
