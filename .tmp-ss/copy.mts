import { check } from '../src/check.js';
import { sharedCopy, checkOptions } from '../test/e2e/cli-fixtures/shared-copy.js';
import * as viaName from 'steadystate';
import * as viaPath from '../src/index.js';
console.log('same module', viaName.NotFoundError === viaPath.NotFoundError, import.meta.resolve('steadystate'));
const r = await check(sharedCopy, { ...checkOptions, runs: 5, seed: 1, faults: [], properties: undefined });
console.log(r.ok, r.ok ? '' : r.explanation.slice(0, 400));
