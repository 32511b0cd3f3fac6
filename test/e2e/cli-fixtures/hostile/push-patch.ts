// HOLE candidate: an import-time Array.prototype.push that drops PropertyFailure records
// ({ property, summary, explanation, evidence }). judgeRun collects failures with push, so no
// failure is ever recorded; the property list is untouched (not empty), so the stop-40 guard
// (result.properties.length === 0) does not fire.
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';
const push = Array.prototype.push;
Array.prototype.push = function (this: unknown[], ...items: unknown[]) {
  const x = items[0] as any;
  if (items.length === 1 && x && typeof x === 'object' && 'property' in x && 'summary' in x && 'explanation' in x && 'evidence' in x) return this.length;
  return push.apply(this, items);
} as any;
export const pushPatch = makeBuggy('push-patch');
