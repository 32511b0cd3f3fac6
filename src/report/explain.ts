import type { TraceEntry } from '../sim/trace.js';

/**
 * "Let: … Then: …" builders shared by the properties (SPEC §6: explanations read like a proof,
 * not a dump). Pure functions of plain data: times, objects, actors, field paths, recorded
 * writes, requests and trace entries become short phrases a controller author acts on.
 */

/** "an update", "a read": the indefinite article a word takes (by its first letter). @internal */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** `1234` → `'1.234 s'`, `1200` → `'1.2 s'`, `0` → `'0.0 s'`. @public */
export function fmtSeconds(ms: number): string {
  const s = (ms / 1000).toFixed(3).replace(/0+$/, '');
  return `${s.endsWith('.') ? `${s}0` : s} s`;
}

/** A virtual instant: `t=1.2 s`. @public */
export function fmtTime(ms: number): string {
  return `t=${fmtSeconds(ms)}`;
}

/** A span of virtual time: `250 ms` below a second, `1.2 s` above. @public */
export function fmtDuration(ms: number): string {
  return Math.abs(ms) < 1000 ? `${Math.round(ms)} ms` : fmtSeconds(ms);
}

/** An object: `ReplicaSet default/web`. @public */
export function fmtObject(kind: string, key: string): string {
  return `${kind} ${key}`;
}

/** An actor as recorded (`controller:web/0`, `user`, `environment:kubelet`, `fault:drift`) in words. @public */
export function fmtActor(actor: string): string {
  if (actor === 'user') return 'the user';
  const i = actor.indexOf(':');
  if (i < 0) return actor;
  const who = actor.slice(0, i);
  const name = actor.slice(i + 1);
  if (who === 'controller') return `controller ${name}`;
  if (who === 'environment') return `environment actor ${name}`;
  if (who === 'fault') return `the ${name} fault`;
  return actor;
}

/** Field paths: `status.replicas, status.observedGeneration` (or `nothing` for none). @public */
export function fmtPaths(paths: readonly string[]): string {
  if (paths.length === 0) return 'nothing';
  return paths.map((p) => (p === '.' ? 'the whole object' : p)).join(', ');
}

/** A JSON value, shortened for prose. @public */
export function fmtValue(v: unknown, max = 80): string {
  let s: string;
  try {
    s = v === undefined ? 'undefined' : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A count as people read it: `8001` → `'8,001'`. @public */
export function fmtCount(n: number): string {
  const s = String(Math.round(Math.abs(n)));
  return `${n < 0 ? '-' : ''}${s.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/** A span of virtual instants: `t=62.0–70.0 s` (one instant: `t=62.0 s`). @public */
export function fmtTimeRange(from: number, to: number): string {
  if (from === to) return fmtTime(from);
  return `t=${fmtSeconds(from).replace(/ s$/, '')}–${fmtSeconds(to)}`;
}

/**
 * Something that happened at these instants, as one fact: `a write of status.x at t=1.0 s`, or,
 * repeated, `8,001 writes of status.lastSyncTime, one per ms, t=62.0–70.0 s`. `one` and `many`
 * are the singular and plural phrases (`a write of …`, `writes of …`).
 * @public
 */
export function fmtOccurrences(times: readonly number[], one: string, many: string): string {
  if (times.length === 0) return `no ${many}`;
  const sorted = [...times].sort((a, b) => a - b);
  const first = sorted[0]!;
  const last = sorted[sorted.length - 1]!;
  if (sorted.length === 1) return `${one} at ${fmtTime(first)}`;
  const gap = (last - first) / (sorted.length - 1);
  const rate = gap === 0 ? 'all at once' : gap < 1.5 && gap >= 0.5 ? 'one per ms' : `one every ${fmtDuration(gap)} on average`;
  return `${fmtCount(sorted.length)} ${many}, ${rate}, ${fmtTimeRange(first, last)}`;
}

/**
 * Facts that repeat, collapsed: items with the same `key` become one phrase (see
 * {@link fmtOccurrences}), in order of first occurrence, at most `max` of them and then "and n more".
 * @public
 */
export function collapseFacts<T extends { t: number }>(items: readonly T[], key: (x: T) => string, phrase: (x: T, times: readonly number[]) => string, max = 4): string[] {
  const groups = new Map<string, { first: T; times: number[] }>();
  for (const x of items) {
    const k = key(x);
    const g = groups.get(k);
    if (g) g.times.push(x.t);
    else groups.set(k, { first: x, times: [x.t] });
  }
  const out = [...groups.values()].slice(0, max).map((g) => phrase(g.first, g.times));
  if (groups.size > max) out.push(`and ${groups.size - max} more`);
  return out;
}

/** `a, b and c`; beyond `max` items: `a, b, c and 4 more`. @public */
export function fmtList(items: readonly string[], max = 5): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest} more`;
  if (shown.length === 1) return shown[0]!;
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/** `1 write`, `3 writes`. @public */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The fields of a recorded store write that prose needs. @public */
export interface WriteFacts {
  t: number;
  actor: string;
  verb: string;
  kind: string;
  key: string;
  changed: readonly string[];
  noop: boolean;
  error?: string | undefined;
  rv?: number | undefined;
  removed?: boolean | undefined;
  markedForDeletion?: boolean | undefined;
}

/**
 * One write in words: `updateStatus ReplicaSet default/web by controller web/0 at t=1.0 s
 * (changed status.replicas)`.
 * @public
 */
export function fmtWrite(w: WriteFacts, options: { actor?: boolean } = {}): string {
  const by = options.actor === false ? '' : ` by ${fmtActor(w.actor)}`;
  let what: string;
  if (w.error !== undefined) what = `failed: ${w.error}`;
  else if (w.noop) what = 'a no-op: it changed nothing';
  else if (w.removed) what = 'removed it';
  else if (w.markedForDeletion) what = 'marked it for deletion';
  else if (w.verb === 'create') what = 'created it';
  else what = `changed ${fmtPaths(w.changed)}`;
  return `${w.verb} ${fmtObject(w.kind, w.key)}${by} at ${fmtTime(w.t)} (${what})`;
}

/** The fields of a recorded downstream request that prose needs. @public */
export interface RequestFacts {
  t: number;
  method: string;
  url: string;
  status: number;
  outcome: string;
  actor?: string;
  fault?: string | undefined;
  applied?: boolean | undefined;
}

/** One request in words: `POST https://dns.example/records at t=1.0 s → 503 (injected)`. @public */
export function fmtRequest(r: RequestFacts): string {
  const answer = r.status > 0 ? String(r.status) : r.outcome;
  const notes: string[] = [];
  if (r.fault !== undefined) notes.push(`injected ${r.fault}`);
  if (r.applied === true && r.status === 0) notes.push('applied, response lost');
  return `${r.method} ${r.url} at ${fmtTime(r.t)} → ${answer}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

const SKIP_FAULT_FIELDS = new Set(['t', 'type', 'kind', 'background', 'nth', 'decision']);

function field(e: TraceEntry, name: string): string | undefined {
  const v = e[name];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Phrases for the built-in fault kinds (SPEC §3); others list their recorded details. */
const FAULT_PHRASES: Record<string, (e: TraceEntry, at: string) => string | undefined> = {
  'event-loss': (e, at) => (field(e, 'key') ? `the ${field(e, 'event') ?? ''} notification of ${field(e, 'key')}${field(e, 'controller') ? ` to ${field(e, 'controller')}` : ''} at ${at} was dropped (event-loss)`.replace('the  ', 'the ') : undefined),
  'watch-event-loss': (e, at) => watchPhrase(e, at, 'was lost on its way to the informer (watch-event-loss)'),
  duplication: (e, at) => watchPhrase(e, at, `was replayed${Number(field(e, 'replay') ?? 1) > 1 ? ` with the ${Number(field(e, 'replay')) - 1} event(s) before it` : ''} after a reconnect (duplication)`),
  reordering: (e, at) => watchPhrase(e, at, `was held back${field(e, 'holdMs') ? ` ${field(e, 'holdMs')} ms` : ''} while the controller's other watches went on (reordering)`),
  delay: (e, at) => watchPhrase(e, at, `was delayed${field(e, 'ms') ? ` ${field(e, 'ms')} ms` : ''} (delay)`),
  coalescing: (e, at) => watchPhrase(e, at, 'was folded into a later version (coalescing)'),
  'crash-restart': (e, at) => (field(e, 'controller') ? `controller ${field(e, 'controller')}/${field(e, 'replica') ?? '0'} crashed at ${at}${field(e, 'verb') ? ` ${field(e, 'point') === 'after-write' ? 'right after' : 'before'} ${withArticle(field(e, 'verb') ?? '')} call` : ''} and restarted with empty memory (crash-restart)` : undefined),
  'api-conflict': (e, at) => (field(e, 'key') ? `another writer touched ${field(e, 'objectKind') ?? ''} ${field(e, 'key')} at ${at}, so the next ${field(e, 'verb') ?? 'write'} got 409 Conflict (api-conflict)`.replace('  ', ' ') : undefined),
  'api-error': (e, at) => (field(e, 'status') ? `${withArticle(field(e, 'verb') ?? 'call')}${field(e, 'key') ? ` of ${field(e, 'key')}` : ''} at ${at} got ${field(e, 'status')}${e['applied'] === true ? ' although it was applied' : ''} (api-error)` : undefined),
  'flaky-downstream': (e, at) => {
    const d = field(e, 'decision') ?? field(e, 'fail') ?? 'status';
    const what = d === 'status' ? `answered ${field(e, 'status') ?? '5xx'}` : d === 'latency' ? `was slowed by ${field(e, 'ms') ?? '?'} ms` : d === 'hang' ? 'hung until the client timeout' : d === 'reset' ? 'had its connection reset' : d === 'applied-but-lost' ? 'was applied but its response was lost' : d === 'outage' ? `failed (${e['reset'] === true ? 'connection reset' : (field(e, 'status') ?? '5xx')}) during an outage of ${field(e, 'forMs') ?? '?'} ms` : d;
    return field(e, 'endpoint') ? `the downstream call ${field(e, 'endpoint')} at ${at} ${what} (flaky-downstream)` : undefined;
  },
  'stale-snapshot': (e, at) =>
    e['list'] === true
      ? `the ${field(e, 'reason') === 'relist' ? 'relist' : 'list after a restart'} of ${field(e, 'objectKind') ?? 'a kind'} by ${field(e, 'controller') ?? 'a controller'} at ${at} came from an API server replica ${field(e, 'versionsBack') ?? 'some'} resourceVersion(s) behind (stale-snapshot)`
      : `from ${at} the ${e['whole'] === true ? 'whole cache' : `${field(e, 'objectKind') ?? ''} watch`} of ${field(e, 'controller') ?? 'a controller'} lagged ${field(e, 'lagMs') !== undefined ? `${field(e, 'lagMs')} ms` : `${field(e, 'versionsBehind') ?? 'some'} event(s)`} behind the API server for ${field(e, 'forMs') ?? '?'} ms (stale-snapshot)`.replace('  ', ' '),
  'second-replica': (e, at) =>
    field(e, 'controller')
      ? `a second replica ${field(e, 'controller')}/${field(e, 'replica') ?? '1'} started at ${at}${e['controllerUsesElection'] !== true ? ', and the controller does not use leader election' : e['leaderElection'] === false ? ', ignoring the leader election the first replica takes part in (split brain)' : ', both replicas taking part in leader election'} (second-replica)`
      : undefined,
  recreation: (e, at) => (field(e, 'key') ? `${field(e, 'objectKind') ?? 'the object'} ${field(e, 'key')} was deleted and recreated under the same name at ${at} (recreation)` : undefined),
};

function watchPhrase(e: TraceEntry, at: string, what: string): string | undefined {
  const key = field(e, 'key');
  if (key === undefined) return undefined;
  return `the ${field(e, 'event') ?? ''} watch event of ${field(e, 'objectKind') ?? ''} ${key}${field(e, 'controller') ? ` to ${field(e, 'controller')}` : ''} at ${at} ${what}`.replace(/ {2,}/g, ' ').replace('the  ', 'the ');
}

/**
 * One injected fault (a `fault:inject` trace entry) in words. Built-in kinds read naturally
 * (`the MODIFIED notification of default/web to web at t=1.2 s was dropped (event-loss)`);
 * other kinds list their recorded details.
 * @public
 */
export function fmtFault(e: TraceEntry): string {
  const kind = String(e['kind'] ?? 'fault');
  const at = fmtTime(e.t);
  const phrase = FAULT_PHRASES[kind]?.(e, at);
  if (phrase !== undefined) return phrase;
  const details: string[] = [];
  for (const [k, v] of Object.entries(e)) {
    if (SKIP_FAULT_FIELDS.has(k) || v === undefined) continue;
    details.push(`${k} ${typeof v === 'string' ? v : fmtValue(v, 40)}`);
  }
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} fault at ${at}${details.length ? ` (${details.join(', ')})` : ''}`;
}

const ACTION_VERBS: Record<string, string> = {
  create: 'created',
  update: 'updated the spec of',
  patch: 'patched',
  delete: 'deleted',
  reapply: 're-applied the same spec of',
  removeFinalizer: 'removed a finalizer by hand from',
  apply: 'applied',
  recreate: 'recreated',
  deleteOwned: 'deleted, out of band,',
};

/** One user action (a `user:action` trace entry) in words: `the user deleted Database default/db at t=5.0 s`. @public */
export function fmtUserAction(e: TraceEntry): string {
  const action = String(e['action'] ?? 'acted on');
  const verb = ACTION_VERBS[action] ?? action;
  const policy = e['propagationPolicy'] === 'Foreground' ? ' in the foreground (what it owns first)' : e['propagationPolicy'] === 'Orphan' ? ', orphaning what it owns,' : '';
  const err = typeof e['error'] === 'string' ? ` (it failed: ${e['error']})` : '';
  const attempt = typeof e['attempt'] === 'number' && e['attempt'] > 1 ? ` (attempt ${e['attempt']})` : '';
  return `the user ${verb} ${fmtObject(String(e['kind'] ?? ''), String(e['key'] ?? ''))}${policy} at ${fmtTime(e.t)}${attempt}${err}`;
}

/** Options of {@link letFacts}. @public */
export interface LetFactsOptions {
  /** Only facts at or before this time. @defaultValue Infinity */
  until?: number;
  /** Only facts at or after this time. @defaultValue 0 */
  from?: number;
  /** Include user actions. @defaultValue true */
  userActions?: boolean;
  /** At most this many facts of each sort, then "and n more". @defaultValue 4 */
  max?: number;
}

/**
 * The "Let" facts of a run: the injected faults (`fault:inject` entries) and the user's actions,
 * with their times, as phrases. The tail's re-applied specs are harness probes, not user intent,
 * so they are left out (they come after the `tail` phase marker).
 * @public
 */
export function letFacts(trace: readonly TraceEntry[], options: LetFactsOptions = {}): string[] {
  const until = options.until ?? Infinity;
  const from = options.from ?? 0;
  const max = options.max ?? 4;
  const faults = new Map<string, TraceEntry[]>();
  const actions: string[] = [];
  let tail = false;
  for (const e of trace) {
    if (e.t > until) break;
    if (e.type === 'run:phase' && e['phase'] === 'tail') tail = true;
    if (e.t < from) continue;
    if (e.type === 'fault:inject') {
      const kind = String(e['kind'] ?? 'fault');
      let list = faults.get(kind);
      if (!list) faults.set(kind, (list = []));
      list.push(e);
    } else if (e.type === 'user:action' && !tail && options.userActions !== false) actions.push(fmtUserAction(e));
  }
  const out: string[] = actions.slice(0, max);
  if (actions.length > max) out.push(`${actions.length - max} more ${xs(actions.length - max, 'user action')}`);
  // a kind that fired many times reads as one fact: its first injection and the span
  for (const [kind, list] of faults) {
    if (list.length <= max) out.push(...list.map(fmtFault));
    else out.push(`${fmtFault(list[0]!)}, and ${list.length - 1} more ${kind} injections until ${fmtTime(list[list.length - 1]!.t)}`);
  }
  if (faults.size === 0) out.push('no fault was injected');
  return out;
}

function xs(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/**
 * Joins facts into the explanation form: `Let: a; b. Then: c; d.`
 * @example explanation(['the Pod web-1 ADDED event at t=1.2 s was dropped'], ['no reconcile of default/web ran after t=1.2 s'])
 * @public
 */
export function explanation(letPart: readonly string[], thenPart: readonly string[]): string {
  const join = (xs: readonly string[]) => xs.map((x) => x.replace(/[.;\s]+$/, '')).join('; ');
  return `Let: ${join(letPart.length ? letPart : ['nothing unusual happened'])}. Then: ${join(thenPart)}.`;
}
