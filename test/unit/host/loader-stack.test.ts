import { runInThisContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { setByModuleLoader } from '../../../src/host/stack.js';

/*
 * setByModuleLoader looks at a short stack first and deeper only when that ran out of frames
 * (speed h50): its answer must be the one the deep look alone gave. Frames of made-up files (a
 * library under node_modules, the loader, the program) come from functions compiled under those
 * names; the chain is called from its outermost frame inward.
 */
function chain(outer: string, libraryFrames: number): () => boolean {
  let fn = runInThisContext(`(function (probe) { return function lib0() { return probe(); }; })`, { filename: '/app/node_modules/lib/f0.js' })(setByModuleLoader) as () => boolean;
  for (let i = 1; i < libraryFrames; i++) fn = runInThisContext(`(function (next) { return function lib${i}() { return next(); }; })`, { filename: `/app/node_modules/lib/f${i}.js` })(fn) as () => boolean;
  return runInThisContext(`(function (next) { return function outer() { return next(); }; })`, { filename: outer })(fn) as () => boolean;
}

describe('whether a timer is set by the module loader', () => {
  for (const depth of [2, 7, 8, 9, 30]) {
    it(`a library's frames (${depth}) called by the loader: the loader's`, () => {
      expect(chain('node:internal/modules/cjs/loader', depth)()).toBe(true);
    });
    it(`a library's frames (${depth}) called by the program: the program's`, () => {
      expect(chain('/app/main.js', depth)()).toBe(false);
    });
  }
  it("a loader frame deeper than the deep look (48 frames) is not seen: the program's, as before", () => {
    expect(chain('node:internal/modules/cjs/loader', 60)()).toBe(false);
  });
});
