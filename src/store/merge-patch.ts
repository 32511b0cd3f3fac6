import type { Json } from './object.js';

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a member, everything
 * else (arrays included) replaces.
 * @public
 */
export function applyMergePatch(target: Json | undefined, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: { [k: string]: Json } =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete base[k];
    else base[k] = applyMergePatch(base[k], v);
  }
  return base;
}
