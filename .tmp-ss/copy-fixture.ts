import * as ss from 'steadystate';
(globalThis as any).__fixtureNF = ss.NotFoundError;
(globalThis as any).__fixtureURL = import.meta.resolve('steadystate') + ' ' + import.meta.url;
export const c = ss.defineController({ name: 'c', for: 'X', reconcile: async () => {} });
