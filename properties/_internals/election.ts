import type { RunRecord } from '../../src/harness/property.js';
import type { TraceEntry } from '../../src/sim/trace.js';

/**
 * Lease renewal traffic: the writes by which a controller renews a Lease it holds, a leader
 * election lock (src/runtime/leader-election.ts every 10 s, client-go's and client-node's electors
 * every RetryPeriod, 2 s) or a lock or heartbeat of its own, on a timer or a resync, whatever the
 * world does. Holding a Lease means renewing it: that is what the kind is for, and a renewal at an
 * elector's pace is no loop. Properties that count controller writes (no-hot-loop, idempotence,
 * convergence's quiet, scheduled work) leave these out, and count every other Lease write like a
 * write of any other kind: a controller that rewrites a lock Lease on every reconcile and requeues
 * itself every 100 ms hot-loops like one that rewrites status (red team H1b).
 *
 * A controller's Lease write is renewal traffic when all of this holds:
 * - it creates the Lease, or changes nothing but an elector's fields (`spec.holderIdentity`,
 *   `spec.renewTime`, `spec.acquireTime`, `spec.leaseTransitions`, `spec.leaseDurationSeconds`,
 *   `spec.preferredHolder`, `spec.strategy`): no delete, no label, annotation or owner change;
 * - it is paced like an elector: the same replica's previous write of that Lease (accepted or
 *   refused) came at least {@link MIN_RENEW_GAP_MS} earlier, or the replica (re)started since
 *   (an elector's first tick is at once). A loop renewing a Lease ten times a second counts, every
 *   write of it but the first.
 * The runtime's own election (`kube-system/<controller>-leader`) passes both tests by construction;
 * a hosted program's elector, on a Lease of any name, too.
 * @internal
 */

/** The shortest time between two renewals of one Lease by one replica (less is a loop: client-go's RetryPeriod is 2 s, the runtime renews every 10 s). */
export const MIN_RENEW_GAP_MS = 1000;

const ELECTOR_FIELDS: ReadonlySet<string> = new Set(['spec.holderIdentity', 'spec.renewTime', 'spec.acquireTime', 'spec.leaseTransitions', 'spec.leaseDurationSeconds', 'spec.preferredHolder', 'spec.strategy']);

/** The runtime's election Lease of the controller whose replica is `actor` (`controller:<name>/<replica>`). */
export function runtimeElectionLease(actor: string): string {
  return `kube-system/${actor.slice('controller:'.length, actor.lastIndexOf('/'))}-leader`;
}

/** Finds the renewal writes of a trace, incrementally (a monitor scans after every write, a judge once). */
export class ElectionScan {
  private index = 0;
  private readonly last = new Map<string, number>();
  private readonly found = new Set<number>();

  /** Scans the entries of `trace` not scanned yet. */
  scan(trace: readonly TraceEntry[]): this {
    for (; this.index < trace.length; this.index++) {
      const e = trace[this.index]!;
      if (e.type === 'controller:start') {
        const prefix = `controller:${String(e['controller'])}/${String(e['replica'] ?? 0)}\u0000`;
        for (const k of [...this.last.keys()]) if (k.startsWith(prefix)) this.last.delete(k);
        continue;
      }
      if (e.type !== 'store:write' || e['kind'] !== 'Lease') continue;
      const actor = String(e['actor']);
      if (!actor.startsWith('controller:')) continue;
      const key = String(e['key']);
      const id = `${actor}\u0000${key}`;
      const previous = this.last.get(id);
      this.last.set(id, e.t);
      if (previous !== undefined && e.t - previous < MIN_RENEW_GAP_MS) continue;
      if (e['verb'] === 'delete' || e['removed'] === true || e['markedForDeletion'] === true) continue;
      const changed = Array.isArray(e['changed']) ? (e['changed'] as unknown[]) : [];
      if (e['verb'] !== 'create' && !changed.every((f) => typeof f === 'string' && ELECTOR_FIELDS.has(f))) continue;
      this.found.add(this.index);
    }
    return this;
  }

  /** Whether the trace entry at `index` (scanned) is a renewal write. */
  has(index: number): boolean {
    return this.found.has(index);
  }
}

const cache = new WeakMap<readonly TraceEntry[], ElectionScan>();

/** The renewal writes of a recorded run (found once per run), by trace index. */
export function electionWrites(run: Pick<RunRecord, 'trace'>): ElectionScan {
  let scan = cache.get(run.trace);
  if (!scan) cache.set(run.trace, (scan = new ElectionScan()));
  return scan.scan(run.trace);
}

/** Whether a write (a timeline write: `index` is its trace index) is left out: its kind is ignored, or it renews a Lease. */
export function leftOut(run: Pick<RunRecord, 'trace'>, ignore: ReadonlySet<string>, w: { kind: string; index: number }): boolean {
  return ignore.has(w.kind) || (w.kind === 'Lease' && electionWrites(run).has(w.index));
}
