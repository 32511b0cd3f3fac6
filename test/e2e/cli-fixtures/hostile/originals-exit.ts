// HOLE (bypasses the stop-40 H4 fix): exitWithVerdict ends with `originals.reallyExit(code)`, but
// `originals` (src/host/originals.ts) is a plain, mutable, exported object. In the CLI's own thread
// (`--workers 0`, `replay`) the module imports the same instance and swaps the saved native exit.
import { originals } from '../../../../src/host/originals.js';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';
const native = originals.reallyExit;
(originals as any).reallyExit = () => native(0);
(originals as any).exit = () => native(0);
export const originalsExit = makeBuggy('originals-exit');
