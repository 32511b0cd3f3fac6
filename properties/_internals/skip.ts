import { nothingToJudge, type RunRecord, type Verdict } from '../../src/harness/property.js';
import { timelineOf } from './timeline.js';

/**
 * Faults that change the world itself (an out-of-band edit, an object deleted and recreated, pods
 * evicted and replaced, containers restarted):
 * after them a correct reconciler legitimately ends somewhere else, or acts more, than a
 * fault-free run. Properties that compare against another run skip runs where one fired.
 * @internal
 */
export const WORLD_CHANGING_FAULTS: readonly string[] = ['drift', 'recreation', 'environment-pod-eviction', 'environment-crash-looping-pod'];

/** The kinds among `kinds` that injected something in this run. */
export function firedKinds(run: RunRecord, kinds: readonly string[]): string[] {
  const want = new Set(kinds);
  return [...new Set(timelineOf(run).faults.map((f) => String(f['kind'])).filter((k) => want.has(k)))];
}

/** The verdict of a comparison skipped because a world-changing fault fired. */
export function skipped(kinds: readonly string[]): Verdict {
  return nothingToJudge(`${kinds.join(', ')} changed the world itself, so no other run is comparable`);
}

/**
 * When the world is healed: the settle phase start, or later when a downstream call an injected
 * hang or latency held was still in flight then (it stays a fault until it times out). Infinity
 * when such a call was still held at the end of the run.
 */
export function healedAt(run: RunRecord): number {
  let t = run.timing.settleStart;
  for (const s of timelineOf(run).stalls) t = Math.max(t, s.to ?? Infinity);
  return t;
}

/** The verdict of a judgement skipped because an injected stall outlasted the settle phase. */
export function stillStalled(at: number): Verdict {
  return nothingToJudge(`a downstream call held by an injected hang or latency was still in flight at t=${at} ms`);
}

/**
 * Kinds the properties that compare two runs leave out by default: leader-election Leases (their
 * holders and renew times differ by timing) and core/v1 Events, which the Kubernetes API documents
 * as "informative, best-effort, supplemental data": a recorder drops an Event whose create failed
 * and a retried reconcile records one twice, so how many a run ends with says nothing about the
 * state it converged to. Idempotence and hot-loop checks still count Event writes (event spam is load).
 * @internal
 */
export const RECORD_KINDS: readonly string[] = ['Lease', 'Event'];
