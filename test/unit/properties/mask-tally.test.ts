import { describe, expect, it } from 'vitest';
import { notePaths, tallyOf } from '../../../properties/_internals/masks.js';

const DEFAULTS = ['metadata.generation', 'status.observedGeneration'];
const state = { kind: 'Thing', spec: { slot: 1 }, status: { ready: true } };

describe('MaskTally: the paths seen are kept only for a mask that can be reported', () => {
  it('with only the default masks it keeps no paths (no problem can name a nearest path)', () => {
    const tally = tallyOf(new WeakMap(), { masks: [...DEFAULTS] }, DEFAULTS);
    expect(tally.collectPaths).toBe(false);
    tally.compared++;
    notePaths(tally, state);
    expect(tally.paths.size).toBe(0);
    expect(tally.problems(DEFAULTS, DEFAULTS)).toEqual([]);
  });

  it('with a user mask it keeps them, and a mask that matched nothing names the nearest path', () => {
    const masks = [...DEFAULTS, 'spec.slott'];
    const tally = tallyOf(new WeakMap(), { masks }, DEFAULTS);
    expect(tally.collectPaths).toBe(true);
    tally.compared++;
    notePaths(tally, state);
    expect(tally.paths.has('spec.slot')).toBe(true);
    expect(tally.problems(masks, DEFAULTS)).toEqual(['mask "spec.slott" matches no path in any of the 1 states compared; the nearest path is "spec.slot". Fix the path or remove the mask.']);
  });

  it('is one tally per options object', () => {
    const tallies = new WeakMap<object, ReturnType<typeof tallyOf>>();
    const o = { masks: DEFAULTS };
    expect(tallyOf(tallies, o, DEFAULTS)).toBe(tallyOf(tallies, o, DEFAULTS));
  });
});
