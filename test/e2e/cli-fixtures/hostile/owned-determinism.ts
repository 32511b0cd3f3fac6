// RED TEAM stop 42 (F1): the hot-looping controller with checkOptions.determinism: false, a field the command owns:
// a controller that hot-loops only while the process is cold passed once the disproved early stop restarted the check (exit 0).
import { makeBuggy, checkOptions as base } from './buggy.js';
export const owned = makeBuggy('owned');
export const checkOptions = { ...base, determinism: false as const };
