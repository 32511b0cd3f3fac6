// RED TEAM stop 42 (F10): the hot-looping controller with checkOptions.resumeAt, a field the command owns:
// it skipped the runs asked for, all but the last (exit 0).
import { makeBuggy, checkOptions as base } from './buggy.js';
export const owned = makeBuggy('owned');
export const checkOptions = { ...base, resumeAt: 19 };
