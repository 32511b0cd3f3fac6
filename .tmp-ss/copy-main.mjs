import { register } from 'tsx/esm/api';
register();
const m = await import('../src/store/errors.ts');
const f = await import(new URL('./copy-fixture.ts', import.meta.url).href);
console.error('main vs fixture NotFoundError same:', globalThis.__fixtureNF === m.NotFoundError);
