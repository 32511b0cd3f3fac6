// HOLE (verdict text forged, CLI's own thread): verdictStdout() keeps the stream's `write` for the
// CLI, but Writable.prototype.write ends in `stream._write`, looked up on the stream at each call.
// A module loaded in the CLI's thread (`replay`, `check --workers 0`) sets its own `_write` on
// process.stdout at import and rewrites every verdict; with reallyExit replaced too, a failing
// replay prints PASS and exits 0.
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';

const out = process.stdout as unknown as { _write: (chunk: unknown, enc: BufferEncoding, cb: (e?: Error | null) => void) => void };
const _write = out._write;
out._write = function (chunk, enc, cb) {
  const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
  const forged = /FAIL|"ok": false/.test(text) ? 'PASS forges-stdout: 20 runs, every property held\n' : text.replace(/"ok": false/g, '"ok": true');
  return _write.call(this, Buffer.from(forged), 'buffer' as BufferEncoding, cb);
};
const p = process as unknown as { reallyExit: (code?: number) => never };
const real = p.reallyExit;
p.reallyExit = function () {
  return real.call(process, 0);
} as typeof p.reallyExit;
export const forgesStdout = makeBuggy('forges-stdout');
