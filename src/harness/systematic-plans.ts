import type { TraceEntry } from '../sim/trace.js';
import type { FaultEvent } from './fault-plan.js';
import type { RunRecord } from './property.js';

/**
 * The systematic strategies (SPEC §3), each a way to derive single-fault plans from a fault-free
 * reference run, after the research tools that find controller bugs this way (Sieve, Acto):
 * - `crash-after-write`: crash the controller right after its k-th write, for every k
 *   (intermediate-state bugs: the first of two writes happened, the second never will);
 * - `stale-read-before-write`: make the cached read each write was decided on one version stale,
 *   by holding back the watch delivery before it until after the write (stale-state bugs);
 * - `unobserved-state`: drop the watch event of each state that a later write cancels, so the
 *   controller never sees it (unobserved-state bugs);
 * - `unnotified-state`: the cache sees that state, but the notification that would reconcile it
 *   is dropped.
 * @public
 */
export type SystematicStrategy = 'crash-after-write' | 'stale-read-before-write' | 'unobserved-state' | 'unnotified-state';

/** Every strategy, in the order they run. @public */
export const ALL_STRATEGIES: readonly SystematicStrategy[] = ['crash-after-write', 'stale-read-before-write', 'unobserved-state', 'unnotified-state'];

/** The fault kind each strategy's plans use. @public */
export const STRATEGY_FAULT: Readonly<Record<SystematicStrategy, string>> = {
  'crash-after-write': 'crash-restart',
  'stale-read-before-write': 'stale-snapshot',
  'unobserved-state': 'watch-event-loss',
  'unnotified-state': 'event-loss',
};

/** One derived plan: its concrete events and what in the reference run it targets, in words. @internal */
export interface DerivedPlan {
  strategy: SystematicStrategy;
  events: FaultEvent[];
  target: string;
}

function settleIndex(trace: readonly TraceEntry[]): number {
  const i = trace.findIndex((e) => e.type === 'run:phase' && e['phase'] === 'settle');
  return i < 0 ? trace.length : i;
}

const isControllerWrite = (e: TraceEntry) => e.type === 'store:write' && typeof e['actor'] === 'string' && (e['actor'] as string).startsWith('controller:') && e['fault'] === undefined;

/** Controller name of an actor `controller:<name>/<replica>`. */
function controllerOf(actor: string): string {
  return actor.slice('controller:'.length, actor.lastIndexOf('/'));
}

/** Crash right after each controller write of the fault window (per controller, k = 0, 1, …). */
export function crashAfterWritePlans(ref: RunRecord): DerivedPlan[] {
  const end = settleIndex(ref.trace);
  const perController = new Map<string, number>();
  const out: DerivedPlan[] = [];
  for (let i = 0; i < end; i++) {
    const e = ref.trace[i]!;
    if (!isControllerWrite(e)) continue;
    const c = controllerOf(e['actor'] as string);
    const k = perController.get(c) ?? 0;
    perController.set(c, k + 1);
    out.push({ strategy: 'crash-after-write', target: `after write #${k} of ${c}: ${e['verb']} ${e['kind']} ${e['key']} at t=${e.t} ms`, events: [{ kind: 'crash-restart', nth: k, target: c, params: { point: 'after-write' } }] });
  }
  return out;
}

/**
 * Make the cached read each controller write was decided on one version stale, the way a real
 * cache is: the watch delivery that brought the read object's last version before the read is
 * held back (a lagging watch) until just after the write, so the read sees the version before it.
 */
export function staleReadPlans(ref: RunRecord): DerivedPlan[] {
  const end = settleIndex(ref.trace);
  const lastRead = new Map<string, TraceEntry>();
  /** The last delivery per informer stream (`controller/replica/kind`) and per object on it. */
  const lastDelivery = new Map<string, TraceEntry>();
  const done = new Set<number>();
  const out: DerivedPlan[] = [];
  for (let i = 0; i < end; i++) {
    const e = ref.trace[i]!;
    if (e.type === 'watch:event' && e['decision'] === 'deliver' && e['replay'] !== true && typeof e['seq'] === 'number') {
      const stream = `${String(e['controller'])}/${String(e['replica'])}/${String(e['kind'])}`;
      lastDelivery.set(stream, e);
      lastDelivery.set(`${stream}/${String(e['key'])}`, e);
      continue;
    }
    if (e.type === 'store:read' && e['cached'] === true) {
      lastRead.set(String(e['actor']), e);
      continue;
    }
    if (!isControllerWrite(e)) continue;
    const r = lastRead.get(String(e['actor']));
    if (!r) continue;
    const m = /^controller:(.*)\/(\d+)$/.exec(String(r['actor']));
    if (!m) continue;
    const stream = `${m[1]}/${m[2]}/${String(r['kind'])}`;
    const d = (r['key'] !== undefined ? lastDelivery.get(`${stream}/${String(r['key'])}`) : undefined) ?? lastDelivery.get(stream);
    if (!d || d.t > r.t || done.has(d['seq'] as number)) continue;
    done.add(d['seq'] as number);
    out.push({
      strategy: 'stale-read-before-write',
      target: `cached ${r['verb']} of ${r['kind']}${r['key'] ? ` ${r['key']}` : ''} by ${r['actor']} at t=${r.t} ms, before its ${e['verb']} of ${e['key']}`,
      // held until just after the write: the read shows the object as it was before that delivery
      events: [{ kind: 'stale-snapshot', nth: d['seq'] as number, params: { lagMs: e.t - d.t + 1, forMs: 1 } }],
    });
  }
  return out;
}

/**
 * States that a later write cancels: per object, each successful write followed by another that
 * touches one of the same fields, restores the earlier content, or removes the object.
 */
function cancelledStates(ref: RunRecord, end: number): { write: TraceEntry; by: TraceEntry }[] {
  const byObject = new Map<string, TraceEntry[]>();
  for (let i = 0; i < end; i++) {
    const e = ref.trace[i]!;
    if (e.type !== 'store:write' || e['noop'] === true || e['error'] !== undefined || e['rv'] === undefined) continue;
    const id = `${e['kind']} ${e['key']}`;
    const list = byObject.get(id);
    if (list) list.push(e);
    else byObject.set(id, [e]);
  }
  const out: { write: TraceEntry; by: TraceEntry }[] = [];
  for (const writes of byObject.values()) {
    for (let i = 0; i + 1 < writes.length; i++) {
      const w = writes[i]!;
      const next = writes[i + 1]!;
      const changed = new Set((w['changed'] as string[] | undefined) ?? []);
      const overlaps = ((next['changed'] as string[] | undefined) ?? []).some((p) => changed.has(p));
      const restores = i > 0 && next['digest'] !== undefined && next['digest'] === writes[i - 1]!['digest'];
      if (next['removed'] === true || overlaps || restores) out.push({ write: w, by: next });
    }
  }
  return out.sort((a, b) => a.write.t - b.write.t || Number(a.write['rv']) - Number(b.write['rv']));
}

/** Drop every watch delivery of each cancelled state (the controller never sees it). */
export function unobservedStatePlans(ref: RunRecord): DerivedPlan[] {
  const end = settleIndex(ref.trace);
  const out: DerivedPlan[] = [];
  for (const { write, by } of cancelledStates(ref, end)) {
    const seqs = ref.trace.slice(0, end).filter((e) => e.type === 'watch:event' && e['decision'] === 'deliver' && e['rv'] === write['rv'] && typeof e['seq'] === 'number').map((e) => e['seq'] as number);
    if (seqs.length === 0) continue;
    out.push({ strategy: 'unobserved-state', target: stateWords(write, by), events: [...new Set(seqs)].map((nth) => ({ kind: 'watch-event-loss', nth })) });
  }
  return out;
}

/** Drop the notifications each cancelled state's delivery caused (the cache sees it, nothing reconciles it). */
export function unnotifiedStatePlans(ref: RunRecord): DerivedPlan[] {
  const end = settleIndex(ref.trace);
  const out: DerivedPlan[] = [];
  for (const { write, by } of cancelledStates(ref, end)) {
    const seqs: number[] = [];
    for (let i = 0; i < end; i++) {
      const e = ref.trace[i]!;
      if (e.type !== 'watch:event' || e['decision'] !== 'deliver' || e['rv'] !== write['rv']) continue;
      // the handler runs synchronously after the delivery: its notifications follow at once
      for (let j = i + 1; j < end; j++) {
        const n = ref.trace[j]!;
        if (n.type !== 'informer:notify') break;
        if (n['controller'] === e['controller'] && n['replica'] === e['replica'] && n['decision'] === 'deliver' && typeof n['seq'] === 'number') seqs.push(n['seq'] as number);
      }
    }
    if (seqs.length === 0) continue;
    out.push({ strategy: 'unnotified-state', target: stateWords(write, by), events: [...new Set(seqs)].map((nth) => ({ kind: 'event-loss', nth })) });
  }
  return out;
}

function stateWords(w: TraceEntry, by: TraceEntry): string {
  const what = by['removed'] === true ? 'removed it' : `${by['verb']} by ${by['actor']} changed ${((by['changed'] as string[] | undefined) ?? []).join(', ') || 'it'}`;
  return `the state of ${w['kind']} ${w['key']} written by ${w['actor']} (${w['verb']}, rv ${w['rv']}) at t=${w.t} ms, cancelled at t=${by.t} ms (${what})`;
}

/** The plans of one strategy. @internal */
export function derivePlans(strategy: SystematicStrategy, ref: RunRecord): DerivedPlan[] {
  switch (strategy) {
    case 'crash-after-write':
      return crashAfterWritePlans(ref);
    case 'stale-read-before-write':
      return staleReadPlans(ref);
    case 'unobserved-state':
      return unobservedStatePlans(ref);
    case 'unnotified-state':
      return unnotifiedStatePlans(ref);
  }
}
