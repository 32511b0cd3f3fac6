import type { StoredObject } from '../../src/store/object.js';

/**
 * Objects that record history rather than state: revisions a controller keeps for rollback, as a
 * Deployment keeps ReplicaSets, a StatefulSet ControllerRevisions and Helm its release Secrets.
 * Which of them exist, and how they are numbered, depends on which declarations the controller
 * happened to observe: a spec superseded before it was reconciled (a slow controller, or a lost
 * notification that resync repaired) never gets one, a spec that was reverted keeps one. So the
 * properties that compare end states (same-end-state, recovery) leave them out; same-end-state
 * holds them to their `limit` instead, so history that is never pruned is still caught.
 * @public
 */
export interface HistorySelector {
  /** Kind of the history objects. */
  kind: string;
  /** Only objects that carry every one of these label keys (whatever the values). @defaultValue none */
  labels?: string[];
  /** Only objects whose top-level `type` is this (a Secret's type). @defaultValue any */
  type?: string;
  /**
   * At most this many per history in every settled state: one history per controlling owner, or,
   * for objects without one, per value of the `labels` keys (a Helm release's `name`).
   * @defaultValue no limit
   */
  limit?: number;
}

/** Kubernetes' own history: ControllerRevisions, and Helm's release Secrets (one history per release name). */
export const DEFAULT_HISTORY: readonly HistorySelector[] = [
  { kind: 'ControllerRevision' },
  { kind: 'Secret', type: 'helm.sh/release.v1', labels: ['name'] },
];

/** The selector an object falls under, if any. */
export function historyOf(o: StoredObject, selectors: readonly HistorySelector[]): HistorySelector | undefined {
  for (const s of selectors) {
    if (s.kind !== o.kind) continue;
    if (s.type !== undefined && (o as unknown as { type?: unknown }).type !== s.type) continue;
    if (s.labels !== undefined && !s.labels.every((k) => Object.prototype.hasOwnProperty.call(o.metadata.labels, k))) continue;
    return s;
  }
  return undefined;
}

/** A problem with the `history` option, in words, or undefined. */
export function historyProblem(selectors: unknown): string | undefined {
  if (!Array.isArray(selectors)) return 'history must be an array of { kind, labels?, type?, limit? }';
  for (const s of selectors as unknown[]) {
    const h = s as Partial<HistorySelector> | null;
    if (h === null || typeof h !== 'object' || typeof h.kind !== 'string' || h.kind === '') return `each history entry needs a kind (got ${JSON.stringify(s)})`;
    if (h.labels !== undefined && !(Array.isArray(h.labels) && h.labels.every((k) => typeof k === 'string'))) return `history ${h.kind}: labels must be an array of label keys`;
    if (h.type !== undefined && typeof h.type !== 'string') return `history ${h.kind}: type must be a string`;
    if (h.limit !== undefined && !(Number.isInteger(h.limit) && h.limit >= 1)) return `history ${h.kind}: limit must be a whole number ≥ 1 (got ${String(h.limit)})`;
  }
  return undefined;
}

/** One history over its limit. */
export interface HistoryExcess {
  kind: string;
  /** Whose history: `<Kind> <namespace/name>` of the controlling owner, or the label values. */
  of: string;
  limit: number;
  names: string[];
}

/** The histories of `objects` holding more than their selector's limit. */
export function historyExcess(objects: readonly StoredObject[], selectors: readonly HistorySelector[]): HistoryExcess[] {
  const groups = new Map<string, { s: HistorySelector; of: string; names: string[] }>();
  const owners = new Map(objects.map((o) => [o.metadata.uid, o]));
  for (const o of objects) {
    const s = historyOf(o, selectors);
    if (s?.limit === undefined) continue;
    const ref = o.metadata.ownerReferences.find((r) => r.controller === true);
    const owner = ref ? owners.get(ref.uid) : undefined;
    const ns = o.metadata.namespace ?? '';
    const of = ref
      ? `${ref.kind} ${owner ? `${owner.metadata.namespace ? `${owner.metadata.namespace}/` : ''}${owner.metadata.name}` : `${ns ? `${ns}/` : ''}${ref.name}`}`
      : `${ns ? `${ns}: ` : ''}${(s.labels ?? []).map((k) => `${k}=${o.metadata.labels[k] ?? ''}`).join(', ') || 'all'}`;
    const id = `${s.kind}\u0000${ref?.uid ?? of}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { s, of, names: [] }));
    g.names.push(o.metadata.name);
  }
  const out: HistoryExcess[] = [];
  for (const g of groups.values()) if (g.names.length > g.s.limit!) out.push({ kind: g.s.kind, of: g.of, limit: g.s.limit!, names: g.names.sort() });
  return out;
}
