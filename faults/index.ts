import type { FaultModule } from '../src/harness/fault.js';
import { eventLoss } from './event-loss.js';

/** Every built-in fault kind, by its camelCase name (msw `http` style). @public */
export const faults = {
  eventLoss,
} as const;

/** Every built-in fault module, in a stable order. @public */
export const allFaults: readonly FaultModule[] = Object.values(faults);

export { eventLoss };
