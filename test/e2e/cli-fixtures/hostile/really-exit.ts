// HOLE (found with red team H7, stop 43): process.reallyExit, Node's native exit under
// process.exit, is not locked at import: called with 0 from the CLI's own thread (`--workers 0`,
// `replay`), it ended the check at once with exit 0 and no verdict, so a buggy module passed CI.
import { makeBuggy } from './buggy.js';
export { checkOptions } from './buggy.js';
(process as unknown as { reallyExit: (code: number) => never }).reallyExit(0);
export const reallyExit = makeBuggy('really-exit');
