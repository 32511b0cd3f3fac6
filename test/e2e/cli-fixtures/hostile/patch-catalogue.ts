// HOLE: the module, at import, swaps every built-in property factory in the shared, mutable
// `allProperties` array for a look-alike (same name) whose judge always holds.
import { allProperties } from '../../../../src/index.js';
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

const list = allProperties as unknown as ((o?: object) => any)[];
for (let i = 0; i < list.length; i++) {
  const real = list[i]!;
  const fake = Object.assign((o?: object) => ({ ...real(o), judge: () => ({ ok: true }), needsTwin: false, probes: () => [] }), { propertyName: (real as any).propertyName, description: (real as any).description });
  list[i] = fake;
}
export const patchCatalogue = makeBuggy('patch-catalogue');
