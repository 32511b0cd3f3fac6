import type { RunRecord } from '../../src/harness/property.js';
import { timelineOf, type TimelineWrite } from './timeline.js';

/**
 * Pod-template changes of workloads: the writes that make the environment replace Pods (a
 * Deployment rolls every Pod over to a new ReplicaSet, a StatefulSet or DaemonSet deletes and
 * recreates each Pod), so one made for nothing is as destructive as deleting the Pods, although
 * the controller deleted nothing itself. Counted by no-extra-destructive-actions.
 * @internal
 */

/** Kinds whose `spec.template` is a Pod template the environment rolls Pods over to. */
export const TEMPLATE_KINDS: readonly string[] = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job'];

/** Whether a changed field path lies in the Pod template (`spec.template`, `spec.template.metadata.annotations`). */
export const inTemplate = (path: string): boolean => path === 'spec.template' || path.startsWith('spec.template.');

/**
 * Whether a write changed the Pod template of a workload of one of `kinds` in place: accepted,
 * not a no-op, neither a create nor a delete (those count as such), and the object still there.
 */
export function changesTemplate(w: TimelineWrite, kinds: ReadonlySet<string>): boolean {
  return kinds.has(w.kind) && w.error === undefined && !w.noop && w.verb !== 'create' && w.verb !== 'delete' && w.removed !== true && w.changed.some(inTemplate);
}

/** The template paths a write changed (for the explanation). */
export const templatePaths = (w: TimelineWrite): string[] => w.changed.filter(inTemplate);

/**
 * The trace indices of the controller writes the API server applied while their answer was lost
 * (an api-error timeout or reset with `applied`, of any verb): the controller saw a failure and
 * rightly tries again. A retry of a template change that carries the moment it was made (a
 * `restartedAt: now`) changes the template once more, a restart the controller could not know it
 * had already asked for.
 */
export function unansweredWrites(run: RunRecord): Set<number> {
  const out = new Set<number>();
  const trace = run.trace;
  for (let i = 0; i < trace.length; i++) {
    const f = trace[i]!;
    if (f.type !== 'fault:inject' || f['kind'] !== 'api-error' || f['applied'] !== true) continue;
    // the store's record of the applied write comes right after the decision, in the same instant
    for (let j = i + 1; j < trace.length && trace[j]!.t === f.t; j++) {
      const w = trace[j]!;
      if (w.type !== 'store:write' || w['actor'] !== f['actor']) continue;
      if (w['error'] === undefined) out.add(j);
      break;
    }
  }
  return out;
}

const GENERATED_SUFFIX = '[bcdfghjklmnpqrstvwxz2456789]{5}';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * How many Pods of a workload the environment deleted in a run: what its template changes cost.
 * Pods are told by name, as the built-in environment makes them: a Deployment's through the
 * ReplicaSets its rollouts made (`<replicaset>-<5 characters>`), a StatefulSet's by ordinal
 * (`<name>-<n>`), the others' by generated name (`<name>-<5 characters>`). Undefined when the run
 * holds no Pod of it (no environment runs it, or another controller does, under other names).
 */
export function podsDeleted(run: RunRecord, kind: string, key: string): number | undefined {
  const tl = timelineOf(run);
  const slash = key.indexOf('/');
  const ns = slash < 0 ? '' : key.slice(0, slash + 1);
  const name = key.slice(slash + 1);
  let owners: string[];
  if (kind === 'Deployment') {
    owners = [];
    for (const e of run.trace) if (e.type === 'environment:step' && e['step'] === 'deployment:rollout' && e['key'] === key && typeof e['replicaSet'] === 'string') owners.push(e['replicaSet']);
    if (owners.length === 0) return undefined;
  } else owners = [name];
  const shape = new RegExp(`^${escape(ns)}(?:${owners.map(escape).join('|')})-${kind === 'StatefulSet' ? '\\d+' : GENERATED_SUFFIX}$`);
  let seen = false;
  let deleted = 0;
  for (const w of tl.writes) {
    if (w.kind !== 'Pod' || w.error !== undefined || !shape.test(w.key)) continue;
    seen = true;
    if (w.verb === 'delete' && !w.noop && w.actor.startsWith('environment:') && (w.removed || w.markedForDeletion)) deleted++;
  }
  return seen ? deleted : undefined;
}
