import type { RunRecord } from '../../src/harness/property.js';
import { fmtDuration, fmtObject, fmtPaths, fmtTime } from '../../src/report/explain.js';
import type { ReconcileSpan, Timeline, TimelineWrite } from './timeline.js';

/**
 * Why a reconcile ran, traced back through the run: the write whose watch event enqueued it, or
 * the earlier reconcile that asked to be requeued. Chaining these from a write gives the
 * self-triggering loop of a hot loop: write → watch event → reconcile → write.
 * @internal
 */

/** One link: what triggered a reconcile. */
export type Trigger =
  | { type: 'event'; event: string; kind: string; key: string; rv: number | undefined; t: number; write: TimelineWrite | undefined }
  | { type: 'requeue'; after: ReconcileSpan }
  | { type: 'resync'; t: number }
  | { type: 'unknown' };

/** What enqueued the key this reconcile processes. */
export function triggerOf(run: RunRecord, tl: Timeline, r: ReconcileSpan): Trigger {
  const trace = run.trace;
  // the previous reconcile of the same key by the same replica bounds the search
  let prev: ReconcileSpan | undefined;
  for (const x of tl.reconciles) {
    if (x === r) break;
    if (x.actor === r.actor && x.key === r.key) prev = x;
  }
  const from = prev ? prev.startIndex : 0;
  for (let i = r.startIndex - 1; i > from; i--) {
    const e = trace[i]!;
    if (e.type !== 'informer:notify' || e['decision'] !== 'deliver' || e['key'] !== r.key || e['controller'] !== r.controller || e['replica'] !== r.replica) continue;
    if (e['event'] === 'SYNC') return { type: 'resync', t: e.t };
    for (let j = i - 1; j >= 0 && trace[j]!.t === e.t; j--) {
      const w = trace[j]!;
      if (w.type === 'watch:event' && w['controller'] === r.controller && w['replica'] === r.replica && w['kind'] === e['kind']) {
        const rv = typeof w['rv'] === 'number' ? w['rv'] : undefined;
        const write = rv === undefined ? undefined : tl.writes.find((x) => x.rv === rv && x.kind === e['kind']);
        return { type: 'event', event: String(w['event']), kind: String(w['kind']), key: String(w['key']), rv, t: w.t, write };
      }
    }
    return { type: 'event', event: String(e['event']), kind: String(e['kind']), key: r.key, rv: undefined, t: e.t, write: undefined };
  }
  if (prev && (prev.result === 'requeue' || prev.result === 'requeueAfter' || prev.result === 'error')) return { type: 'requeue', after: prev };
  return { type: 'unknown' };
}

/** Links of a chain, oldest first, ending with `w`. */
export interface ChainLink {
  write: TimelineWrite;
  trigger: Trigger;
}

/** Follows a controller write back through up to `depth` triggers. */
export function chainOf(run: RunRecord, tl: Timeline, w: TimelineWrite, depth = 2): ChainLink[] {
  const out: ChainLink[] = [];
  let cur: TimelineWrite | undefined = w;
  const seen = new Set<TimelineWrite>();
  while (cur && cur.reconcile && out.length < depth && !seen.has(cur)) {
    seen.add(cur);
    const trigger = triggerOf(run, tl, cur.reconcile);
    out.unshift({ write: cur, trigger });
    cur = trigger.type === 'event' ? trigger.write : trigger.type === 'requeue' ? lastWriteIn(tl, trigger.after) : undefined;
    if (cur && !cur.actor.startsWith('controller:')) break;
  }
  return out;
}

function lastWriteIn(tl: Timeline, r: ReconcileSpan): TimelineWrite | undefined {
  let last: TimelineWrite | undefined;
  for (const w of tl.writes) if (w.reconcile === r) last = w;
  return last;
}

function fmtStep(w: TimelineWrite): string {
  if (w.error !== undefined) return `${w.verb} ${fmtObject(w.kind, w.key)} at ${fmtTime(w.t)} (refused: ${w.error})`;
  return `${w.verb} ${fmtObject(w.kind, w.key)} at ${fmtTime(w.t)} (changed ${fmtPaths(w.changed)}${w.rv !== undefined ? `, rv ${w.rv}` : ''})`;
}

/**
 * The chain in words: `updateStatus Widget default/a at t=20.0 s (changed status.lastSync, rv 41)
 * → MODIFIED event of default/a → reconcile of default/a at t=20.0 s → updateStatus … `.
 */
export function fmtChain(links: readonly ChainLink[]): string {
  const parts: string[] = [];
  for (const l of links) {
    const r = l.write.reconcile!;
    if (parts.length === 0) {
      if (l.trigger.type === 'event' && l.trigger.write) parts.push(fmtStep(l.trigger.write));
      else if (l.trigger.type === 'requeue') parts.push(`reconcile of ${l.trigger.after.key} ended at ${fmtTime(l.trigger.after.end ?? l.trigger.after.start)} asking to requeue${l.trigger.after.requeueAfter !== undefined ? ` after ${fmtDuration(l.trigger.after.requeueAfter)}` : ''}`);
      else if (l.trigger.type === 'resync') parts.push(`resync at ${fmtTime(l.trigger.t)}`);
    }
    if (l.trigger.type === 'event') parts.push(`${l.trigger.event} event of ${fmtObject(l.trigger.kind, l.trigger.key)}`);
    else if (l.trigger.type === 'requeue' && parts.length > 1) parts.push(`requeue${l.trigger.after.requeueAfter !== undefined ? ` after ${fmtDuration(l.trigger.after.requeueAfter)}` : ''}`);
    parts.push(`reconcile of ${r.key} at ${fmtTime(r.start)}`);
    parts.push(fmtStep(l.write));
  }
  return parts.join(' → ');
}

/** Whether the chain loops on itself: its first write's trigger came from a controller write of the same object and fields. */
export function selfTriggering(links: readonly ChainLink[]): boolean {
  return links.some((l) => (l.trigger.type === 'event' && l.trigger.write?.actor.startsWith('controller:')) || l.trigger.type === 'requeue');
}

/**
 * The controller write an environment actor's write answers, following its chain of causes (the
 * `environment:sync` that made it, the writes whose events started that sync, theirs in turn,
 * through other environment actors), with the environment's writes on the way (oldest first). Undefined when the chain reaches no controller write within `limit` steps (the
 * environment moving on its own: a timer of its own, the settle, a fault).
 */
export function answeredWrite(tl: Timeline, w: TimelineWrite, limit = 200): { write: TimelineWrite; through: TimelineWrite[] } | undefined {
  if (!w.actor.startsWith('environment:')) return undefined;
  const byRv = new Map<number, TimelineWrite>();
  for (const x of tl.writes) if (x.rv !== undefined) byRv.set(x.rv, x);
  const parent = new Map<TimelineWrite, TimelineWrite>();
  const queue = [w];
  for (let i = 0; i < queue.length && i < limit; i++) {
    const x = queue[i]!;
    for (const rv of x.envCause?.events ?? []) {
      const y = byRv.get(rv);
      if (y === undefined || parent.has(y) || y === w) continue;
      parent.set(y, x);
      if (y.actor.startsWith('controller:')) {
        const through: TimelineWrite[] = [];
        for (let p = parent.get(y); p !== undefined && p !== w; p = parent.get(p)) through.push(p);
        return { write: y, through };
      }
      if (y.actor.startsWith('environment:')) queue.push(y);
    }
  }
  return undefined;
}
