import type { RunRecord } from '../harness/property.js';
import type { TraceEntry } from '../sim/trace.js';
import type { ObjectTimeline } from './timeline-recorder.js';

/** One activity bucket of the timeline (counts per second of virtual time). @public */
export interface ActivityBucket {
  /** Bucket start (virtual ms). */
  t: number;
  storeWrites: number;
  controllerWrites: number;
  downstreamRequests: number;
  reconciles: number;
  faults: number;
  /** One-line trace entries in this bucket (for hover), capped. */
  entries: string[];
  /** Entries left out of `entries`. */
  more: number;
}

/** A point event drawn on the time axis. @public */
export interface TimeMark {
  t: number;
  /** Fault kind, user action or phase name. */
  label: string;
  /** One line: what exactly. */
  detail: string;
}

/**
 * A row of the compact timeline (Markdown table, HTML "Key events"). Repeats of one event
 * collapse into one row: `count` times from `t` to `until`, about every `everyMs`.
 * @public
 */
export interface TimelineRow {
  t: number;
  what: string;
  /** How many consecutive events this row stands for. @defaultValue 1 */
  count?: number;
  /** Time of the last of them. */
  until?: number;
  /** Their typical spacing (virtual ms). */
  everyMs?: number;
}

/** The converged predicate's value over the run, sampled after every write. @public */
export interface ConvergedSeries {
  t: number[];
  /** 1 when the predicate held, 0 when not. */
  ok: number[];
  /** Why not (the predicate's words), per sample. */
  detail: (string | null)[];
}

/** Everything the time-axis views (HTML charts, Markdown table) need. @public */
export interface ReportTimeline {
  /** Width of each activity bucket (virtual ms): small for a short story, larger for a long one. */
  bucketMs: number;
  /** Buckets with activity, in time order (buckets with none are left out). */
  buckets: ActivityBucket[];
  faults: TimeMark[];
  actions: TimeMark[];
  phases: TimeMark[];
  objects: ObjectTimeline[];
  /** What the convergence predicate said over the run, when it was recorded. */
  converged: ConvergedSeries | null;
  rows: TimelineRow[];
  /** Rows left out of `rows`. */
  moreRows: number;
  end: number;
  /** Where things happen (user actions, faults, writes, downstream requests), padded: the charts open on it. */
  window: { from: number; to: number };
  /** The time unit for axes and tables: `ms` when the window is shorter than 2 s. */
  unit: 's' | 'ms';
}

const MAX_ENTRIES_PER_BUCKET = 40;
const MAX_ENTRIES_TOTAL = 4000;
const MAX_BUCKETS = 4000;
const MAX_ROWS = 40;
/** Buckets across the active window, about. */
const WINDOW_BUCKETS = 200;

/** Virtual time as seconds with millisecond precision: `t=1.200s`. @internal */
export function formatTime(ms: number): string {
  return `t=${(ms / 1000).toFixed(3)}s`;
}

/** Builds the time-axis view of a recorded run. @internal */
export function buildTimeline(record: RunRecord | undefined, objects: ObjectTimeline[], converged: ConvergedSeries | null = null, evidence?: { from: number; to: number }): ReportTimeline {
  const run: Pick<RunRecord, 'timing' | 'trace' | 'requests'> = {
    timing: record?.timing ?? { faultWindowEnd: 0, lastActionAt: 0, settleStart: 0, tailStart: 0, end: 0 },
    trace: record?.trace ?? [],
    requests: record?.requests ?? [],
  };
  const end = Math.max(run.timing.end, 1);
  const window = activeWindow(run.trace, run.timing.tailStart, end, evidence);
  const bucketMs = bucketSize(run.trace, window.to - window.from);
  const perSecond = 1000 / bucketMs;
  const byStart = new Map<number, ActivityBucket>();
  const at = (t: number): ActivityBucket => {
    const start = Math.floor(Math.max(0, t) / bucketMs) * bucketMs;
    let b = byStart.get(start);
    if (!b) {
      b = { t: start, storeWrites: 0, controllerWrites: 0, downstreamRequests: 0, reconciles: 0, faults: 0, entries: [], more: 0 };
      byStart.set(start, b);
    }
    return b;
  };

  const faults: TimeMark[] = [];
  const actions: TimeMark[] = [];
  const phases: TimeMark[] = [
    { t: 0, label: 'faults', detail: 'fault window opens' },
    { t: run.timing.settleStart, label: 'settle', detail: 'faults stop; informers relist; convergence is judged from here' },
    { t: run.timing.tailStart, label: 'tail', detail: 'quiet tail: extra reconciles and re-applied specs probe idempotence and hot loops' },
  ].filter((p) => p.t <= end);
  const rows = new RowCollapser(MAX_ROWS);
  let kept = 0;
  for (const e of run.trace) {
    const b = at(e.t);
    switch (e.type) {
      case 'store:write':
        b.storeWrites++;
        if (typeof e['actor'] === 'string' && e['actor'].startsWith('controller:')) b.controllerWrites++;
        break;
      case 'downstream:request':
        b.downstreamRequests++;
        break;
      case 'reconcile:start':
        b.reconciles++;
        break;
      case 'fault:inject':
        b.faults++;
        faults.push({ t: e.t, label: String(e['kind'] ?? 'fault'), detail: describeEntry(e) });
        break;
      case 'user:action':
        actions.push({ t: e.t, label: String(e['action'] ?? 'action'), detail: describeEntry(e) });
        break;
      default:
        break;
    }
    if (kept < MAX_ENTRIES_TOTAL && b.entries.length < MAX_ENTRIES_PER_BUCKET) {
      b.entries.push(describeEntry(e));
      kept++;
    } else b.more++;
    if (isRowWorthy(e)) rows.add(e);
  }
  // requests recorded outside the trace (downstream log) still count
  if (!run.trace.some((e) => e.type === 'downstream:request')) for (const r of run.requests) at(r.t).downstreamRequests++;
  const buckets = [...byStart.values()].sort((a, b) => a.t - b.t);
  for (const b of buckets) {
    b.storeWrites *= perSecond;
    b.controllerWrites *= perSecond;
    b.downstreamRequests *= perSecond;
    b.reconciles *= perSecond;
  }
  const done = rows.done();
  return {
    bucketMs,
    buckets,
    faults,
    actions,
    phases,
    objects: objects.map((o) => extendTo(o, run.timing.end)),
    converged,
    rows: done.rows,
    moreRows: done.more,
    end: run.timing.end,
    window,
    unit: window.to - window.from < 2000 ? 'ms' : 's',
  };
}

/**
 * The span where the story happens: from the first user action, fault, store write or downstream
 * request to the last one before the quiet tail (the tail's extra reconciles and re-applied specs
 * are the harness probing, not the story), widened to the failure's evidence window when the
 * property names one (a hot loop judged in the tail), padded by a tenth on each side and at least
 * 10 ms wide. A loop that never stops makes it the whole run.
 */
function activeWindow(trace: readonly TraceEntry[], tailStart: number, end: number, evidence?: { from: number; to: number }): { from: number; to: number } {
  let first = evidence ? evidence.from : Number.POSITIVE_INFINITY;
  let last = evidence ? evidence.to : Number.NEGATIVE_INFINITY;
  const story = trace.some((e) => e.t < tailStart && e.type === 'user:action');
  for (const e of trace) {
    if (story && e.t >= tailStart) break;
    const active =
      e.type === 'fault:inject' ||
      e.type === 'downstream:request' ||
      e.type === 'controller:crash' ||
      (e.type === 'user:action' && !(e.t === tailStart && e['action'] === 'reapply')) ||
      (e.type === 'store:write' && e['noop'] !== true && e['kind'] !== 'Lease');
    if (!active) continue;
    if (e.t < first) first = e.t;
    if (e.t > last) last = e.t;
  }
  if (first > last) return { from: 0, to: end };
  const pad = Math.max(1, (last - first) / 10);
  let from = Math.max(0, first - pad);
  let to = Math.min(end, last + pad);
  if (to - from < 10) {
    to = Math.min(end, from + 10);
    from = Math.max(0, to - 10);
  }
  return { from, to };
}

/** A round bucket width (1, 2 or 5 × 10^k ms) giving about WINDOW_BUCKETS across the window, coarser when the run would need too many. */
function bucketSize(trace: readonly TraceEntry[], windowMs: number): number {
  let size = nice(Math.max(1, windowMs / WINDOW_BUCKETS));
  for (;;) {
    const starts = new Set<number>();
    for (const e of trace) {
      starts.add(Math.floor(e.t / size));
      if (starts.size > MAX_BUCKETS) break;
    }
    if (starts.size <= MAX_BUCKETS) return size;
    size = nice(size * 2.5);
  }
}

function nice(ms: number): number {
  const p = 10 ** Math.floor(Math.log10(ms));
  for (const m of [1, 2, 5, 10]) if (m * p >= ms) return m * p;
  return 10 * p;
}

/** Repeats each object's last sample at the end of the run, so step lines reach the edge. */
function extendTo(o: ObjectTimeline, end: number): ObjectTimeline {
  const last = o.t[o.t.length - 1];
  if (last === undefined || last >= end) return o;
  return { ...o, t: [...o.t, end], desired: o.desired.map((s) => [...s, s[s.length - 1] ?? null]), actual: o.actual.map((s) => [...s, s[s.length - 1] ?? null]) };
}

function isRowWorthy(e: TraceEntry): boolean {
  switch (e.type) {
    case 'fault:inject':
    case 'user:action':
    case 'controller:crash':
    case 'kernel:blocked':
    case 'kernel:loop':
    case 'invariant:violated':
    case 'downstream:request':
    case 'run:stopped':
    case 'process:exit':
    case 'settle:relist':
      return true;
    // a hosted program: what it printed as a warning or error, refused requests, streams others ended
    case 'log':
      return e['level'] === 'error' || e['level'] === 'warn';
    case 'http:request':
      return typeof e['status'] === 'number' && e['status'] >= 400;
    case 'watch:close':
      return e['by'] !== 'client';
    case 'run:phase':
      return e['phase'] === 'settle' || e['phase'] === 'tail';
    case 'store:write':
      return typeof e['actor'] === 'string' && e['actor'] !== 'user' && e['noop'] !== true && e['kind'] !== 'Lease';
    case 'reconcile:end':
      return e['result'] === 'error';
    default:
      return false;
  }
}

/** Fields that differ between repeats of one event (versions, digests, times): left out when comparing. */
const VOLATILE = new Set(['t', 'rv', 'digest', 'start', 'tEnd', 'uid', 'n', 'attempt', 'seq', 'resourceVersion']);

/** What makes two rows "the same event" for collapsing. */
function rowKey(e: TraceEntry): string {
  const parts: string[] = [e.type];
  for (const k of Object.keys(e).sort()) if (!VOLATILE.has(k)) parts.push(`${k}=${JSON.stringify(e[k])}`);
  return parts.join(' ');
}

/** How many of the latest rows a repeat may join. */
const RECENT = 4;

/** Collapses runs of the same event into one row ("×8,001 …, every 1 ms"), then caps the rows. */
class RowCollapser {
  private readonly rows: (TimelineRow & { key: string })[] = [];
  private more = 0;
  constructor(private readonly max: number) {}

  add(e: TraceEntry): void {
    const key = rowKey(e);
    // a loop repeats a few events in turn (a write, then a request): any of the last rows absorbs its repeat
    if (this.more === 0) {
      for (let i = this.rows.length - 1; i >= Math.max(0, this.rows.length - RECENT); i--) {
        const row = this.rows[i]!;
        if (row.key !== key) continue;
        row.count = (row.count ?? 1) + 1;
        row.until = e.t;
        return;
      }
    }
    if (this.rows.length >= this.max) {
      this.more++;
      return;
    }
    this.rows.push({ key, t: e.t, what: describeEntry(e, false) });
  }

  done(): { rows: TimelineRow[]; more: number } {
    return {
      rows: this.rows.map(({ key: _key, ...r }) => {
        if ((r.count ?? 1) === 1) return { t: r.t, what: r.what };
        const count = r.count!;
        const everyMs = Math.round(((r.until! - r.t) / (count - 1)) * 1000) / 1000;
        return { t: r.t, what: `×${count.toLocaleString('en-US')} ${r.what}${everyMs > 0 ? `, every ${everyMs} ms` : ', at the same instant'} (until ${formatTime(r.until!)})`, count, until: r.until!, everyMs };
      }),
      more: this.more,
    };
  }
}

const LEAD_FIELDS = ['kind', 'action', 'actor', 'controller', 'verb', 'key', 'event', 'result'];

/** One line per trace entry, for hover panels and tables. @internal */
export function describeEntry(e: TraceEntry, withTime = true): string {
  const parts: string[] = [];
  // the fields that say what happened first, whatever order the entry was built in
  const keys = [...LEAD_FIELDS.filter((k) => k in e), ...Object.keys(e).filter((k) => !LEAD_FIELDS.includes(k))];
  for (const k of keys) {
    const v = e[k];
    // digests identify writes for hashing; people do not read them
    if (k === 't' || k === 'type' || k === 'digest' || v === undefined) continue;
    if (!withTime && VOLATILE.has(k)) continue;
    parts.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  const line = `${withTime ? `${formatTime(e.t)} ` : ''}${e.type} ${parts.join(' ')}`.trim();
  return line.length > 240 ? `${line.slice(0, 237)}...` : line;
}
