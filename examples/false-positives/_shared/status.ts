import { virtualTimestamp, type ReconcileContext, type StoredObject } from '../../../src/index.js';
import { sameJson } from '../../bug-zoo/shared/same-json.js';

/** A metav1.Condition: lastTransitionTime changes only when status changes; observedGeneration per condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration: number;
}

/**
 * `conditions` with `type` set (meta.SetStatusCondition): a new condition or one whose status
 * changed gets `now` as lastTransitionTime, an unchanged status keeps its old one.
 */
export function setCondition(conditions: readonly Condition[] | undefined, c: Omit<Condition, 'lastTransitionTime'>, now: number): Condition[] {
  const out = [...(conditions ?? [])];
  const i = out.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? out[i] : undefined;
  const next: Condition = { ...c, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : virtualTimestamp(now) };
  if (i >= 0) out[i] = next;
  else out.push(next);
  return out;
}

/** Writes `status` through the status subresource when it differs (optimistic: a stale object gets 409). */
export async function writeStatus<S, T>(ctx: ReconcileContext, obj: StoredObject<S, T>, status: T): Promise<void> {
  if (sameJson(obj.status, status)) return;
  await ctx.client.updateStatus({ ...obj, status });
}
