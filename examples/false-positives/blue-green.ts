import { AlreadyExistsError, defineController, defineProperty, deployment, DEFAULT_HISTORY, podLifecycle, PLACEMENT_FIELDS, type Client, type HistorySelector, type JsonObject, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { recovery } from '../../properties/recovery.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef, controllerUid } from './_shared/owner.js';
import { shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A blue/green switch, Argo Rollouts' `blueGreen` strategy in small: a `BlueGreen` runs its image
 * as a ReplicaSet named after the image (`<name>-<hash>`, labelled
 * `rollouts-pod-template-hash`, controlled by it; the ReplicaSet controller and the kubelet are
 * the environment's), and the active Service `<name>` sends traffic to exactly one ReplicaSet,
 * through the hash in its selector. A new image gets its own ReplicaSet next to the serving one;
 * the Service's selector is flipped to it only once it is fully available (every Pod it asks for
 * available, for its current generation); the ReplicaSet switched away from keeps running for
 * `scaleDownDelayMs` after the switch (clients still connected to it, DNS caches, a quick
 * rollback) and is deleted then. A ReplicaSet of an image superseded before it served (a preview
 * the user moved on from) goes after the same delay. An image reverted to while its ReplicaSet
 * still runs reuses it.
 *
 * Which ReplicaSet serves is the Service's selector, read live, never the controller's memory:
 * `status.activeHash` only says it (and names the serving one while the Service is missing, so
 * a Service deleted by hand is made again selecting what served, not a preview). The delay is an
 * annotation on the old ReplicaSet (`scale-down-deadline`, as Argo Rollouts' own
 * `argo-rollouts.argoproj.io/scale-down-deadline`), written after the switch with the
 * resourceVersion read, so a restart, a failover or a second replica keeps it; a ReplicaSet that
 * becomes wanted again (a rollback within the delay) has its deadline removed before the switch.
 *
 * The case's own oracle, `blue-green-switch` (a probe after every write): a switch of the Service
 * to another ReplicaSet happens only when that ReplicaSet has every Pod it asks for available,
 * and the controller never deletes the ReplicaSet switched away from within
 * `scaleDownDelayMs` of the switch (unless it serves again, or the BlueGreen goes).
 *
 * Its buggy twin keeps the time of the switch in memory (per controller incarnation, a map the
 * switching reconcile fills, as a first version with a timer does): a crash, a failover or a
 * second replica after a switch does not know when it happened, takes "never" for "long ago", and
 * deletes the old ReplicaSet at once.
 */
export const BLUE_GREEN = 'BlueGreen';
const RS = 'ReplicaSet';
const HASH_LABEL = 'rollouts-pod-template-hash';
const DEADLINE = 'bluegreen.example.com/scale-down-deadline';

interface BlueGreenSpec {
  image: string;
  replicas: number;
  scaleDownDelayMs: number;
}
interface BlueGreenStatus {
  activeHash?: string;
  phase?: 'Healthy' | 'Progressing';
  observedGeneration?: number;
}
type BlueGreen = StoredObject<BlueGreenSpec, BlueGreenStatus>;

const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const sizeOf = (rs: StoredObject) => int(rs.spec['replicas']);
const hashOf = (image: string) => shortHash(image);
const selectedHash = (svc: StoredObject | undefined): string | undefined => {
  const sel = svc?.spec['selector'] as Record<string, string> | undefined;
  return typeof sel?.[HASH_LABEL] === 'string' ? sel[HASH_LABEL] : undefined;
};
/** Every Pod it asks for is available, for its current generation. */
const fullyAvailable = (rs: StoredObject, replicas: number) =>
  sizeOf(rs) === replicas && replicas > 0 && rs.status['observedGeneration'] === rs.metadata.generation && int(rs.status['availableReplicas']) >= replicas;
const deadlineOf = (rs: StoredObject): number | undefined => {
  const v = Number(rs.metadata.annotations[DEADLINE]);
  return rs.metadata.annotations[DEADLINE] !== undefined && Number.isFinite(v) ? v : undefined;
};

/** The buggy twin's memory: per controller incarnation (its client), when each BlueGreen (uid) last switched. */
const switchedAt = new WeakMap<Client, Map<string, number>>();

function define(mistake: 'none' | 'memory-delay') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const bg: BlueGreen | undefined = await ctx.client.tryGet<BlueGreenSpec, BlueGreenStatus>(BLUE_GREEN, ctx.key, { live: true });
    if (!bg || bg.metadata.deletionTimestamp !== undefined) return undefined;
    const ns = bg.metadata.namespace;
    const now = ctx.clock.now();
    let mem = switchedAt.get(ctx.client);
    if (!mem) switchedAt.set(ctx.client, (mem = new Map()));
    const replicas = Math.max(1, bg.spec.replicas);
    const hash = hashOf(bg.spec.image);
    const name = `${bg.metadata.name}-${hash}`;
    const labels = { app: bg.metadata.name, [HASH_LABEL]: hash };
    const all = (await ctx.client.list(RS, { ...(ns !== undefined ? { namespace: ns } : {}), live: true })).filter((rs) => controlledBy(rs, bg) && rs.metadata.deletionTimestamp === undefined);
    let wanted = all.find((rs) => rs.metadata.name === name);

    // the ReplicaSet of the wanted image, at full size and without a deadline (a rollback within the delay keeps it)
    if (!wanted) {
      try {
        await ctx.client.create({
          apiVersion: 'apps/v1',
          kind: RS,
          metadata: { name, namespace: ns, labels, ownerReferences: [controllerRef(bg)] },
          spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: bg.spec.image }] } } },
        });
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
        // a ReplicaSet of the BlueGreen this one replaced under the same name: the garbage collector removes it
        const there = await ctx.client.get(RS, { namespace: ns, name }, { live: true });
        if (controllerUid(there) !== bg.metadata.uid) return { requeueAfter: 1_000 };
        throw err;
      }
      return undefined; // its status brings us back
    }
    if (sizeOf(wanted) !== replicas || deadlineOf(wanted) !== undefined) {
      const { [DEADLINE]: _gone, ...annotations } = wanted.metadata.annotations;
      wanted = await ctx.client.update({ ...wanted, metadata: { ...wanted.metadata, annotations }, spec: { ...wanted.spec, replicas } });
    }

    // the Service: what it selects is what serves
    const svcRef = { namespace: ns, name: bg.metadata.name };
    const svc = await ctx.client.tryGet('Service', svcRef, { live: true });
    if (svc && controllerUid(svc) !== bg.metadata.uid) return { requeueAfter: 1_000 }; // the old incarnation's, being collected
    const serving = selectedHash(svc) ?? bg.status.activeHash;
    let active = serving !== undefined && all.some((rs) => rs.metadata.labels[HASH_LABEL] === serving) ? serving : undefined;
    if (active !== hash && fullyAvailable(wanted, replicas)) {
      const selector = { app: bg.metadata.name, [HASH_LABEL]: hash };
      if (!svc) {
        await ctx.client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: svcRef.name, namespace: ns, ownerReferences: [controllerRef(bg)] }, spec: { selector, ports: [{ port: 80, targetPort: 8080 }] } });
      } else {
        // with the resourceVersion read: a Service changed meanwhile gets a 409 and a fresh look
        await ctx.client.update({ ...svc, spec: { ...svc.spec, selector } });
      }
      active = hash;
      mem.set(bg.metadata.uid, now);
    } else if (!svc && active !== undefined) {
      // deleted by hand: made again selecting what served
      await ctx.client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: svcRef.name, namespace: ns, ownerReferences: [controllerRef(bg)] }, spec: { selector: { app: bg.metadata.name, [HASH_LABEL]: active }, ports: [{ port: 80, targetPort: 8080 }] } });
    }

    // every other ReplicaSet: a deadline scaleDownDelayMs from now, deleted once it passed
    let nextDue = Infinity;
    for (const rs of all) {
      const h = rs.metadata.labels[HASH_LABEL];
      if (h === hash || h === active) continue;
      let due: number;
      if (mistake === 'memory-delay') {
        // BUG (memory-delay): the switch's time as this incarnation remembers it ("never" is "long ago")
        due = (mem.get(bg.metadata.uid) ?? -Infinity) + bg.spec.scaleDownDelayMs;
      } else {
        const d = deadlineOf(rs);
        if (d === undefined) {
          due = now + bg.spec.scaleDownDelayMs;
          await ctx.client.update({ ...rs, metadata: { ...rs.metadata, annotations: { ...rs.metadata.annotations, [DEADLINE]: String(due) } } });
        } else due = d;
      }
      if (now >= due) await deleteIfPresent(ctx, RS, { namespace: ns, name: rs.metadata.name }, { uid: rs.metadata.uid });
      else nextDue = Math.min(nextDue, due);
    }

    const healthy = active === hash && fullyAvailable(wanted, replicas);
    await writeStatus(ctx, bg, { ...(active !== undefined ? { activeHash: active } : {}), phase: healthy ? 'Healthy' : 'Progressing', observedGeneration: bg.metadata.generation });
    return Number.isFinite(nextDue) ? { requeueAfter: Math.max(100, nextDue - now + 1) } : undefined;
  }
  return defineController({ name: 'bluegreen', for: BLUE_GREEN, owns: [RS, 'Service'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const blueGreenController = define('none');

const PROBE = 'blue-green-switch';
interface Facts {
  [bgUid: string]: { key: string; delay: number; selected: string | null; sets: { hash: string; uid: string; size: number; available: number; observed: boolean }[] };
}

/** See the file's comment: switches only to a fully available ReplicaSet, and the old one kept for the delay. */
export const blueGreenSwitch = defineProperty<Record<string, never>>({
  name: 'blue-green-switch',
  description: 'the Service switches only to a fully available ReplicaSet, and the one switched away from is kept for scaleDownDelayMs',
  defaults: {},
  probes: () => [
    {
      name: PROBE,
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view: WorldView) => {
        const facts: Facts = {};
        for (const bg of view.list(BLUE_GREEN) as unknown as BlueGreen[]) {
          if (bg.metadata.deletionTimestamp !== undefined) continue;
          const svc = view.list('Service').find((s) => s.metadata.namespace === bg.metadata.namespace && s.metadata.name === bg.metadata.name && controlledBy(s, bg));
          const sets = view.list(RS).filter((rs) => controlledBy(rs, bg)).map((rs) => ({ hash: rs.metadata.labels[HASH_LABEL] ?? '', uid: rs.metadata.uid, size: sizeOf(rs), available: int(rs.status['availableReplicas']), observed: rs.status['observedGeneration'] === rs.metadata.generation }));
          facts[bg.metadata.uid] = { key: `${bg.metadata.namespace ?? ''}/${bg.metadata.name}`, delay: bg.spec.scaleDownDelayMs, selected: selectedHash(svc) ?? null, sets };
        }
        return { ok: true, data: facts as unknown as JsonObject };
      },
    },
  ],
  judge: (run: RunRecord): Verdict => {
    const last = new Map<string, string>();
    /** Per BlueGreen uid, the ReplicaSets switched away from: uid → switch time. */
    const retired = new Map<string, Map<string, { t: number; hash: string }>>();
    for (const sample of run.probes[PROBE] ?? []) {
      const facts = (sample.data as unknown as Facts | undefined) ?? {};
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      for (const [uid, f] of Object.entries(facts)) {
        const was = last.get(uid);
        const old = retired.get(uid) ?? new Map<string, { t: number; hash: string }>();
        retired.set(uid, old);
        if (f.selected !== null && was !== undefined && f.selected !== was) {
          const to = f.sets.find((s) => s.hash === f.selected);
          if (!to || !(to.observed && to.size > 0 && to.available >= to.size))
            return {
              ok: false,
              summary: `BlueGreen ${f.key}: the Service switched to ReplicaSet hash ${f.selected} at ${sample.t} ms with ${to ? `${to.available}/${to.size}` : 'no'} Pods available`,
              explanation: `At t=${sample.t} ms the Service of BlueGreen ${f.key} was switched from ${was} to ${f.selected}, whose ReplicaSet ${to ? `had ${to.available} of ${to.size} Pods available` : 'did not exist'}: traffic went to Pods that could not serve it. Switch only once the new ReplicaSet's live status, for its current generation, has every Pod available.`,
              evidence: { blueGreen: f.key, t: sample.t, from: was, to: f.selected },
            };
          const from = f.sets.find((s) => s.hash === was);
          if (from) old.set(from.uid, { t: sample.t, hash: was });
        }
        if (f.selected !== null) {
          last.set(uid, f.selected);
          // serving again: no longer retired
          for (const [rsUid, r] of old) if (r.hash === f.selected) old.delete(rsUid);
        }
        if (!w || !w.actor.startsWith('controller:bluegreen') || w.kind !== RS || w.uid === undefined) continue;
        const r = old.get(w.uid);
        if (!r || sample.t >= r.t + f.delay) continue;
        if (w.removed !== true) continue;
        return {
          ok: false,
          summary: `BlueGreen ${f.key}: ReplicaSet hash ${r.hash} was deleted at ${sample.t} ms, ${sample.t - r.t} ms after the switch away from it (scaleDownDelayMs ${f.delay})`,
          explanation: `At t=${r.t} ms the Service of BlueGreen ${f.key} switched away from ReplicaSet hash ${r.hash}, which must keep running for scaleDownDelayMs (${f.delay} ms): clients still connected to it, and a quick rollback. The controller deleted it at ${sample.t} ms. Keep the deadline where a restarted controller finds it (an annotation on the ReplicaSet), not in memory.`,
          evidence: { blueGreen: f.key, switchedAt: r.t, t: sample.t, hash: r.hash },
        };
      }
    }
    return { ok: true };
  },
});

/** Converged: the Service selects the image's ReplicaSet, fully available; no other ReplicaSet is left; status says Healthy. */
export function switched(view: WorldView): true | string {
  for (const bg of view.list(BLUE_GREEN) as unknown as BlueGreen[]) {
    if (bg.metadata.deletionTimestamp !== undefined) continue;
    const key = `${bg.metadata.namespace ?? ''}/${bg.metadata.name}`;
    const hash = hashOf(bg.spec.image);
    const sets = view.list(RS).filter((rs) => controlledBy(rs, bg));
    const wanted = sets.find((rs) => rs.metadata.labels[HASH_LABEL] === hash);
    if (!wanted || !fullyAvailable(wanted, Math.max(1, bg.spec.replicas))) return `BlueGreen ${key}'s ReplicaSet for ${bg.spec.image} is not fully available`;
    const svc = view.list('Service').find((s) => s.metadata.namespace === bg.metadata.namespace && s.metadata.name === bg.metadata.name && controlledBy(s, bg));
    if (selectedHash(svc) !== hash) return `BlueGreen ${key}'s Service selects ${selectedHash(svc) ?? 'nothing'}, not ${hash}`;
    const other = sets.find((rs) => rs !== wanted);
    if (other) return `BlueGreen ${key}'s old ReplicaSet ${other.metadata.name} is still there`;
    if (bg.status.phase !== 'Healthy' || bg.status.activeHash !== hash || bg.status.observedGeneration !== bg.metadata.generation) return `BlueGreen ${key}'s status ${JSON.stringify(bg.status)} does not report ${hash} Healthy for generation ${bg.metadata.generation}`;
  }
  return true;
}

/** The ReplicaSets of each BlueGreen: which images got one depends on which the controller saw; one is left in the end. */
const REPLICA_SETS: HistorySelector = { kind: RS, labels: [HASH_LABEL], limit: 1 };
const withHistory = (p: ReturnType<typeof sameEndState>) => ({ masks: [...(p.options['masks'] as string[]), ...PLACEMENT_FIELDS], history: [...DEFAULT_HISTORY, REPLICA_SETS] });

export const blueGreen: FalsePositiveCase = {
  name: 'blue-green',
  description: 'an Argo-Rollouts-like blue/green switch: a ReplicaSet per image, the active Service\'s selector flipped only once the new ReplicaSet is fully available, the old one kept for scaleDownDelayMs (a deadline annotation) and deleted then',
  controllers: [blueGreenController],
  options: {
    objects: {
      kind: BLUE_GREEN,
      name: 'shop',
      spec: [
        { image: 'shop:1', replicas: 2, scaleDownDelayMs: 10_000 },
        { image: 'shop:2', replicas: 2, scaleDownDelayMs: 10_000 },
        { image: 'shop:2', replicas: 3, scaleDownDelayMs: 10_000 },
        { image: 'shop:3', replicas: 2, scaleDownDelayMs: 10_000 },
      ],
    },
    environment: [deployment, podLifecycle],
  },
  properties: [blueGreenSwitch(), convergence({ converged: switched }), sameEndState(withHistory(sameEndState())), recovery(withHistory(recovery()))],
  buggy: {
    controllers: [define('memory-delay')],
    caughtBy: ['blue-green-switch'],
    // a switch, then a crash or a second replica within the delay: three BlueGreens and four actions
    // make it likely; seed 8 catches it at run 7 (seeds 4, 7 and 9 within 100 runs as well)
    world: { maxObjects: 3, maxActions: 4 },
    seed: 8,
    why: 'it keeps the time of the switch in memory: a crash, failover or second replica after a switch takes "never" for "long ago" and deletes the ReplicaSet switched away from at once, inside scaleDownDelayMs',
  },
};

