/** CLI fixture: one correct controller; prints the node options the checked code runs under (stderr). */
import type { CheckOptions } from '../../../src/harness/check-options.js';
export { levelTriggered } from '../../../examples/replicas/level-triggered.js';
export const checkOptions: CheckOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 1 }], status: { replicas: 0 } } };
process.stderr.write(`EXEC-ARGV ${JSON.stringify(process.execArgv)}\n`);
