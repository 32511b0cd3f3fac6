import type { FaultCoverage } from './check-result.js';
import type { FaultPlan } from './fault-plan.js';
import type { RunRecord } from './property.js';

/** Kinds a plan enables (names in any event or background rate). @internal */
export function enabledKinds(plan: FaultPlan): string[] {
  const s = new Set<string>();
  for (const e of plan.events) s.add(e.kind);
  for (const b of plan.background) s.add(b.kind);
  return [...s];
}

/** Injections per fault kind in one run (its `fault:inject` trace entries). @internal */
export function injectionsByKind(run: RunRecord): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of run.trace) {
    if (e.type !== 'fault:inject') continue;
    const kind = String(e['kind']);
    m.set(kind, (m.get(kind) ?? 0) + 1);
  }
  return m;
}

/**
 * What the reconcilers did, without times and versions: their store writes (verb, object,
 * changed fields, outcome) and mutating downstream calls, in order; then, as a multiset (so
 * other timings alone do not count), what they did without writing: reconciles run, requests
 * sent to the API (method and path, a watch marked as such), process exits. Two runs with equal
 * fingerprints made the same decisions, even if at different times.
 * @internal
 */
export function behaviourFingerprint(run: RunRecord): string {
  const parts: string[] = [];
  for (const w of run.writes) {
    if (!w.actor.startsWith('controller:')) continue;
    parts.push(`${w.actor} ${w.verb} ${w.kind} ${w.key} ${w.changed.join(',')} ${w.noop ? 'noop' : ''} ${w.error ?? ''}`);
  }
  for (const r of run.requests) if (r.mutating) parts.push(`${r.actor} ${r.method} ${r.endpoint} ${r.status}`);
  const quiet: string[] = [];
  for (const e of run.trace) {
    if (e.type === 'reconcile:start') quiet.push(`reconcile ${String(e['controller'])} ${String(e['key'])}`);
    else if (e.type === 'http:request') quiet.push(`${String(e['controller'])}/${String(e['replica'])} ${String(e['method'])} ${pathOnly(String(e['path']))}${e['watch'] === true ? ' watch' : ''} ${String(e['status'])}`);
    else if (e.type === 'process:exit') quiet.push(`exit ${String(e['controller'])}/${String(e['replica'])} ${String(e['kind'])} ${String(e['code'])}`);
  }
  return `${parts.join('\n')}\n--\n${quiet.sort().join('\n')}`;
}

/** A request path without its query (resource versions and timeouts differ between equal behaviours). */
function pathOnly(path: string): string {
  const q = path.indexOf('?');
  return q < 0 ? path : path.slice(0, q);
}

/**
 * Fault coverage over a check (SPEC §6): per kind, in how many scenarios it was enabled, how
 * many injections happened, and in how many scenarios with injections the reconcilers' behaviour
 * differed from the fault-free twin. When several kinds fired in one scenario, each of them is
 * credited with the change (attributing it to one would need a run per kind).
 * @internal
 */
export class CoverageTracker {
  private readonly rows = new Map<string, FaultCoverage>();

  constructor(kinds: readonly string[]) {
    for (const k of kinds) this.rows.set(k, { kind: k, enabled: 0, injected: 0, changedBehaviour: 0 });
  }

  private row(kind: string): FaultCoverage {
    let r = this.rows.get(kind);
    if (!r) this.rows.set(kind, (r = { kind, enabled: 0, injected: 0, changedBehaviour: 0 }));
    return r;
  }

  /** Records one run; `twin` is the fault-free run of the same scenario (needed only when something fired). */
  add(run: RunRecord, twin: RunRecord | undefined): void {
    for (const k of enabledKinds(run.scenario.faults)) this.row(k).enabled++;
    const inj = injectionsByKind(run);
    if (inj.size === 0) return;
    const changed = twin !== undefined && behaviourFingerprint(run) !== behaviourFingerprint(twin);
    for (const [k, n] of inj) {
      const r = this.row(k);
      r.injected += n;
      if (changed) r.changedBehaviour++;
    }
  }

  /** Kinds that were enabled at least once but never fired. */
  unfired(): string[] {
    return [...this.rows.values()].filter((r) => r.enabled > 0 && r.injected === 0).map((r) => r.kind);
  }

  result(): FaultCoverage[] {
    return [...this.rows.values()];
  }
}
