import type { TraceEntry } from '../sim/trace.js';

/**
 * "Let: … Then: …" builders shared by the properties (SPEC §6: explanations read like a proof,
 * not a dump). Pure functions of plain data: times, objects, actors, field paths, recorded
 * writes, requests and trace entries become short phrases a controller author acts on.
 */

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

const SKIP_FAULT_FIELDS = new Set(['t', 'type', 'kind', 'background']);

/**
 * One injected fault (a `fault:inject` trace entry) in words. Known shapes read naturally
 * (`the MODIFIED notification of default/web to web at t=1.2 s was dropped`); other kinds list
 * their recorded details.
 * @public
 */
export function fmtFault(e: TraceEntry): string {
  const kind = String(e['kind'] ?? 'fault');
  const at = fmtTime(e.t);
  const key = typeof e['key'] === 'string' ? e['key'] : undefined;
  const event = typeof e['event'] === 'string' ? e['event'] : undefined;
  const controller = typeof e['controller'] === 'string' ? e['controller'] : undefined;
  if (kind === 'event-loss' && key !== undefined) {
    return `the ${event ?? ''}${event ? ' ' : ''}notification of ${key}${controller ? ` to ${controller}` : ''} at ${at} was dropped (event-loss)`;
  }
  const details: string[] = [];
  for (const [k, v] of Object.entries(e)) {
    if (SKIP_FAULT_FIELDS.has(k) || v === undefined) continue;
    details.push(`${k} ${typeof v === 'string' ? v : fmtValue(v, 40)}`);
  }
  return `a ${kind} fault at ${at}${details.length ? ` (${details.join(', ')})` : ''}`;
}

const ACTION_VERBS: Record<string, string> = {
  create: 'created',
  update: 'updated the spec of',
  patch: 'patched',
  delete: 'deleted',
  reapply: 're-applied the same spec of',
  removeFinalizer: 'removed a finalizer by hand from',
};

/** One user action (a `user:action` trace entry) in words: `the user deleted Database default/db at t=5.0 s`. @public */
export function fmtUserAction(e: TraceEntry): string {
  const action = String(e['action'] ?? 'acted on');
  const verb = ACTION_VERBS[action] ?? action;
  const err = typeof e['error'] === 'string' ? ` (it failed: ${e['error']})` : '';
  return `the user ${verb} ${fmtObject(String(e['kind'] ?? ''), String(e['key'] ?? ''))} at ${fmtTime(e.t)}${err}`;
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
  const faults: string[] = [];
  const actions: string[] = [];
  let tail = false;
  for (const e of trace) {
    if (e.t > until) break;
    if (e.type === 'run:phase' && e['phase'] === 'tail') tail = true;
    if (e.t < from) continue;
    if (e.type === 'fault:inject') faults.push(fmtFault(e));
    else if (e.type === 'user:action' && !tail && options.userActions !== false) actions.push(fmtUserAction(e));
  }
  const out: string[] = [];
  const cap = (xs: string[], noun: string) => {
    out.push(...xs.slice(0, max));
    if (xs.length > max) out.push(`${xs.length - max} more ${noun}`);
  };
  cap(actions, xs(actions.length - max, 'user action'));
  cap(faults, xs(faults.length - max, 'injected fault'));
  if (faults.length === 0) out.push('no fault was injected');
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
