import type { RunRecord } from '../../src/harness/property.js';
import { apiRequestOf, type ApiRequest, type WorldView } from '../../src/harness/world.js';
import type { StoredObject } from '../../src/store/object.js';
import { Declarations, esrProbe, judgeState, reportingKinds } from './esr.js';
import type { DownstreamState } from '../../src/downstream/run-downstream.js';
import type { RestResource } from '../../src/downstream/fake-rest-service.js';
import { at, isRecord, jsonEq } from './json.js';

/**
 * Primary objects, and whether the world had converged when the quiet tail began.
 * @internal
 */

export function keyOfObject(o: StoredObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
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
 * Whether the world was converged when the quiet tail began: the convergence probe's last check
 * by then (a user predicate's answer, or the default judgement's declared objects reporting their
 * generation), else the default judgement on the settled objects. Only the state counts, not
 * quiet: a world that keeps writing is what the tail judges (no-hot-loop, idempotence) diagnose.
 * Tail judges stay quiet on a world still converging: convergence reports that.
 */
export function convergedAtTail(run: RunRecord): boolean {
  let c = convergedCache.get(run);
  if (c === undefined) convergedCache.set(run, (c = judgeConvergedAtTail(run)));
  return c;
}

/** {@link convergedAtTail} per run (idempotence and no-hot-loop both ask). */
const convergedCache = new WeakMap<RunRecord, boolean>();

function judgeConvergedAtTail(run: RunRecord): boolean {
  const samples = run.probes['convergence'];
  const declarations = new Declarations(run.trace, run.primaryKinds);
  const reporting = reportingKinds([run], 'convergence');
  let last = samples?.filter((s) => s.t <= run.timing.tailStart).at(-1);
  if (!last) {
    const t = run.timing.tailStart;
    const r = esrProbe(run.primaryKinds)(staticView(run.settledObjects, t));
    last = { t, ok: r.ok, ...(r.data ? { data: r.data } : {}) };
  }
  if (last.data === undefined) return last.ok;
  return judgeState(last, declarations, reporting).ok;
}
