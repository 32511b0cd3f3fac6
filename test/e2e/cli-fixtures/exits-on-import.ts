/** CLI fixture: a module whose top level calls process.exit(0) (an exit code that must never reach the shell). */
import { defineController } from '../../../src/index.js';

export const web = defineController({ name: 'web', for: 'ReplicaSet', reconcile: () => undefined });
process.exit(0);
