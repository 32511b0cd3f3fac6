// HOLE (same family as really-exit.ts): at import, wrap process.emit so the 'exit' event sets
// process.exitCode = 0 and runs no listener (exitWithVerdict's last listener, which restores the
// verdict's code, never runs). Node's process.exit then calls reallyExit(process.exitCode || 0).
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

const emit = process.emit;
process.emit = function (this: NodeJS.Process, event: string | symbol, ...args: unknown[]) {
  if (event === 'exit') {
    process.exitCode = 0;
    return false;
  }
  return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
} as typeof process.emit;
export const emitExit = makeBuggy('emit-exit');
