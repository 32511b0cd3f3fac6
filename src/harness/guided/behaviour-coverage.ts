import type { StoredObject } from '../../store/object.js';
import type { TraceEntry } from '../../sim/trace.js';
import type { RunRecord } from '../property.js';
import type { Scenario } from '../scenario.js';
import type { World } from '../world.js';

/**
 * Behaviour coverage (issue 16, after FoundationDB's and TigerBeetle's swarms and Zest's
 * coverage-guided generators): what a run made the system do, as a set of abstract facts that
 * ignore names, uids, times and versions:
 * - per kind, the abstract states objects went through and the transitions between them: its
 *   phase-like status values (`Ready`, `NameTaken`, booleans, condition statuses), which status
 *   fields are set, deletion in progress, finalizers present, a controlling owner present;
 * - per controller, the reconcile outcomes (done, requeue, requeueAfter, error and its kind);
 * - fault sites: which fault kind fired at which call site (in a reconcile of which controller,
 *   at which call, right after which call).
 * A run that adds a fact no earlier run had is worth mutating further.
 * @internal
 */

const PHASE_LIKE = /^[A-Z][A-Za-z]{0,30}$/;

/** The abstract state of one object: kind, phase-like status values, set status fields, lifecycle flags. */
export function abstractState(o: StoredObject): string {
  const parts: string[] = [o.kind];
  const status = (o.status ?? {}) as Record<string, unknown>;
  const set: string[] = [];
  for (const k of Object.keys(status).sort()) {
    const v = status[k];
    if (v === undefined || v === null) continue;
    set.push(k);
    if (typeof v === 'boolean') parts.push(`${k}=${String(v)}`);
    else if (typeof v === 'string' && PHASE_LIKE.test(v)) parts.push(`${k}=${v}`);
    else if (k === 'conditions' && Array.isArray(v)) {
      for (const c of v as { type?: unknown; status?: unknown }[]) if (typeof c?.type === 'string') parts.push(`cond:${c.type}=${String(c.status)}`);
    }
  }
  parts.push(`set[${set.join(',')}]`);
  if (o.metadata.deletionTimestamp !== undefined) parts.push('deleting');
  if (o.metadata.finalizers.length > 0) parts.push('finalizers');
  if (o.metadata.ownerReferences.some((r) => r.controller === true)) parts.push('owned');
  return parts.join(' ');
}

/**
 * Watches the worlds of the runs it is given (`observe`, passed to simulate) and keeps, per
 * scenario object, the abstract states and transitions its run went through. Only runs whose facts
 * are read are watched (the runner judges them with `observe`): twins, determinism re-runs, extra
 * runs and shrink candidates are not, since watching costs an abstract state per store write.
 * @internal
 */
export class BehaviourObserver {
  private readonly byScenario = new WeakMap<Scenario, Set<string>>();

  readonly observe = (world: World): void => {
    const facts = new Set<string>();
    this.byScenario.set(world.scenario, facts);
    const last = new Map<string, string>();
    world.afterWrite.push((w) => {
      if (w.error !== undefined || w.noop) return;
      const id = `${w.kind}\u0000${w.key}`;
      const o = world.store.peek(w.kind, w.key);
      const state = o ? abstractState(o) : `${w.kind} gone`;
      const prev = last.get(id);
      if (prev === state) return;
      last.set(id, state);
      facts.add(`state ${state}`);
      facts.add(`step ${prev ?? `${w.kind} new`} -> ${state}`);
    });
  };

  /** The states of the run of this scenario object (undefined when it was not observed). */
  statesOf(s: Scenario): ReadonlySet<string> | undefined {
    return this.byScenario.get(s);
  }
}

/** The kind of an error a reconcile ended with: an HTTP status, a store reason, or the error's name. */
function errorKind(error: unknown): string {
  const s = String(error ?? '');
  const http = /HTTP (\d{3})/.exec(s);
  if (http) return `http-${http[1]!}`;
  const reason = /\b(Conflict|NotFound|AlreadyExists|Invalid|Gone|InternalError|ServiceUnavailable|TooManyRequests|Timeout)\b/.exec(s);
  if (reason) return reason[1]!;
  return s.slice(0, s.indexOf(':') > 0 ? s.indexOf(':') : 24);
}

/** The call an entry is, for fault sites: verb and kind, method and endpoint, or watch event and kind. */
function callOf(e: TraceEntry): string {
  if (e.type === 'downstream:request') return `${String(e['method'])} ${String(e['endpoint'] ?? '')}`;
  return `${String(e['verb'])} ${String(e['kind'])}`;
}

/**
 * The behaviour coverage of one run: its observed states (from {@link BehaviourObserver}) plus
 * reconcile outcomes and fault sites read from the trace.
 * @internal
 */
export function runCoverage(run: RunRecord, states: ReadonlySet<string> | undefined): Set<string> {
  const facts = new Set<string>(states ?? []);
  /** The open reconcile of each controller replica, and its last call. */
  const open = new Map<string, { controller: string; last: string }>();
  const replicaOf = (actor: unknown) => (typeof actor === 'string' && actor.startsWith('controller:') ? actor.slice('controller:'.length) : undefined);
  for (const e of run.trace) {
    switch (e.type) {
      case 'reconcile:start':
        open.set(`${String(e['controller'])}/${String(e['replica'])}`, { controller: String(e['controller']), last: 'start' });
        break;
      case 'reconcile:end': {
        const result = String(e['result']);
        facts.add(`outcome ${String(e['controller'])} ${result}${result === 'error' ? ` ${errorKind(e['error'])}` : ''}`);
        open.delete(`${String(e['controller'])}/${String(e['replica'])}`);
        break;
      }
      case 'store:read':
      case 'store:write':
      case 'downstream:request': {
        const r = replicaOf(e['actor']);
        const span = r !== undefined ? open.get(r) : undefined;
        if (span) span.last = callOf(e);
        break;
      }
      case 'fault:inject': {
        const who = e['controller'] ?? replicaOf(e['actor'])?.replace(/\/\d+$/, '');
        const span = [...open.values()].find((s) => s.controller === who);
        const what = e['verb'] ?? e['event'] ?? e['endpoint'] ?? e['point'] ?? '';
        facts.add(`fault ${String(e['kind'])} ${who !== undefined ? String(who) : 'world'} ${String(what)} ${String(e['objectKind'] ?? '')}${span ? ` after ${span.last}` : ' between reconciles'}`);
        break;
      }
      default:
        break;
    }
  }
  return facts;
}

/** The facts seen over a check, and how many runs brought each. @internal */
export class CoverageMap {
  private readonly seen = new Map<string, number>();

  get size(): number {
    return this.seen.size;
  }

  /** Runs that brought this fact (0 when none did). */
  count(fact: string): number {
    return this.seen.get(fact) ?? 0;
  }

  /** Adds a run's facts; returns how many were new. */
  add(facts: Iterable<string>): number {
    let added = 0;
    for (const f of facts) {
      const n = this.seen.get(f);
      if (n === undefined) added++;
      this.seen.set(f, (n ?? 0) + 1);
    }
    return added;
  }
}
