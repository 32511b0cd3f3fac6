import type { ControllerDefinition } from './define-controller.js';
import type { RuntimeEnv } from './env.js';
import { ControllerInstance } from './controller.js';
import { LeaderElector } from './leader-election.js';

/** Options of a {@link Manager}. @internal */
export interface ManagerOptions {
  replicas: number;
  /** Virtual ms between a crash and the restart of the replica. @defaultValue 1000 */
  restartDelayMs: number;
}

/**
 * Runs the replicas of one controller, restarts a crashed replica with a fresh instance (empty
 * memory, fresh informers) and, when the controller asks for it, runs leader election so only
 * the Lease holder's workers take keys.
 * @internal
 */
export class Manager {
  readonly instances: ControllerInstance[] = [];
  private readonly electors: (LeaderElector | undefined)[] = [];
  crashes = 0;
  private stopped = false;
  /** Extra replicas that ignore leader election (split brain), and stopped extra replicas. */
  private readonly noElection = new Set<number>();
  private readonly retired = new Set<number>();

  constructor(
    private readonly env: RuntimeEnv,
    readonly def: ControllerDefinition,
    private readonly options: ManagerOptions,
  ) {}

  start(): void {
    for (let r = 0; r < this.options.replicas; r++) this.startReplica(r);
  }

  /**
   * Starts one more replica (the second-replica fault). It takes part in the controller's leader
   * election unless `honourElection` is false (a split-brain replica that ignores the Lease).
   * Returns a function that stops it for good (no restart).
   */
  addReplica(honourElection: boolean): () => void {
    const replica = this.instances.length;
    if (!honourElection) this.noElection.add(replica);
    this.startReplica(replica);
    return () => {
      this.retired.add(replica);
      this.electors[replica]?.stop();
      this.electors[replica] = undefined;
      this.instances[replica]?.shutdown();
    };
  }

  private startReplica(replica: number): void {
    if (this.stopped || this.retired.has(replica)) return;
    const inst = new ControllerInstance(this.env, this.def, replica, (i, reason) => this.onCrash(i, reason));
    this.instances[replica] = inst;
    if (this.def.leaderElection && !this.noElection.has(replica)) {
      inst.active = false;
      this.electors[replica]?.stop();
      const el = new LeaderElector(this.env, this.def.name, replica, (leader) => inst.setActive(leader));
      this.electors[replica] = el;
      inst.start();
      el.start();
    } else {
      inst.start();
    }
  }

  private onCrash(inst: ControllerInstance, _reason: string): void {
    this.crashes++;
    this.electors[inst.replica]?.stop();
    this.electors[inst.replica] = undefined;
    this.env.kernel.after(this.options.restartDelayMs, () => {
      if (this.instances[inst.replica] === inst) this.startReplica(inst.replica);
    });
  }

  /** Live instances (crashed ones waiting for restart are skipped). */
  live(): ControllerInstance[] {
    return this.instances.filter((i) => i.alive);
  }

  /** Forces every live instance to relist (the settle phase). */
  relistAll(): void {
    for (const i of this.live()) i.relist();
  }

  stop(): void {
    this.stopped = true;
    for (const e of this.electors) e?.stop();
    for (const i of this.instances) i.shutdown();
  }
}
