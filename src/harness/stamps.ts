import { VIRTUAL_EPOCH_MS, type StoredObject } from '../store/object.js';

/**
 * Whether a write changed nothing but time stamps of its own moment: every changed path of
 * `obj` (the object after the write at virtual `t`) holds the time of the write, as an RFC 3339
 * string of that instant (to the millisecond, or the second it falls in) or as a Unix time in
 * ms or s (`Date.now()` in a run). `status.lastSyncTime = now` is such a write; one that also changed a
 * phase, a count or a condition (a whole array is one path) is not. A controller that makes a
 * thousand of them in a row with nothing else happening is feeding itself: each stamp's watch
 * event brings the reconcile that stamps again (no-hot-loop's stamping loop).
 * @internal
 */
export function stampsOnly(obj: StoredObject, changed: readonly string[], t: number): boolean {
  if (changed.length === 0 || changed.length > 8) return false;
  for (const path of changed) {
    if (path === '.' || !isStampOf(valueAt(obj, path), t)) return false;
  }
  return true;
}

function isStampOf(v: unknown, t: number): boolean {
  // a Unix time of the instant (ms or s); never bare virtual ms: a counter stepped once per
  // self-fed write (one per virtual millisecond) would equal them
  if (typeof v === 'number') return v === VIRTUAL_EPOCH_MS + t || v === Math.floor((VIRTUAL_EPOCH_MS + t) / 1000);
  // 2026-01-01T00:00:05Z … 2026-01-01T00:00:05.123456789+00:00
  if (typeof v !== 'string' || v.length < 20 || v.length > 35 || v.charCodeAt(4) !== 45 /* - */ || v.charCodeAt(10) !== 84 /* T */) return false;
  const ms = Date.parse(v) - VIRTUAL_EPOCH_MS;
  return ms <= t && ms > t - 1000;
}

/** The value at a changed path (`status.lastSyncTime`); keys may contain dots (`app.kubernetes.io/name`), so each level tries the keys the path starts with. */
function valueAt(v: unknown, path: string): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(o, path)) return o[path];
  for (const k in o) {
    if (path.length > k.length && path.charCodeAt(k.length) === 46 /* . */ && path.startsWith(k)) {
      const found = valueAt(o[k], path.slice(k.length + 1));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
