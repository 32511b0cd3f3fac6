import seedrandom from 'seedrandom';

/**
 * Seeded random numbers. Every random decision in a run draws from a named fork, so adding a
 * consumer in one place does not shift the numbers another place sees (the fault decisions of
 * a replayed scenario stay put when unrelated code changes).
 * @public
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  /** True with the given probability. */
  chance(p: number): boolean;
  /** An independent stream derived from this rng's seed and the label. */
  fork(label: string): Rng;
}

/** @internal */
export function createRng(seed: number | string): Rng {
  return new AleaRng(String(seed));
}

class AleaRng implements Rng {
  private readonly prng: () => number;
  constructor(private readonly seed: string) {
    // alea: fast and good enough for simulation decisions (seedrandom's default ARC4 is ~5x slower)
    this.prng = seedrandom.alea(seed);
  }
  next(): number {
    return this.prng();
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.prng() * (max - min + 1));
  }
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.prng() < p;
  }
  fork(label: string): Rng {
    return new AleaRng(`${this.seed}/${label}`);
  }
}
