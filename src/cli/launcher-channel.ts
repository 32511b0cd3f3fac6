import { randomBytes } from 'node:crypto';
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { endChildProcesses } from '../host/child-processes.js';
import { originals } from '../host/originals.js';

/**
 * The variable bin/steadystate.js (the launcher) sets when it re-spawns the CLI: `<its pid>:<1 if
 * its stdout is a terminal, else 0>`. The CLI then writes its own output to {@link CHANNEL_FD}, and
 * the launcher copies it to the real stdout; this process's fd 1 is the launcher's stderr, so code
 * under test that writes fd 1 directly (`fs.writeSync(1, …)`, pino's sonic-boom, a child process
 * with inherited stdio) cannot reach the verdict's stream (red team H7, stop 43). Must match bin/steadystate.js.
 * @internal
 */
export const CHANNEL_ENV = 'STEADYSTATE_OUTPUT_CHANNEL';
const CHANNEL_FD = 3;
/** A pipe the launcher never writes: it reads end-of-file when the launcher is gone (killed), and the CLI then ends too. */
const LIFELINE_FD = 4;
/** Bytes of one frame at most: a unix-socket write this small is one unit, so a write by code in another thread cannot land inside it. */
const FRAME_BYTES = 4000;

// captured at load, before any checked code: it could replace them (or, through syncBuiltinESMExports, the imported bindings)
const writeFd = writeSync;
const byteLength = Buffer.byteLength.bind(Buffer);
const nextTick = process.nextTick.bind(process);
const reallyExit = originals.reallyExit;

let channel: (NodeJS.WritableStream & { isTTY?: boolean; end(): void }) | null | undefined;

/**
 * The launcher's output channel, when this process is the launcher's child (undefined otherwise):
 * read once, and its variable removed before any checked code loads, so processes that code
 * starts (a nested steadystate among them) do not inherit it. Code under test can write fd 3 too,
 * so every write of the CLI is framed with a key made here and sent first: the launcher copies
 * only framed bytes to stdout, anything else to stderr. The key lives in this module alone.
 * @internal
 */
export function launcherChannel(): (NodeJS.WritableStream & { isTTY?: boolean }) | undefined {
  if (channel !== undefined) return channel ?? undefined;
  channel = null;
  const value = process.env[CHANNEL_ENV];
  if (value === undefined) return undefined;
  delete process.env[CHANNEL_ENV];
  const [pid, tty] = value.split(':');
  // set by a launcher that is not this process's parent: inherited from elsewhere, not ours to use
  if (Number(pid) !== process.ppid) return undefined;
  const key = randomBytes(16).toString('hex');
  try {
    writeFd(CHANNEL_FD, `${key}\n`);
  } catch {
    return undefined;
  }
  watchLauncher();
  let broken = false;
  const frame = (kind: 'D' | 'E', text: string): void => {
    if (broken) return;
    try {
      writeFd(CHANNEL_FD, `${key}${kind}${byteLength(text, 'utf8').toString(16).padStart(8, '0')}${text}`);
    } catch {
      // the launcher is gone (EPIPE) or the fd was closed under us: nobody reads the output any more
      broken = true;
    }
  };
  const send = (chunk: unknown, encoding?: BufferEncoding): void => {
    let text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString(encoding ?? 'utf8') : String(chunk);
    // a frame per FRAME_BYTES: a UTF-16 unit is at most 3 bytes of UTF-8 (a pair, 4), and a pair is never split
    while (text.length > 0) {
      let n = Math.min(text.length, Math.floor((FRAME_BYTES - 41) / 3));
      const last = text.charCodeAt(n - 1);
      if (n < text.length && last >= 0xd800 && last <= 0xdbff) n--;
      frame('D', text.slice(0, n));
      text = text.slice(n);
    }
  };
  const stream = new Writable({
    write(chunk: unknown, encoding: BufferEncoding, cb: (e?: Error | null) => void) {
      send(chunk, encoding);
      cb();
    },
  });
  // own properties, not Writable.prototype's (which code under test can replace): written at once, synchronously
  const write = (chunk: unknown, encoding?: BufferEncoding | ((e?: Error | null) => void), cb?: (e?: Error | null) => void): boolean => {
    send(chunk, typeof encoding === 'string' ? encoding : undefined);
    const done = typeof encoding === 'function' ? encoding : cb;
    if (done) nextTick(done);
    return true;
  };
  const end = (): void => {
    frame('E', '');
    broken = true;
  };
  channel = Object.assign(stream, { write, end, isTTY: tty === '1' }) as unknown as NodeJS.WritableStream & { isTTY?: boolean; end(): void };
  return channel;
}

/**
 * Ends this process (and the processes the checked code started) when the launcher is gone: killed
 * alone (a test's timeout, `kill -9` of the pid a user saw), it can no longer copy the verdict, and
 * the check would run on unseen, an orphan.
 */
function watchLauncher(): void {
  try {
    const lifeline = new Socket({ fd: LIFELINE_FD, readable: true, writable: false });
    const gone = (): void => {
      endChildProcesses();
      reallyExit(1);
    };
    lifeline.on('end', gone);
    lifeline.on('error', gone);
    lifeline.resume();
    // never what keeps this process running
    lifeline.unref();
  } catch {
    // no lifeline (a launcher of another version): the output channel still works
  }
}

/**
 * Tells the launcher the CLI's output is complete (right before the process exits with the
 * verdict): a child that exits without it had its exit forced by other code, and the launcher
 * says so and fails. A no-op outside the launcher.
 * @internal
 */
export function endLauncherChannel(): void {
  channel?.end();
}
