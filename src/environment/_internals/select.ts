import type { EnvironmentStepInfo } from '../../harness/environment.js';
import type { BackgroundFault, FaultEvent } from '../../harness/fault-plan.js';
import type { Rng } from '../../sim/rng.js';

/**
 * Which objects an environment fault picks, shared by the `environment-*` fault modules: an
 * event with `nth` picks the nth object of the kind the environment took a step on (0-based,
 * in order of first step), `target` narrows to keys starting with it, `at` starts acting at
 * that time; a background rate picks each object once, with that probability (seeded).
 * @internal
 */
export class ObjectPicker {
  private readonly drawn = new Map<string, boolean>();
  private readonly rate: number;

  constructor(
    private readonly events: readonly FaultEvent[],
    background: readonly BackgroundFault[],
    private readonly rng: Rng,
  ) {
    this.rate = background.reduce((r, b) => Math.max(r, b.rate), 0);
  }

  /** The event that picks this object, `'background'`, or undefined. */
  picks(i: EnvironmentStepInfo): FaultEvent | 'background' | undefined {
    for (const e of this.events) {
      if (e.nth !== undefined && e.nth !== i.seq) continue;
      if (e.target !== undefined && !i.key.startsWith(e.target)) continue;
      if (e.at !== undefined && i.t < e.at) continue;
      return e;
    }
    if (this.rate <= 0) return undefined;
    const uid = i.object.metadata.uid;
    let hit = this.drawn.get(uid);
    if (hit === undefined) this.drawn.set(uid, (hit = this.rng.chance(this.rate)));
    return hit ? 'background' : undefined;
  }
}

/** Calls `fired` once per object (the first time a fault acts on it). */
export function oncePerObject(fired: (detail: Record<string, unknown>) => void): (i: EnvironmentStepInfo, how: FaultEvent | 'background', extra?: Record<string, unknown>) => void {
  const seen = new Set<string>();
  return (i, how, extra) => {
    const id = `${i.kind}\u0000${i.object.metadata.uid}`;
    if (seen.has(id)) return;
    seen.add(id);
    fired({ objectKind: i.kind, key: i.key, nth: i.seq, step: i.step, ...(how === 'background' ? { background: true } : {}), ...(extra ?? {}) });
  };
}
