// checkOptions.signal, a field the command owns (stop 52): a module that aborts its own check would
// decide when the verdict is given.
import { makeBuggy, checkOptions as base } from './buggy.js';
export const owned = makeBuggy('owned');
export const checkOptions = { ...base, signal: AbortSignal.abort() };
