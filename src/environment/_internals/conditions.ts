import { fromVirtualTimestamp, virtualTimestamp, type Json, type JsonObject, type StoredObject } from '../../store/object.js';

/**
 * Kubernetes-style status conditions (`{ type, status, reason, message, lastTransitionTime }`)
 * as the built-in actors write them: the transition time only moves when `status` changes, so
 * rewriting the same condition is a no-op write.
 * @internal
 */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

function isRecord(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The conditions of an object's status (empty when absent or malformed). */
export function conditionsOf(obj: StoredObject | undefined): Condition[] {
  const c = obj && isRecord(obj.status) ? obj.status['conditions'] : undefined;
  if (!Array.isArray(c)) return [];
  const out: Condition[] = [];
  for (const x of c as unknown[]) if (isRecord(x) && typeof x['type'] === 'string' && typeof x['status'] === 'string') out.push(x as unknown as Condition);
  return out;
}

/** One condition by type. */
export function findCondition(obj: StoredObject | undefined, type: string): Condition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

/** True when the condition of that type has status "True". */
export function isConditionTrue(obj: StoredObject | undefined, type: string): boolean {
  return findCondition(obj, type)?.status === 'True';
}

/** Virtual ms at which the condition last changed, when it has status `status`. */
export function conditionSince(obj: StoredObject | undefined, type: string, status: Condition['status'] = 'True'): number | undefined {
  const c = findCondition(obj, type);
  if (!c || c.status !== status || typeof c.lastTransitionTime !== 'string') return undefined;
  return fromVirtualTimestamp(c.lastTransitionTime);
}

/**
 * `conditions` with `next` set: an existing condition of that type keeps its transition time
 * when its status did not change. Order is kept; new types are appended.
 */
export function withCondition(conditions: readonly Condition[], next: Omit<Condition, 'lastTransitionTime'>, now: number): Condition[] {
  const out: Condition[] = [];
  let found = false;
  for (const c of conditions) {
    if (c.type !== next.type) {
      out.push(c);
      continue;
    }
    found = true;
    out.push(clean({ ...next, lastTransitionTime: c.status === next.status && c.lastTransitionTime !== undefined ? c.lastTransitionTime : virtualTimestamp(now) }));
  }
  if (!found) out.push(clean({ ...next, lastTransitionTime: virtualTimestamp(now) }));
  return out;
}

/** Sets several conditions at once. */
export function withConditions(conditions: readonly Condition[], next: readonly Omit<Condition, 'lastTransitionTime'>[], now: number): Condition[] {
  let out = [...conditions];
  for (const n of next) out = withCondition(out, n, now);
  return out;
}

function clean(c: Condition): Condition {
  const out: Condition = { type: c.type, status: c.status };
  if (c.reason !== undefined) out.reason = c.reason;
  if (c.message !== undefined) out.message = c.message;
  if (c.lastTransitionTime !== undefined) out.lastTransitionTime = c.lastTransitionTime;
  return out;
}

/** Conditions as JSON for a status patch. */
export function conditionsJson(conditions: readonly Condition[]): Json[] {
  return conditions.map((c) => ({ ...c }) as unknown as JsonObject);
}

/** Virtual ms of an object's creation. */
export function createdAt(obj: StoredObject): number {
  return fromVirtualTimestamp(obj.metadata.creationTimestamp);
}

/** A status field as a number (0 when absent). */
export function statusNumber(obj: StoredObject | undefined, field: string): number {
  const v = obj && isRecord(obj.status) ? obj.status[field] : undefined;
  return typeof v === 'number' ? v : 0;
}

/** A spec field as a number, with a default. */
export function specNumber(obj: StoredObject, field: string, dflt: number): number {
  const v = isRecord(obj.spec) ? obj.spec[field] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : dflt;
}

export { isRecord };
