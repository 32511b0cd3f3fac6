import type { ControllerDefinition } from './define-controller.js';
import type { RuntimeEnv } from './env.js';
import { ControllerInstance } from './controller.js';
import { LeaderElector } from './leader-election.js';
import type { Rng } from '../sim/rng.js';

/**
 * API latency while two replicas of a controller are active (the second-replica fault): each
 * call is a round trip of `roundTripMs`, half out and half back, each leg longer by a draw in
 * [0, `jitterMs`] from a stream of `rng` per replica. @internal
 */
export interface CallLatency {
  roundTripMs: number;
  jitterMs: number;
  rng?: Rng;
}

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
  /**
   * Extra replicas active next to the others (split brain or declared without election), with
   * the API latency their fault gave: while one runs, every replica's calls take time, so two
   * replicas' reads and writes interleave. Each replica draws its jitter from its own stream.
   */
  private readonly overlapping = new Map<number, CallLatency>();
  private readonly jitterStreams = new Map<number, Rng>();

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
   * While two replicas are active, each API call of a reconcile (a live read, a write) takes
   * `latency` (none given: no time, but it still yields to the kernel), so the other replica's
   * calls land between a read and the write decided from it.
   * Returns a function that stops it for good (no restart).
   */
  addReplica(honourElection: boolean, latency?: CallLatency): () => void {
    const replica = this.instances.length;
    if (this.def.leaderElection !== false && !this.elect) {
      this.elect = true;
      for (const inst of this.live()) if (!this.noElection.has(inst.replica)) this.startElector(inst);
    }
    if (!honourElection) this.noElection.add(replica);
    if (!(this.elect && honourElection)) {
      this.overlapping.set(replica, latency ?? { roundTripMs: 0, jitterMs: 0 });
      this.setLatency();
    }
    this.startReplica(replica);
    return () => {
      if (!this.retired.has(replica)) this.env.trace.push({ t: this.env.kernel.now(), type: 'controller:stop', controller: this.def.name, replica });
      this.retired.add(replica);
      if (this.overlapping.delete(replica)) this.setLatency();
      this.electors[replica]?.stop();
      this.electors[replica] = undefined;
      this.instances[replica]?.shutdown();
    };
  }

  /**
   * The legs of a replica's API calls now (the latest overlapping replica's latency), or
   * undefined while no extra replica is active.
   */
  private legsFor(replica: number): ((leg: 'request' | 'response') => number) | undefined {
    let latency: CallLatency | undefined;
    for (const l of this.overlapping.values()) latency = l;
    if (latency === undefined) return undefined;
    const { roundTripMs, jitterMs } = latency;
    let rng: Rng | undefined;
    if (jitterMs > 0 && latency.rng !== undefined) {
      rng = this.jitterStreams.get(replica);
      if (rng === undefined) this.jitterStreams.set(replica, (rng = latency.rng.fork(`${this.def.name}/${replica}`)));
    }
    const out = Math.floor(roundTripMs / 2);
    return (leg) => (leg === 'request' ? out : roundTripMs - out) + (rng === undefined ? 0 : rng.int(0, jitterMs));
  }

  private setLatency(): void {
    for (const inst of this.instances) if (inst) inst.callLegMs = this.legsFor(inst.replica);
  }

  private startReplica(replica: number): void {
    if (this.stopped || this.retired.has(replica)) return;
    const inst = new ControllerInstance(this.env, this.def, replica, (i, reason, restartAfterMs) => this.onCrash(i, reason, restartAfterMs));
    inst.callLegMs = this.legsFor(replica);
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
