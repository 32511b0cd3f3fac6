// HOLE rt42 F4 (red team, stop 42): steadystate's own classes were writable. The module patches
// ObjectStore.prototype.record (ObjectStore is a public export) at import so that the controller's
// status writes never reach the run's write log: no-hot-loop, convergence and the trace never hear
// of them, and the hot loop passed. The CLI now freezes its classes before the module loads.
import { ObjectStore } from '../../../../src/index.js';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

type Write = { actor: string; changed: string[] };
const proto = ObjectStore.prototype as unknown as { record(w: Write): void };
const record = proto.record;
proto.record = function (this: unknown, w: Write) {
  if (w.actor.includes('store-proto') && w.changed.every((c) => c.startsWith('status.'))) return;
  return record.call(this, w);
};
export const storeProto = makeBuggy('store-proto');
