// RED TEAM stop 42 (F8): the hot-looping controller with checkOptions.corpus.onFailure, a field the command owns:
// the hook rewrote the failure it was handed as a pass (exit 0).
import { makeBuggy, checkOptions as base } from './buggy.js';
export const owned = makeBuggy('owned');
export const checkOptions = { ...base, corpus: { onFailure: (f: { ok: boolean }) => void (f.ok = true) } };
