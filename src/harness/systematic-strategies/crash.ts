import type { FaultEvent } from '../fault-plan.js';
import { DerivationBuilder, type Derivation, type Strategy } from './strategy.js';
import { fmtEntryObject, type ReconcileSpan, type Step, type TraceIndex } from './trace-index.js';

/**
 * The crash strategies (Sieve's intermediate states): a controller dies between two steps of a
 * reconcile (its store writes that changed something and its mutating downstream requests), so
 * the first step happened and the next never will. A point before a reconcile's first step or
 * after its last is pruned: nothing is half-done there (a crash there is a crash between
 * reconciles). Each point is reachable from both sides (after step k, before step k + 1); only
 * the first plan for a point runs.
 */

function crash(controller: string, point: string, nth: number): FaultEvent[] {
  return [{ kind: 'crash-restart', nth, target: controller, params: { point } }];
}

function stepWords(s: Step): string {
  const e = s.at.entry;
  return s.type === 'write' ? `${String(e['verb'])} ${fmtEntryObject(e)}` : `${String(e['method'])} ${String(e['url'])}`;
}

function pointId(r: ReconcileSpan, gap: number): string {
  return `reconcile ${r.startIndex} after step ${gap}`;
}

function reconcileWords(r: ReconcileSpan): string {
  return `${r.controller}'s reconcile of ${r.key} at t=${r.start.t} ms`;
}

/**
 * The writes of the fault window that are steps of a reconcile, with their step index; the others
 * are pruned (a write that changed nothing, failed, or ran outside a reconcile).
 */
function writeSteps(ix: TraceIndex, b: DerivationBuilder): { w: TraceIndex['writes'][number]; r: ReconcileSpan; k: number }[] {
  const out: { w: TraceIndex['writes'][number]; r: ReconcileSpan; k: number }[] = [];
  for (const w of ix.writes) {
    const r = w.reconcile;
    const k = r ? r.steps.findIndex((s) => s.type === 'write' && s.at === w) : -1;
    if (r && k >= 0) out.push({ w, r, k });
    else b.prune('a write that changed nothing, failed, or ran outside a reconcile');
  }
  return out;
}

/** Crash right after each write that is not the last step of its reconcile. */
export const crashAfterWrite: Strategy = {
  name: 'crash-after-write',
  kind: 'crash-restart',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('crash-after-write');
    for (const { w, r, k } of writeSteps(ix, b)) {
      if (k === r.steps.length - 1) b.prune('after the last step of a reconcile: nothing half-done');
      else b.add({ target: `after write #${w.perController} of ${w.controller}: ${stepWords(r.steps[k]!)} at t=${w.entry.t} ms, before ${stepWords(r.steps[k + 1]!)} (${reconcileWords(r)})`, events: crash(w.controller, 'after-write', w.perController), at: w.index, point: pointId(r, k) });
    }
    return b.result();
  },
};

/** Crash right before each write that is not the first step of its reconcile. */
export const crashBeforeWrite: Strategy = {
  name: 'crash-before-write',
  kind: 'crash-restart',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('crash-before-write');
    for (const { w, r, k } of writeSteps(ix, b)) {
      if (k === 0) b.prune('before the first step of a reconcile: nothing half-done');
      else b.add({ target: `before write #${w.perController} of ${w.controller}: ${stepWords(r.steps[k]!)} at t=${w.entry.t} ms, after ${stepWords(r.steps[k - 1]!)} (${reconcileWords(r)})`, events: crash(w.controller, 'before-write', w.perController), at: w.index, point: pointId(r, k - 1) });
    }
    return b.result();
  },
};

/** Crash right before and right after each mutating downstream request, where that is between two steps. */
export const crashAroundRequest: Strategy = {
  name: 'crash-around-request',
  kind: 'crash-restart',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('crash-around-request');
    for (const q of ix.requests) {
      if (q.entry['mutating'] !== true) {
        b.prune('around a read-only request: the same state as around the steps next to it', 2);
        continue;
      }
      const r = q.reconcile;
      const k = r ? r.steps.findIndex((s) => s.type === 'request' && s.at === q) : -1;
      if (!r || k < 0) {
        b.prune('a request outside a reconcile', 2);
        continue;
      }
      const what = stepWords(r.steps[k]!);
      if (k === 0) b.prune('before the first step of a reconcile: nothing half-done');
      else b.add({ target: `before request #${q.perController} of ${q.controller}: ${what} at t=${Number(q.entry['start'] ?? q.entry.t)} ms, after ${stepWords(r.steps[k - 1]!)} (${reconcileWords(r)})`, events: crash(q.controller, 'before-fetch', q.perController), at: q.index, point: pointId(r, k - 1) });
      if (k === r.steps.length - 1) b.prune('after the last step of a reconcile: nothing half-done');
      else b.add({ target: `after request #${q.perController} of ${q.controller}: ${what} answered ${String(q.entry['status'])} at t=${q.entry.t} ms, before ${stepWords(r.steps[k + 1]!)} (${reconcileWords(r)})`, events: crash(q.controller, 'after-fetch', q.perController), at: q.index, point: pointId(r, k) });
    }
    return b.result();
  },
};
