// HOLE: an import-time replacement of a built-in (Array.prototype[Symbol.iterator]) that makes
// every list of properties iterate as empty. The run guard only watches built-ins replaced during
// a run; what a module installs at import "is part of it and stays", and the judging runs under it.
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

const values = Array.prototype[Symbol.iterator];
const empty = [][Symbol.iterator];
Array.prototype[Symbol.iterator] = function (this: unknown[]) {
  const first = this.length > 0 ? (this as any)[0] : undefined;
  if (first && typeof first === 'object' && typeof first.judge === 'function' && typeof first.name === 'string') return empty.call([]);
  return values.call(this);
} as any;
Array.prototype.values = Array.prototype[Symbol.iterator];
export const iterPatch = makeBuggy('iter-patch');
