// RED TEAM stop 42 (F2): the hot-looping controller with checkOptions.wallClock + timeLimitMs, a field the command owns:
// its own budget clock cut exactly the failing run, which then counted for nothing (exit 0).
import { makeBuggy, checkOptions as base } from './buggy.js';
export const owned = makeBuggy('owned');
export const checkOptions = { ...base, timeLimitMs: 1, wallClock: () => 0 };
