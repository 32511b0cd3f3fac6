import { describe, expect, it } from 'vitest';
import { formatSearchTable, ratioInterval, type SearchCell, type Trial } from '../../../bench/search.js';

const trials = (xs: readonly (number | undefined)[]): Trial[] => xs.map((runs) => (runs === undefined ? { found: false, runs: 1000, ms: 0 } : { found: true, runs, ms: 0 }));
/** Guided's own runs to first failure on foreign-child, seeds 1–20 and seeds 21–40: the same mode, two sets of seeds. */
const SEEDS_1_20 = [70, 170, 216, 49, 182, 29, 82, 147, 205, 159, 367, 12, 215, 167, 483, 331, 104, 78, 412, 333];
const SEEDS_21_40 = [197, 358, 57, 34, 114, 192, 305, 337, 75, 46, 368, 47, 130, 100, 100, 356, 15, 318, 182, 68];

describe('the search bench: guided / plain with a bootstrap interval', () => {
  it('one mode against itself on other seeds: a ratio far from 1, an interval that holds 1', () => {
    const r = ratioInterval(trials(SEEDS_1_20), trials(SEEDS_21_40));
    expect(r.ratio).toBeCloseTo(168.5 / 122, 6);
    expect(r.low).toBeLessThan(1);
    expect(r.high).toBeGreaterThan(1);
    // seeded: the same trials give the same interval
    expect(ratioInterval(trials(SEEDS_1_20), trials(SEEDS_21_40))).toEqual(r);
  });

  it('a ten-fold difference is decided: the whole interval is below 1/3', () => {
    const r = ratioInterval(trials(SEEDS_1_20.map((n) => Math.max(1, Math.round(n / 10)))), trials(SEEDS_21_40));
    expect(r.high).toBeLessThan(1 / 3);
  });

  it('the table says met, not met or undecided; a mode finding nothing in half its seeds makes the ratio infinite', () => {
    const cell = (mode: SearchCell['mode'], xs: readonly (number | undefined)[]): SearchCell => ({ exhibit: 'x', mode, trials: trials(xs), median: 0, found: 0, maxFaultEvents: undefined, cap: 1000 });
    const row = (plain: readonly (number | undefined)[], guided: readonly (number | undefined)[]) => formatSearchTable([cell('plain', plain), cell('guided', guided)]).split('\n')[2]!;
    // the same mode on other seeds: not 1/3 of itself
    expect(row(SEEDS_21_40, SEEDS_1_20)).toMatch(/ not met \|$/);
    // a third of the runs on 20 seeds: the interval still reaches above 1/3
    expect(row(SEEDS_21_40, SEEDS_1_20.map((n) => Math.max(1, Math.round(n / 3))))).toMatch(/ undecided \|$/);
    expect(row(SEEDS_21_40, SEEDS_1_20.map((n) => Math.max(1, Math.round(n / 10))))).toMatch(/ met \|$/);
    expect(row(SEEDS_21_40.map((n) => Math.max(1, Math.round(n / 10))), SEEDS_1_20)).toMatch(/ not met \|$/);
    expect(row(SEEDS_21_40, SEEDS_1_20.map(() => undefined))).toMatch(/∞ \[∞–∞\] not met \|$/);
  });
});
