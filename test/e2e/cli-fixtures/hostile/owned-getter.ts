// RED TEAM stop 42 (G1): owned-flip.ts behind a getter that answers `undefined` to its first read
// (the refusal's) and the corpus callback after, so the refusal saw nothing and the check got it.
import { makeBuggy, checkOptions as base } from './buggy.js';
export const owned = makeBuggy('owned');
let reads = 0;
const flip = (f: { ok: boolean }) => void (f.ok = true);
const corpus = Object.defineProperty({}, 'onFailure', { get: () => (reads++ === 0 ? undefined : flip), enumerable: true });
export const checkOptions = { ...base, corpus };
