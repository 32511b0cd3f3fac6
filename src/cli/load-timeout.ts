// apart from import-module.ts (esbuild, code frames): the main thread of a check reads it without loading those
/** How long a module's top level may run, unless STEADYSTATE_LOAD_TIMEOUT_MS says otherwise. @internal */
export const DEFAULT_LOAD_TIMEOUT_MS = 30_000;

/** The loading timeout (wall-clock ms): STEADYSTATE_LOAD_TIMEOUT_MS, else {@link DEFAULT_LOAD_TIMEOUT_MS}. @internal */
export function loadTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['STEADYSTATE_LOAD_TIMEOUT_MS'];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_LOAD_TIMEOUT_MS;
}
