import type { JsonObject, StoredObject } from '../store/object.js';
import type { World } from './world.js';

/**
 * An environment actor (SPEC §2.2): a simulated peer of the controller (pods becoming Ready,
 * PVCs binding), recorded in the trace as `environment:<name>` so properties never blame the
 * controller for its writes. `install` returns an uninstall function.
 * @public
 */
export interface EnvironmentActor {
  readonly name: string;
  readonly description: string;
  install(world: World, params: JsonObject): () => void;
}

/**
 * A step an environment actor is about to take (a pod turning Ready, a PVC binding, a
 * ReplicaSet creating a pod): the environment seam faults plug into.
 * @public
 */
export interface EnvironmentStepInfo {
  /** Virtual time (ms). */
  t: number;
  /** The actor's name (`pod-lifecycle`). */
  actor: string;
  /** What is about to happen, `noun:verb`: `pod:schedule`, `pod:start`, `pod:ready`, `pod:run`, `pvc:bind`, `replicaset:create-pod`, … */
  step: string;
  /** Kind and key of the object the step acts on. */
  kind: string;
  key: string;
  /** Immutable snapshot of that object: never mutate it. */
  object: StoredObject;
  /** Index of this object (by uid) among the objects of its kind the environment took a step on (0-based): what a fault's `nth` counts. */
  seq: number;
  /** Which repetition of the step (a restart count, a replica slot), so one object can take a step many times. */
  instance: string;
}

/**
 * What a fault decides about an environment step (a closed set, like the runtime seams):
 * `block` holds the step back (until `untilMs`, or until faults stop), `delay` postpones it
 * once by `ms`, `fail` makes it fail in the way that step fails (a container exits).
 * @public
 */
export type EnvironmentDecision =
  | { type: 'proceed' }
  | { type: 'block'; untilMs?: number }
  | { type: 'delay'; ms: number }
  | { type: 'fail'; reason: string };

/** Hooks a fault installs on the environment seam; `undefined` from a hook means proceed. @public */
export interface EnvironmentHooks {
  onStep?: (info: EnvironmentStepInfo) => EnvironmentDecision | undefined;
}

const PROCEED: EnvironmentDecision = { type: 'proceed' };

/**
 * The environment seam of one world. Hooks are consulted only inside the fault window (the
 * settle phase heals the environment too); a `delay` is remembered per step instance so a
 * level-triggered actor that looks again early is told to wait for the rest, and is asked
 * afresh once it has passed.
 * @public
 */
export class EnvironmentSeams {
  private readonly hooks: NonNullable<EnvironmentHooks['onStep']>[] = [];
  private readonly seqs = new Map<string, Map<string, number>>();
  private readonly delayedUntil = new Map<string, number>();
  private readonly pokes = new Set<(kind: string) => void>();

  constructor(private readonly world: World) {}

  /** Faults act only while this is true (the fault window). */
  get active(): boolean {
    return this.world.seams.active;
  }

  get hasHooks(): boolean {
    return this.hooks.length > 0;
  }

  /** Installs hooks; returns the uninstall function. */
  install(h: EnvironmentHooks): () => void {
    const fn = h.onStep;
    if (!fn) return () => undefined;
    this.hooks.push(fn);
    return () => {
      const i = this.hooks.indexOf(fn);
      if (i >= 0) this.hooks.splice(i, 1);
    };
  }

  /** Asks the environment what to do about a step (first non-proceed decision wins, in installation order). */
  decide(info: Omit<EnvironmentStepInfo, 'seq' | 't'>): EnvironmentDecision {
    const t = this.world.kernel.now();
    const seq = this.seqOf(info.kind, info.object.metadata.uid);
    if (!this.active) {
      if (this.delayedUntil.size > 0) this.delayedUntil.clear();
      return PROCEED;
    }
    const memo = `${info.actor}\u0000${info.step}\u0000${info.object.metadata.uid}\u0000${info.instance}`;
    const until = this.delayedUntil.get(memo);
    if (until !== undefined) {
      if (t < until) return { type: 'delay', ms: until - t };
      this.delayedUntil.delete(memo);
      return PROCEED;
    }
    if (this.hooks.length === 0) return PROCEED;
    const full: EnvironmentStepInfo = { ...info, t, seq };
    for (const h of this.hooks) {
      const d = h(full);
      if (d === undefined || d.type === 'proceed') continue;
      if (d.type === 'delay') {
        if (!(d.ms > 0)) continue;
        this.delayedUntil.set(memo, t + d.ms);
      }
      return d;
    }
    return PROCEED;
  }

  /** Asks every actor that drives `kind` to look at all its objects again now (a fault that starts acting on running pods). */
  poke(kind: string): void {
    for (const p of [...this.pokes]) p(kind);
  }

  /** Registers an actor's poke handler; returns the unregister function. */
  onPoke(fn: (kind: string) => void): () => void {
    this.pokes.add(fn);
    return () => this.pokes.delete(fn);
  }

  private seqOf(kind: string, uid: string): number {
    let m = this.seqs.get(kind);
    if (!m) this.seqs.set(kind, (m = new Map()));
    let n = m.get(uid);
    if (n === undefined) m.set(uid, (n = m.size));
    return n;
  }
}

const seamsOf = new WeakMap<World, EnvironmentSeams>();

/**
 * The environment seam of a world (created on first use): actors ask it before each step,
 * environment faults install hooks on it.
 * @public
 */
export function environmentSeams(world: World): EnvironmentSeams {
  let s = seamsOf.get(world);
  if (!s) seamsOf.set(world, (s = new EnvironmentSeams(world)));
  return s;
}
