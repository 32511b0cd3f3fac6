import type { RunRecord } from '../../src/harness/property.js';
import { apiRequestOf, type ApiRequest, type WorldView } from '../../src/harness/world.js';
import type { StoredObject } from '../../src/store/object.js';
import type { DownstreamState } from '../../src/downstream/run-downstream.js';
import type { RestResource } from '../../src/downstream/fake-rest-service.js';
import { at, isRecord, jsonEq } from './json.js';

/**
 * Primary objects and the default "converged" test of SPEC §5: every primary object (not being
 * deleted) has `status.observedGeneration === metadata.generation`.
 * @internal
 */

/** Why one primary object is not converged. */
export interface Unconverged {
  kind: string;
  key: string;
  generation: number;
  observedGeneration: unknown;
  /** `status.replicas 2 ≠ spec.replicas 3`: same-named spec and status fields that disagree. */
  mismatches: string[];
}

export function keyOfObject(o: StoredObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

/** Primary objects among these that are not converged (deleting ones are deletion-completes' business). */
export function unconverged(objects: Iterable<StoredObject>): Unconverged[] {
  const out: Unconverged[] = [];
  for (const o of objects) {
    if (o.metadata.deletionTimestamp !== undefined) continue;
    const og = at(o.status, 'observedGeneration');
    if (og === o.metadata.generation) continue;
    out.push({ kind: o.kind, key: keyOfObject(o), generation: o.metadata.generation, observedGeneration: og, mismatches: mismatches(o) });
  }
  return out;
}

function mismatches(o: StoredObject): string[] {
  const out: string[] = [];
  if (!isRecord(o.spec) || !isRecord(o.status)) return out;
  for (const [k, v] of Object.entries(o.spec)) {
    if (!(k in o.status)) continue;
    const s = (o.status as Record<string, unknown>)[k];
    if (!jsonEq(s, v)) out.push(`status.${k} ${JSON.stringify(s)} ≠ spec.${k} ${JSON.stringify(v)}`);
  }
  return out;
}

/** One line per unconverged object. */
export function fmtUnconverged(u: Unconverged): string {
  const og = u.observedGeneration === undefined ? 'unset' : JSON.stringify(u.observedGeneration);
  return `${u.kind} ${u.key} has status.observedGeneration ${og} ≠ generation ${u.generation}${u.mismatches.length ? ` (${u.mismatches.join(', ')})` : ''}`;
}

/**
 * The default convergence predicate over a world view. With the primary kinds known, every
 * primary object counts; without (a harness that passes no probe context), objects of any kind
 * that report an observedGeneration count.
 */
export function defaultConverged(kinds: readonly string[] | undefined): (view: WorldView) => boolean | string {
  return (view) => {
    const objs: StoredObject[] = [];
    if (kinds) for (const k of kinds) for (const o of view.list(k)) objs.push(o);
    else for (const k of view.kinds()) for (const o of view.list(k)) if (isRecord(o.status) && 'observedGeneration' in o.status) objs.push(o);
    const bad = unconverged(objs);
    if (bad.length === 0) return true;
    return bad.slice(0, 3).map(fmtUnconverged).join('; ') + (bad.length > 3 ? `; and ${bad.length - 3} more` : '');
  };
}

/** The primary objects of a run among `objects`. */
export function primaryObjects(run: RunRecord, objects: readonly StoredObject[]): StoredObject[] {
  const kinds = new Set(run.primaryKinds);
  return objects.filter((o) => kinds.has(o.kind));
}

/**
 * A read-only world view over a fixed set of objects (judging a recorded state with a user
 * predicate); with the run, its downstream as it ended and its requests up to `now`.
 */
export function staticView(objects: readonly StoredObject[], now: number, run?: RunRecord): WorldView {
  const services = (run?.downstream as DownstreamState | null | undefined)?.services ?? [];
  return {
    now: () => now,
    get: (kind, key) => objects.find((o) => o.kind === kind && keyOfObject(o) === key),
    list: (kind) => objects.filter((o) => o.kind === kind),
    kinds: () => [...new Set(objects.map((o) => o.kind))],
    downstream: (service, collection) => {
      const svc = services.find((x) => x.name === service);
      if (!svc) throw new Error(`view.downstream(${JSON.stringify(service)}): the run has no fake downstream service of that name (its services: ${services.map((x) => JSON.stringify(x.name)).join(', ') || 'none'})`);
      return svc.resources.filter((r) => collection === undefined || r.collection === collection).map((r) => r.body as RestResource);
    },
    services: () => services.map((x) => x.name),
    requests: () => (run?.requests ?? []).filter((r) => r.tEnd <= now),
    apiRequests: () => (run?.trace ?? []).map(apiRequestOf).filter((r): r is ApiRequest => r !== undefined && r.t <= now),
  };
}

/**
 * Whether the world was converged when the quiet tail began: the convergence probe's check at
 * that time when it ran, else the default test on the settled objects. Tail judges (idempotence,
 * no-hot-loop) stay quiet on a world still converging: convergence reports that.
 */
export function convergedAtTail(run: RunRecord): boolean {
  const samples = run.probes['convergence'];
  if (samples && samples.length > 0) {
    let last: boolean | undefined;
    for (const s of samples) if (s.t <= run.timing.tailStart) last = s.ok;
    if (last !== undefined) return last;
  }
  return unconverged(primaryObjects(run, run.settledObjects)).length === 0;
}
