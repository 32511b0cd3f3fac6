import type { Arbitrary } from 'fast-check';
import type { Rng } from '../sim/rng.js';
import type { BackgroundFault, FaultEvent } from './fault-plan.js';
import type { World } from './world.js';

/** Where a fault acts (the seam it plugs into). @public */
export type FaultSeam = 'notify' | 'watch' | 'read' | 'write' | 'fetch' | 'call' | 'list' | 'controller' | 'environment';

/** What a fault's generator may know about the scenario it generates faults for. @public */
export interface FaultGenContext {
  /** Controller names in the scenario. */
  controllers: string[];
  /** Primary kinds of those controllers. */
  kinds: string[];
  /** Keys of primary objects the workload creates. */
  keys: string[];
  /** Length of the fault window (ms). */
  faultWindowMs: number;
  /** Upper bound for `nth` indices. */
  maxNth: number;
  /**
   * User writes the scenario's story makes at least (its actions' first attempts): faults that can
   * fail a user's write (`target: 'user'`) generate such events only when this is set.
   * @defaultValue undefined (generated workloads: no user-targeted events)
   */
  userWrites?: number;
}

/** The part of the plan a fault receives when installed. @public */
export interface FaultInstallPlan {
  events: FaultEvent[];
  background: BackgroundFault[];
}

/** Handed to `install`: the world plus helpers every fault needs. @public */
export interface FaultInstallContext {
  world: World;
  /** This fault's own random stream (forked from the scenario seed by kind). */
  rng: Rng;
  /** Records one injection in the trace (for coverage and explanations). */
  fired(detail: Record<string, unknown>): void;
}

/**
 * A fault kind (SPEC §3) as a value: what real event it models, where it acts, a fast-check
 * generator of concrete events, and `install`, which plugs decisions into the world's seams and
 * returns an uninstall function. @public
 */
export interface FaultModule {
  /** File name, CLI name and report name, e.g. `'event-loss'`. */
  readonly kind: string;
  /** The real-world event it models. */
  readonly models: string;
  /** Why a correct reconciler survives it. */
  readonly survivedBy: string;
  readonly actsOn: FaultSeam;
  /**
   * The fault only slows the world while faults act (pods slow to start or to become Ready, claims
   * slow to bind) and lifts when they stop: no control-plane component misbehaves. A correct
   * controller's end state may follow the world's pace (an OrderedReady rollout the user
   * re-partitions while a Pod is stuck stops one Pod along), so a fault-free control plane in
   * the same slow world is a benign run the differential properties also accept.
   * @defaultValue false
   */
  readonly slowsTheWorld?: boolean;
  /** Concrete events for a plan; shrinks toward none. */
  arbitrary(ctx: FaultGenContext): Arbitrary<FaultEvent[]>;
  /** Background rate when swarm testing turns this kind on; shrinks toward 0. Undefined: no background form. */
  backgroundArbitrary?(ctx: FaultGenContext): Arbitrary<BackgroundFault>;
  install(ctx: FaultInstallContext, plan: FaultInstallPlan): () => void;
}

/** Defines a fault module (validates the contract once). @public */
export function defineFault(module: FaultModule): FaultModule {
  if (!/^[a-z][a-z0-9-]*$/.test(module.kind)) throw new TypeError(`steadystate.defineFault: kind must be kebab-case (the file name), got ${JSON.stringify(module.kind)}`);
  if (typeof module.install !== 'function') throw new TypeError(`steadystate.defineFault({ kind: "${module.kind}" }): install(ctx, plan) is required`);
  if (typeof module.arbitrary !== 'function') throw new TypeError(`steadystate.defineFault({ kind: "${module.kind}" }): arbitrary(ctx) is required`);
  return Object.freeze({ ...module });
}
