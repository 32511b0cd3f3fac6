import { isStoreError } from '../store/errors.js';
import type { ScheduledEvent } from '../sim/scheduler.js';
import type { RuntimeEnv } from './env.js';

/** client-go leaderelection defaults, in virtual ms. @internal */
export const LEASE_DURATION_MS = 15_000;
export const RENEW_PERIOD_MS = 10_000;
export const RETRY_PERIOD_MS = 2_000;

/**
 * Lease-based leader election on a `Lease` object in the store (coordination.k8s.io style):
 * acquire by create or by taking over an expired lease with an optimistic-concurrency update,
 * renew periodically; losing a renewal means losing leadership.
 * @internal
 */
export class LeaderElector {
  private timer: ScheduledEvent | undefined;
  private leader = false;
  private stopped = false;
  private readonly identity: string;
  private readonly leaseName: string;
  private readonly actor: string;

  constructor(
    private readonly env: RuntimeEnv,
    controller: string,
    replica: number,
    private readonly onChange: (leader: boolean) => void,
  ) {
    this.identity = `${controller}-${replica}`;
    this.leaseName = `${controller}-leader`;
    this.actor = `controller:${controller}/${replica}`;
  }

  start(): void {
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.timer.cancelled = true;
  }

  private tick(): void {
    if (this.stopped) return;
    const { store, kernel, trace } = this.env;
    const now = kernel.now();
    const actor = this.actor;
    const was = this.leader;
    try {
      const cur = store.peek('Lease', `kube-system/${this.leaseName}`);
      if (!cur) {
        store.create(actor, { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { name: this.leaseName, namespace: 'kube-system' }, spec: { holderIdentity: this.identity, renewTime: now, leaseDurationSeconds: LEASE_DURATION_MS / 1000 } });
        this.leader = true;
      } else {
        const holder = cur.spec['holderIdentity'];
        const renew = Number(cur.spec['renewTime'] ?? 0);
        if (holder === this.identity || now - renew > LEASE_DURATION_MS) {
          store.update(actor, { ...cur, spec: { ...cur.spec, holderIdentity: this.identity, renewTime: now } });
          this.leader = true;
        } else {
          this.leader = false;
        }
      }
    } catch (err) {
      if (!isStoreError(err)) throw err;
      this.leader = false;
    }
    if (this.leader !== was) {
      trace.push({ t: now, type: 'controller:leader', identity: this.identity, leader: this.leader });
      this.onChange(this.leader);
    }
    this.timer = kernel.after(this.leader ? RENEW_PERIOD_MS : RETRY_PERIOD_MS, () => this.tick());
  }
}
