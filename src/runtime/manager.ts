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
 * memory, fresh informers) and runs leader election so only the Lease holder's workers take keys:
 * when the controller asks for it, and, unless it declares `leaderElection: false`, whenever more
 * than one replica runs (as operators are deployed).
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

  /** Whether the replicas elect a leader: as declared, else whenever more than one replica runs. */
  get electing(): boolean {
    return this.elect;
  }
  private elect = false;

  start(): void {
    this.elect = this.def.leaderElection ?? this.options.replicas > 1;
    for (let r = 0; r < this.options.replicas; r++) this.startReplica(r);
  }

  /**
   * Starts one more replica (the second-replica fault). A controller that declares
   * `leaderElection: false` gets a second active replica; any other is deployed with leader
   * election, so the new replica stands by (a single replica that ran without election starts
   * electing now, and wins the free Lease at once). `honourElection: false` makes the new replica
   * ignore the Lease (split brain: a paused leader that does not know its lease expired).
   * Returns a function that stops it for good (no restart).
   */
  addReplica(honourElection: boolean): () => void {
    const replica = this.instances.length;
    if (this.def.leaderElection !== false && !this.elect) {
      this.elect = true;
      for (const inst of this.live()) if (!this.noElection.has(inst.replica)) this.startElector(inst);
    }
    if (!honourElection) this.noElection.add(replica);
    this.startReplica(replica);
    return () => {
      if (!this.retired.has(replica)) this.env.trace.push({ t: this.env.kernel.now(), type: 'controller:stop', controller: this.def.name, replica });
      this.retired.add(replica);
      this.electors[replica]?.stop();
      this.electors[replica] = undefined;
      this.instances[replica]?.shutdown();
    };
  }

  private startReplica(replica: number): void {
    if (this.stopped || this.retired.has(replica)) return;
    const inst = new ControllerInstance(this.env, this.def, replica, (i, reason, restartAfterMs) => this.onCrash(i, reason, restartAfterMs));
    this.instances[replica] = inst;
    if (this.elect && !this.noElection.has(replica)) {
      inst.active = false;
      inst.start();
      this.startElector(inst);
    } else {
      inst.start();
    }
  }

  private startElector(inst: ControllerInstance): void {
    this.electors[inst.replica]?.stop();
    const el = new LeaderElector(this.env, this.def.name, inst.replica, (leader) => inst.setActive(leader));
    this.electors[inst.replica] = el;
    el.start();
  }

  private onCrash(inst: ControllerInstance, _reason: string, restartAfterMs: number | undefined): void {
    this.crashes++;
    this.electors[inst.replica]?.stop();
    this.electors[inst.replica] = undefined;
    this.env.kernel.after(restartAfterMs ?? this.options.restartDelayMs, () => {
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
