import type { ProgramSpan, ReactionSpan, ReconcileSpan, Timeline, TimelineWrite } from './timeline.js';
import { runtimeElectionLease, type ElectionScan } from './election.js';

/**
 * Scheduled work (idempotence, no-hot-loop): what a controller does because a time it chose
 * came, not because the world changed under it. A CronJob-like controller sleeps until the next
 * slot (`requeueAfter`) and then creates that slot's Job: on an unchanged world that is its
 * purpose, not a missing fixed point.
 *
 * A reconcile is started by the controller's own timer when the previous reconcile of the key by
 * the same process asked to `requeueAfter` and it started exactly then (or that timer had come
 * due by its end: see `dueBy`), or when an earlier reconcile's timer, still queued, fired then
 * (see `QueuedTimers`). It is scheduled work when
 * the world was at a fixed point before it: every reconcile of that key by that process since
 * `from` (the tail's extra reconciles) changed nothing; and when it is not a poll loop: the
 * previous scheduled change of the key was at least {@link MIN_SCHEDULE_MS} earlier. Once such a
 * reconcile changed something, the reconciles of that key that follow (the events of its own
 * writes, the Job the environment runs, an old Job deleted) are its consequences, except one an
 * event of a consequence's own write started: a reconcile that feeds itself is a hot loop
 * whatever began it, unless the environment moved too (its write is among the events the one
 * reconcile answers). The environment moving on its own (a Job the controller created earlier
 * finishing) starts such consequences too: the world changed, no re-reconcile of an unchanged one;
 * the environment only answering the loop's own writes does not (a Pod Ready on the kubelet's
 * timer after the controller's write scaled its ReplicaSet up: see `environmentAnswers` and
 * `feedsThroughEnvironment`).
 * A hosted program has no reconciles: its writes made answering watch events (a `ReactionSpan`,
 * known from the events its handler answers) are consequences by the same rule, when an event
 * they answer is of a write of scheduled work, of a consequence, or of the environment, and not of
 * a consequence's write to an object they change again (a loop feeding itself).
 * @internal
 */

/** The shortest time between two scheduled changes of one key (less is a poll loop). */
export const MIN_SCHEDULE_MS = 1000;

/** Per timeline and start, the scheduled work found (idempotence and no-hot-loop both ask from the tail's start). */
const cache = new WeakMap<Timeline, Map<number, ReadonlySet<ScheduledSpan>>>();

/** What can be scheduled work: a reconcile, a firing of a program's schedule, a program's answer to events. */
export type ScheduledSpan = ReconcileSpan | ProgramSpan | ReactionSpan;

/**
 * The reconciles and program schedule firings (from `from` on) that are scheduled work or its
 * consequences (found once per timeline and start). `catchingUp` (convergence, from the settle
 * phase's start): a key's changes before its first timer firing are the world catching up, not a
 * missing fixed point, and its schedule counts from that firing (a ServiceAccount first seen at the
 * settle start's relist, rotating every 2 s: hunt of service-account-tokens, stop 38).
 */
export function scheduledWork(tl: Timeline, from: number, options: { catchingUp?: boolean; election?: ElectionScan } = {}): ReadonlySet<ScheduledSpan> {
  let byFrom = cache.get(tl);
  if (!byFrom) cache.set(tl, (byFrom = new Map()));
  // the cache key: the start, negated when catching up (starts are ≥ 0)
  const key = options.catchingUp ? -from - 1 : from;
  let found = byFrom.get(key);
  if (!found) {
    const all: Set<ScheduledSpan> = findScheduledWork(tl, from, options.catchingUp === true, options.election);
    if (tl.programSpans.length > 0 || tl.reactionSpans.length > 0) {
      const firings = findScheduledFirings(tl, from);
      for (const s of firings) all.add(s);
      for (const s of findConsequentReactions(tl, from, firings)) all.add(s);
    }
    byFrom.set(key, (found = all));
  }
  return found;
}

/** Whether scheduled work made a write (or a downstream call): its reconcile, program firing or program reaction is in `scheduled`. */
export function byScheduledWork(x: { reconcile: ReconcileSpan | undefined; program?: ProgramSpan | undefined; reaction?: ReactionSpan | undefined }, scheduled: ReadonlySet<ScheduledSpan>): boolean {
  return (x.reconcile !== undefined && scheduled.has(x.reconcile)) || (x.program !== undefined && scheduled.has(x.program)) || (x.reaction !== undefined && scheduled.has(x.reaction));
}

/**
 * The programs' answers to events (from `from` on) that are consequences of scheduled work or of
 * the environment (see above). Each consequence continues the chain of the write it answers (a
 * chain begins at a write of scheduled work or of the environment), and a chain changes each
 * object once: an answer that changes again an object its chain already changed feeds itself,
 * however many objects the loop goes through.
 */
function findConsequentReactions(tl: Timeline, from: number, firings: ReadonlySet<ProgramSpan>): Set<ReactionSpan> {
  const out = new Set<ReactionSpan>();
  if (tl.reactionSpans.length === 0) return out;
  // each resourceVersion's write; the objects each reaction changed
  const byRv = new Map<number, (typeof tl.writes)[number]>();
  const changes = new Map<ReactionSpan, Set<string>>();
  for (const w of tl.writes) {
    if (w.rv !== undefined) byRv.set(w.rv, w);
    if (!w.reaction || w.noop || w.error !== undefined) continue;
    const set = changes.get(w.reaction);
    if (set) set.add(`${w.kind} ${w.key}`);
    else changes.set(w.reaction, new Set([`${w.kind} ${w.key}`]));
  }
  /** Per consequence, its chain: the objects the chain's consequences changed. */
  const chainOf = new Map<ReactionSpan, Set<string>>();
  for (const span of tl.reactionSpans) {
    if (span.start < from) continue;
    const mine = changes.get(span) ?? new Set<string>();
    let chain: Set<string> | undefined;
    for (const rv of span.answers) {
      const w = byRv.get(rv);
      if (w === undefined || w.t < from) continue;
      // a write of the environment or of scheduled work begins a chain; a consequence's continues its own
      const begins = w.actor.startsWith('environment:') || (w.program !== undefined && firings.has(w.program));
      const continues = w.reaction !== undefined ? chainOf.get(w.reaction) : undefined;
      const candidate = begins ? new Set<string>() : continues;
      if (candidate === undefined) continue;
      if ([...mine].some((o) => candidate.has(o))) continue;
      chain = candidate;
      if (begins) break;
    }
    if (chain === undefined) continue;
    chainOf.set(span, new Set([...chain, ...mine]));
    out.add(span);
  }
  return out;
}

/** The firings of programs' schedules (from `from` on) that are scheduled work: no poll loop (see above). */
function findScheduledFirings(tl: Timeline, from: number): Set<ProgramSpan> {
  const changes = new Map<ProgramSpan, Set<string>>();
  // a firing whose write was refused retries it on a timer: a retry loop, not a schedule
  const refused = new Set<ProgramSpan>();
  for (const w of tl.writes) {
    if (w.program && w.error !== undefined) refused.add(w.program);
    if (!w.program || w.noop || w.error !== undefined) continue;
    const set = changes.get(w.program);
    if (set) set.add(`${w.kind} ${w.key}`);
    else changes.set(w.program, new Set([`${w.kind} ${w.key}`]));
  }
  const spans = tl.programSpans.filter((s) => s.start >= from).sort((a, b) => a.start - b.start);
  const lastChange = new Map<string, number>();
  const polled = new Set<string>();
  const out = new Set<ProgramSpan>();
  for (const span of spans) {
    let scheduled = !refused.has(span);
    for (const object of changes.get(span) ?? []) {
      const k = `${span.actor}\u0000${object}`;
      if (polled.has(k) || span.start - (lastChange.get(k) ?? -Infinity) < MIN_SCHEDULE_MS) {
        polled.add(k);
        scheduled = false;
      }
      lastChange.set(k, span.start);
    }
    if (scheduled) out.add(span);
  }
  return out;
}

function findScheduledWork(tl: Timeline, from: number, catchingUp: boolean, election: ElectionScan | undefined): Set<ReconcileSpan> {
  // what each reconcile changed (objects; a mutating downstream call counts as a change too)
  const changing = new Map<ReconcileSpan, Set<string>>();
  const change = (span: ReconcileSpan, what: string) => {
    const set = changing.get(span);
    if (set) set.add(what);
    else changing.set(span, new Set([what]));
  };
  // not Lease renewals at an elector's pace (election.ts): the runtime's lands in whichever reconcile of the process is running
  // (idempotence and no-hot-loop leave them out too); without the run's scan (a hand-made timeline), the runtime's election Lease
  const electing = (w: (typeof tl.writes)[number]) => w.kind === 'Lease' && (election ? election.has(w.index) : w.key === runtimeElectionLease(w.actor));
  for (const w of tl.writes) if (w.reconcile && !w.noop && !w.error && !electing(w)) change(w.reconcile, `${w.kind} ${w.key}`);
  for (const r of tl.requests) if (r.reconcile && r.mutating) change(r.reconcile, `${r.method} ${r.endpoint}`);
  // the write of each resource version, and the writes behind each process's notifications of a key
  const byRv = new Map<number, TimelineWrite>();
  for (const w of tl.writes) if (w.rv !== undefined) byRv.set(w.rv, w);
  const causes = new Map<string, { index: number; rv: number }[]>();
  for (const n of tl.notifies) {
    if (!n.delivered || n.causeRv === undefined) continue;
    const k = `controller:${n.controller}/${n.replica}\u0000${n.key}`;
    const c = { index: n.index, rv: n.causeRv };
    const list = causes.get(k);
    if (list) list.push(c);
    else causes.set(k, [c]);
  }
  const timers = new Set<ReconcileSpan>();
  const consequences = new Set<ReconcileSpan>();
  const answers = environmentAnswers(byRv, from, catchingUp, (span) => span.start < from || timers.has(span));
  const moves = (w: TimelineWrite) => answers(w) === true;
  const last = new Map<string, ReconcileSpan>();
  const begun = new Set<string>();
  // keys whose reconciles since `from` changed something outside a schedule: no fixed point to keep
  const unsettled = new Set<string>();
  const lastChange = new Map<string, number>();
  const queued = new QueuedTimers(tl);
  // each reconcile's next one of the same key by the same process
  const next = new Map<ReconcileSpan, ReconcileSpan>();
  const seen = new Map<string, ReconcileSpan>();
  for (const span of tl.reconciles) {
    const k = `${span.actor}\u0000${span.key}`;
    const p = seen.get(k);
    if (p !== undefined) next.set(p, span);
    seen.set(k, span);
  }
  // per key, what its passes on an unchanged world (a timer's, a resync's: no event started them) changed so far
  const periodic = new Map<string, Set<string>>();
  // whether an event started `span` (a notification between the key's previous reconcile and it): a
  // cursor per key over its notifications, which come in trace order as its reconciles do (linear, not per span)
  const cursor = new Map<string, number>();
  const prompted = (k: string, prev: ReconcileSpan | undefined, span: ReconcileSpan): boolean => {
    const list = causes.get(k);
    if (list === undefined) return false;
    let i = cursor.get(k) ?? 0;
    const after = prev?.startIndex ?? -1;
    while (i < list.length && list[i]!.index <= after) i++;
    cursor.set(k, i);
    return i < list.length && list[i]!.index < span.startIndex;
  };
  for (const span of tl.reconciles) {
    const k = `${span.actor}\u0000${span.key}`;
    const prev = last.get(k);
    last.set(k, span);
    const pending = queued.timerOf(k);
    const fired = queued.fired(k, span);
    const timed = (prev !== undefined && (firedBy(prev, span) || dueBy(prev, span))) || fired;
    const byEvent = prompted(k, prev, span);
    const early = !timed && pending !== undefined && span.start >= from && !byEvent && movedEarlier(pending, span, next, changing, periodic.get(k));
    if (!byEvent) for (const c of changing.get(span) ?? []) (periodic.get(k) ?? periodic.set(k, new Set()).get(k)!).add(c);
    if (span.start < from || unsettled.has(k)) continue;
    if (timed || early) {
      if (span.start - (lastChange.get(k) ?? -Infinity) < MIN_SCHEDULE_MS) {
        // a poll loop: its changes are no schedule, and nothing after them a consequence
        if (changing.has(span)) unsettled.add(k);
        continue;
      }
      timers.add(span);
      if (changing.has(span)) {
        begun.add(k);
        lastChange.set(k, span.start);
      }
      continue;
    }
    // the writes whose events started it (since the previous reconcile began)
    // (from the key's cursor, which `prompted` left at its first notification after `prev` began:
    // a scan of all the key's notifications per reconcile was quadratic, 15 s on a 40,000-write fight, h47)
    const started: TimelineWrite[] = [];
    const list = causes.get(k) ?? [];
    for (let i = cursor.get(k) ?? 0; i < list.length && list[i]!.index < span.startIndex; i++) {
      const w = byRv.get(list[i]!.rv);
      if (w) started.push(w);
    }
    // the environment moving (a Job finishing) changes the world as a schedule does
    const envMoved = started.some((w) => w.actor.startsWith('environment:'));
    if (!begun.has(k) && envMoved) begun.add(k);
    if (!begun.has(k)) {
      // from the settle phase's start (convergence), a key still catching up (its object first
      // seen at the relist, a retry after API errors) changes without a schedule: noise, and its
      // schedule begins at its first timer firing; from the tail's start, no fixed point to keep
      if (changing.has(span) && !catchingUp) unsettled.add(k);
      continue;
    }
    // started by the event of a consequence's write to an object it changes again: a loop feeding itself, no consequence;
    // unless the environment moved too: events of one key collapse into one reconcile, which answers all of them
    // (a status read from the cache behind a Job just created, written again once the Job is there and running)
    const changes = changing.get(span);
    // Another key's write is answered only when the environment moved on its own, not when it
    // only answered that write (h48: two keys setting one Deployment's replicas in turn, 3, 2, 3,
    // …, its status following each: the world moves only because they write; from the tail on, a
    // write no schedule excuses feeds the loop too, catching up it is the world catching up). The
    // key's own write with the environment's answer is the world catching up with what that
    // write made (cron-task: a Job just created, its status recorded again once it runs).
    const moved = envMoved && started.some(moves);
    const looping = (r: ReconcileSpan) => consequences.has(r) || (!catchingUp && r.start >= from && !timers.has(r));
    const feeds = changes !== undefined && started.some((w) => w.reconcile !== undefined && looping(w.reconcile) && changes.has(`${w.kind} ${w.key}`) && !(w.reconcile.key === span.key && w.reconcile.actor === span.actor ? envMoved : moved));
    if (!feeds && !(changes !== undefined && feedsThroughEnvironment(started, changes, answers, looping))) consequences.add(span);
    else unsettled.add(k);
  }
  for (const s of consequences) timers.add(s);
  return timers;
}

/**
 * Whether a reconcile feeds itself through the environment: started only by the environment's
 * answers to controller writes of the loop (no schedule's, from the window's start; see
 * {@link environmentAnswers}) and by such writes themselves, nothing moving the world from
 * outside (scheduled work, the environment on its own, a user, a fault), it changes again an object
 * one of the answered writes changed. A controller that sets a Deployment's replicas to its Ready
 * pods + 1: each write scales the ReplicaSet up, the new Pod becomes Ready on the kubelet's timer,
 * the Deployment's status answers, and the next reconcile writes the replicas again, for ever (h49).
 * Writing another object in answer (a status recording that a Job it created now runs) is the world
 * catching up with the write, not a loop.
 */
function feedsThroughEnvironment(started: readonly TimelineWrite[], changes: ReadonlySet<string>, answers: (w: TimelineWrite) => true | ReadonlySet<TimelineWrite>, looping: (r: ReconcileSpan) => boolean): boolean {
  let again = false;
  for (const w of started) {
    if (w.actor.startsWith('controller:') && w.reconcile !== undefined && looping(w.reconcile)) continue;
    if (!w.actor.startsWith('environment:')) return false;
    const a = answers(w);
    if (a === true) return false;
    for (const x of a) if (x.reconcile !== undefined && looping(x.reconcile) && changes.has(`${x.kind} ${x.key}`)) again = true;
  }
  return again;
}

/**
 * What an environment actor's write answers (from `from` on): `true` when it is the environment
 * moving on its own, its chain of causes (the `environment:sync` that made it, the writes whose
 * events started that sync, theirs in turn; a sync its own timer started inherits the causes of
 * the sync that set the timer) reaching something from outside: the actor's start, the settle, a
 * fault, a user's or a fault's write, a write before `from`, or a controller's write that
 * `outside` accepts (scheduled work). Otherwise the controller reconciles' (from `from` on, no
 * schedule's) writes it answers: the environment moved because they were made, and would have
 * stayed still otherwise (two Scalers setting one Deployment's replicas in turn, 3, 2, 3, …, the
 * Deployment's status following each: rt46 deploy-putter, 40,003 patches in 70 s, excused as the
 * environment moving, h48; a Pod Ready on the kubelet's timer a second after a controller's write
 * scaled its ReplicaSet up, h49). A controller's write is never the environment's (`true`: not
 * asked); every environment write is when catching up (convergence: no fixed point yet to keep)
 * or in a trace without causes (hand-made). Memoized, iterative (chains of thousands of
 * environment writes): linear in the writes.
 */
function environmentAnswers(byRv: ReadonlyMap<number, TimelineWrite>, from: number, catchingUp: boolean, outside: (span: ReconcileSpan) => boolean): (w: TimelineWrite) => true | ReadonlySet<TimelineWrite> {
  const own = new Map<TimelineWrite, true | ReadonlySet<TimelineWrite>>();
  return (w) => {
    if (!w.actor.startsWith('environment:')) return true;
    if (catchingUp) return true;
    const stack = [w];
    while (stack.length > 0) {
      const x = stack[stack.length - 1]!;
      if (own.has(x)) {
        stack.pop();
        continue;
      }
      const c = x.envCause;
      let result: true | undefined = c === undefined || c.external || x.t < from ? true : undefined;
      let pending = false;
      // the controller writes answered (shared with the one cause that has them, when only one does)
      let spans: ReadonlySet<TimelineWrite> | undefined;
      const add = (more: ReadonlySet<TimelineWrite>) => {
        if (spans === undefined || spans === more) spans = more;
        else if (![...more].every((r) => spans!.has(r))) spans = new Set([...spans, ...more]);
      };
      for (let i = 0; result === undefined && c !== undefined && i < c.events.length; i++) {
        const y = byRv.get(c.events[i]!);
        if (y === undefined || y.t < from || y.fault !== undefined) result = true;
        else if (y.actor.startsWith('environment:')) {
          const m = own.get(y);
          if (m === undefined) {
            stack.push(y);
            pending = true;
          } else if (m === true) result = true;
          else add(m);
        } else if (y.actor.startsWith('controller:')) {
          if (y.reconcile === undefined || outside(y.reconcile)) result = true;
          else add(new Set([y]));
        } else result = true;
      }
      if (result !== undefined || !pending) {
        own.set(x, result ?? spans ?? new Set());
        stack.pop();
      }
    }
    return own.get(w)!;
  };
}

/**
 * The `requeueAfter` timers of each key as the workqueue keeps them (`addAfter`: one per key, the
 * earliest asked wins, so a later reconcile's request does not replace an earlier, sooner one; a
 * crash empties the queue): a reconcile the timer of an earlier reconcile than the one just before
 * started is timer work too. Found by a lock renewed every 5 s with a 5 s resync: the resync's
 * reconcile (t=15.000 s) came between the timer's request (10.001 s) and its firing (15.001 s).
 */
class QueuedTimers {
  /** Per key, what waits in the queue: a `requeueAfter` timer, or a retry's backoff (`timer: false`), which shares its slot. */
  private readonly pending = new Map<string, { at: number; setAt: number; actor: string; timer: boolean }>();
  constructor(private readonly tl: Timeline) {}

  /** When the `requeueAfter` timer waiting for `k` is due (not a retry's backoff), if one is. */
  timerOf(k: string): number | undefined {
    const p = this.pending.get(k);
    return p !== undefined && p.timer ? p.at : undefined;
  }

  /** Whether a pending timer of `k` started `span` (call in start order, once per reconcile); then records `span`'s own request. */
  fired(k: string, span: ReconcileSpan): boolean {
    const p = this.pending.get(k);
    let fired = false;
    if (p !== undefined && this.crashedSince(p.actor, p.setAt, span.start)) this.pending.delete(k);
    else if (p !== undefined && p.at <= span.start) {
      fired = p.timer && span.start - p.at <= 1;
      this.pending.delete(k);
    }
    if (span.end === undefined) return fired;
    const retry = (span.result === 'error' || span.result === 'requeue') && span.retryInMs !== undefined && span.retryInMs > 0;
    const ms = span.result === 'requeueAfter' ? span.requeueAfter : retry ? span.retryInMs : undefined;
    if (ms !== undefined && ms > 0) {
      const at = span.end + ms;
      const cur = this.pending.get(k);
      if (cur === undefined || cur.at > at) this.pending.set(k, { at, setAt: span.end, actor: span.actor, timer: !retry });
    }
    return fired;
  }

  private crashedSince(actor: string, from: number, to: number): boolean {
    return this.tl.crashes.some((c) => c.t >= from && c.t <= to && `controller:${String(c['controller'])}/${typeof c['replica'] === 'number' ? c['replica'] : 0}` === actor);
  }
}

/**
 * Whether `prev`'s `requeueAfter` timer had come due by the end of `span`, the key's next
 * reconcile: `span` did the timer's work. Either the timer came due while `span` ran (something
 * else started it just before, the tail's re-enqueue, and it read the clock after the due time;
 * the timer's own reconcile, right after, finds nothing to do), or before `span` began and the
 * key waited for a worker busy with another key. Found by the corpus's cert-renewal: a renewal due
 * 40 ms after the tail began, done by the tail's reconcile; one due at 60.141 s that waited 19 ms
 * behind another certificate's renewal.
 */
function dueBy(prev: ReconcileSpan, span: ReconcileSpan): boolean {
  if (prev.result !== 'requeueAfter' || prev.end === undefined || prev.requeueAfter === undefined || span.end === undefined) return false;
  return prev.end + prev.requeueAfter <= span.end;
}

/**
 * Whether `span`, started by no event (the tail's extra enqueue, a resync) while the key's
 * `requeueAfter` timer was pending (due at `due`), did that timer's work a little early: what it
 * changed is what the key's passes on an unchanged world changed before (`periodic`: a lock
 * renewed, a certificate rotated, by a timer's or a resync's pass), and the reconcile the timer then
 * started (and any of the key between) changed nothing, or the run ended before that timer fired.
 * A controller that renews when less than some margin is left renews on whichever pass lands in
 * that window first: an extra reconcile there moves the renewal earlier and adds none (the
 * timer's pass then finds it fresh). One that renews on every pass renews in both and stays
 * charged. Found by rt45's lease-holder (a lock of 30 s renewed within 15 s of its expiry, a pass
 * every 10 s: the tail's reconcile at 60.0 s renewed, the timer's at 60.3 s did not).
 */
function movedEarlier(due: number, span: ReconcileSpan, next: ReadonlyMap<ReconcileSpan, ReconcileSpan>, changing: ReadonlyMap<ReconcileSpan, ReadonlySet<string>>, periodic: ReadonlySet<string> | undefined): boolean {
  if (periodic === undefined || !(span.start < due)) return false;
  const mine = changing.get(span);
  if (mine === undefined || ![...mine].every((c) => periodic.has(c))) return false;
  // the key's reconciles up to the timer's: none changed anything, and the timer's came
  let after = next.get(span);
  for (; after !== undefined && after.start <= due + 1; after = next.get(after)) {
    if (changing.has(after)) return false;
    if (Math.abs(after.start - due) <= 1) return true;
  }
  // the run ended before the timer fired: its pass is not there to compare with; the tail's own
  // extra reconciles came early enough to be judged by it, so a non-idempotent pass is charged there
  return after === undefined;
}

/** Whether `span` is the one `prev`'s `requeueAfter` scheduled (it started when that timer fired). */
export function firedBy(prev: ReconcileSpan, span: ReconcileSpan): boolean {
  return prev.result === 'requeueAfter' && prev.end !== undefined && prev.requeueAfter !== undefined && Math.abs(prev.end + prev.requeueAfter - span.start) <= 1;
}
