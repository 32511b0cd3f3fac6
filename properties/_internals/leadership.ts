import type { TraceEntry } from '../../src/sim/trace.js';

/** A half-open span of virtual time [from, to). */
export interface Span {
  from: number;
  to: number;
}

/**
 * When each controller process could take keys from its queue, from the trace: the runtime's
 * `Manager` starts a replica active unless its controller elects a leader (then it stands by
 * until its elector takes the Lease, `controller:leader` true), a lost Lease makes it stand by
 * again, and a crash or a retired replica (`controller:stop`) ends it. A replica that ignores the
 * election (the second-replica fault with `leaderElection: false`, split brain) is active while it
 * runs; a controller that never elected has every running replica active.
 */
export class Leadership {
  /** Active spans per `controller/replica`, in time order. */
  private readonly spans = new Map<string, Span[]>();

  constructor(trace: readonly TraceEntry[], end: number) {
    const electing = new Set<string>();
    const unelected = new Set<string>();
    const alive = new Set<string>();
    const since = new Map<string, number>();
    const on = (id: string, t: number) => {
      if (!since.has(id)) since.set(id, t);
    };
    const off = (id: string, t: number) => {
      const from = since.get(id);
      if (from === undefined) return;
      since.delete(id);
      if (t > from) this.list(id).push({ from, to: t });
    };
    for (const e of trace) {
      switch (e.type) {
        case 'controller:start': {
          const c = String(e['controller']);
          const id = `${c}/${Number(e['replica'] ?? 0)}`;
          alive.add(id);
          if (!electing.has(c) || unelected.has(id)) on(id, e.t);
          break;
        }
        case 'controller:crash':
        case 'controller:stop': {
          const id = `${String(e['controller'])}/${Number(e['replica'] ?? 0)}`;
          alive.delete(id);
          off(id, e.t);
          break;
        }
        case 'controller:leader': {
          const m = /^(.*)-(\d+)$/.exec(String(e['identity']));
          if (!m) break;
          const id = `${m[1]!}/${m[2]!}`;
          electing.add(m[1]!);
          if (e['leader'] === true && alive.has(id)) on(id, e.t);
          else if (e['leader'] !== true && !unelected.has(id)) off(id, e.t);
          break;
        }
        case 'fault:inject': {
          if (e['kind'] !== 'second-replica') break;
          const c = String(e['controller']);
          const id = `${c}/${Number(e['replica'] ?? 0)}`;
          if (e['leaderElection'] === false) {
            unelected.add(id);
            if (alive.has(id)) on(id, e.t);
          } else if (e['controllerUsesElection'] === true) electing.add(c);
          break;
        }
        default:
          break;
      }
    }
    for (const id of [...since.keys()]) off(id, end);
  }

  private list(id: string): Span[] {
    let a = this.spans.get(id);
    if (!a) this.spans.set(id, (a = []));
    return a;
  }

  /** Whether the replica could take keys at time t. */
  activeAt(controller: string, replica: number, t: number): boolean {
    return (this.spans.get(`${controller}/${replica}`) ?? []).some((s) => s.from <= t && t < s.to);
  }

  /** How long, within [from, to), the replica could take keys, and the first moment it could. */
  activeWithin(controller: string, replica: number, from: number, to: number): { ms: number; first: number | undefined } {
    let ms = 0;
    let first: number | undefined;
    for (const s of this.spans.get(`${controller}/${replica}`) ?? []) {
      const a = Math.max(s.from, from);
      const b = Math.min(s.to, to);
      if (b <= a) continue;
      ms += b - a;
      first ??= a;
    }
    return { ms, first };
  }
}
