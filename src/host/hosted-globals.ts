/**
 * Timers of hosted processes, by handle: `clearTimeout` works on them from any context, as on a
 * real Timeout. Filled by the process sandboxes.
 * @internal
 */
export const virtualTimers = new WeakMap<object, () => void>();

/**
 * The part of the run guard that serves hosted programs: installed with the guard, restored with
 * it. Until a sandbox exists nothing but the timer registry is consulted.
 * @internal
 */
export function installHostedGlobals(): { clearVirtual(timer: unknown): boolean; restore(): void } {
  return {
    clearVirtual(timer) {
      if (typeof timer !== 'object' || timer === null) return false;
      const cancel = virtualTimers.get(timer);
      if (cancel === undefined) return false;
      cancel();
      return true;
    },
    restore() {},
  };
}
