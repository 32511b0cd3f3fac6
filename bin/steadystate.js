#!/usr/bin/env node
// The `steadystate` command (package.json `bin`). In a checkout (src/ present, right after
// `npm ci`, no build needed) it runs the TypeScript sources: tsx is registered first, globally
// (tsx's register(), not tsImport()), so the CLI's .ts modules load and a user's module importing
// them shares one copy of steadystate. In the published package (no src/) it runs the build,
// dist/src/cli/bin.js, which registers tsx only when it loads a user's module.
//
// A command that loads checked code runs in a child process (this file again), whose fd 1 is this
// process's stderr: code that writes fd 1 directly (fs.writeSync(1, …), pino's sonic-boom, a child
// with inherited stdio) cannot put a line before the verdict or break --json (red team H7, stop
// 43). The CLI's own output comes over fd 3, framed with a key the child sends first (code under
// test can write fd 3 too: unframed bytes go to stderr), and is copied here to stdout. Plain node,
// no tsx, so the extra process costs one bare node start; --help, --version, demo and merge do not pay it.
import { existsSync } from 'node:fs';

// must match CHANNEL_ENV in src/cli/io.ts
const CHANNEL = 'STEADYSTATE_OUTPUT_CHANNEL';
const args = process.argv.slice(2);

/**
 * V8 flags of the child. A check of a few hundred runs is mostly JIT warm-up: at V8's default
 * budget (a function is considered for TurboFan after 66 KiB of its bytecode ran) the compiler
 * threads spent more CPU than the simulating thread, compiling functions that ran a few more
 * times at most (a 100-run check: 1.8 s of compiler and GC threads against 1.6 s simulating).
 * Four times the budget optimizes only what stays hot: 100 runs −17% CPU, 1,000 runs −11%, a
 * hot-loop find + shrink −14% (scratch/speed/REPORT.md, h48). The JIT never changes what code
 * computes. Only on V8 11 (Node 20 and 21), where the flag and its default are known: an unknown
 * flag makes node exit with "bad option". A user's own `node --interrupt-budget=…` comes later
 * in the child's argv and wins.
 */
const JIT_FLAGS = /^11\./.test(process.versions.v8) ? ['--interrupt-budget=270336'] : [];

// only the commands that load the checked code (demo runs the package's examples, merge reads JSON)
if (process.env[CHANNEL] === undefined && (args[0] === 'check' || args[0] === 'replay') && !(args.length === 2 && (args[1] === '--help' || args[1] === '-h'))) {
  await launch();
} else if (existsSync(new URL('../src/cli/bin.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  globalThis[Symbol.for('steadystate.tsx-registered')] = true;
  await import(new URL('../src/cli/bin.ts', import.meta.url).href);
} else {
  await import(new URL('../dist/src/cli/bin.js', import.meta.url).href);
}

async function launch() {
  const [{ spawn }, { isatty }] = await Promise.all([import('node:child_process'), import('node:tty')]);
  // only finish() decides the exit code: if the event loop ran dry before it, that is a failure
  process.exitCode = 1;
  // process.argv[1] as invoked (a node_modules/.bin link stays one): the checked code sees the command line it saw before
  const child = spawn(process.execPath, [...JIT_FLAGS, ...process.execArgv, process.argv[1], ...args], {
    // fd 3: the CLI's output; fd 4: never written, it ends the child when this process is killed (src/cli/io.ts)
    stdio: ['inherit', 2, 'inherit', 'pipe', 'pipe'],
    env: { ...process.env, [CHANNEL]: `${process.pid}:${isatty(1) ? 1 : 0}` },
  });
  // a terminal's ^C reaches both processes; a kill of this one alone is passed on (the child's exit decides)
  const forward = (signal) => () => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward(signal));
  // a reader that went away (`| head`) must not end this process before the child's exit code is known
  process.stdout.on('error', () => {});

  const KEY = 32;
  const HEADER = KEY + 1 + 8;
  let buf = Buffer.alloc(0);
  /** undefined: the key is not read yet; null: the child never sent one (everything is foreign) */
  let key;
  let need = 0;
  let ended = false;
  const foreign = (bytes) => {
    if (bytes.length > 0) process.stderr.write(bytes);
  };
  const feed = (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    for (;;) {
      if (key === undefined) {
        if (buf.length < KEY + 1) return;
        const head = buf.subarray(0, KEY).toString('latin1');
        key = /^[0-9a-f]{32}$/.test(head) && buf[KEY] === 10 ? buf.subarray(0, KEY) : null;
        if (key !== null) buf = buf.subarray(KEY + 1);
        continue;
      }
      if (key === null) {
        foreign(buf);
        buf = Buffer.alloc(0);
        return;
      }
      if (need > 0) {
        const n = Math.min(need, buf.length);
        if (n === 0) return;
        if (!ended) process.stdout.write(buf.subarray(0, n));
        buf = buf.subarray(n);
        need -= n;
        continue;
      }
      const at = buf.indexOf(key);
      if (at < 0) {
        // the end may hold the start of the key: keep what could be
        let keep = Math.min(buf.length, KEY - 1);
        while (keep > 0 && !buf.subarray(buf.length - keep).equals(key.subarray(0, keep))) keep--;
        foreign(buf.subarray(0, buf.length - keep));
        buf = buf.subarray(buf.length - keep);
        return;
      }
      foreign(buf.subarray(0, at));
      buf = buf.subarray(at);
      if (buf.length < HEADER) return;
      const kind = String.fromCharCode(buf[KEY]);
      const length = Number.parseInt(buf.subarray(KEY + 1, HEADER).toString('latin1'), 16);
      buf = buf.subarray(HEADER);
      if (kind === 'E') {
        ended = true;
        if (exited !== undefined) finish();
      } else need = Number.isNaN(length) ? 0 : length;
    }
  };
  const channel = child.stdio[3];
  channel.on('data', feed);
  channel.on('error', () => {});
  channel.on('end', () => {
    if (exited !== undefined) finish();
  });

  /** [code, signal] once the child exited */
  let exited;
  let done = false;
  child.on('error', (err) => {
    process.stderr.write(`steadystate: could not start the command: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    exited = [code, signal];
    if (ended || channel.readableEnded) finish();
    // a process the child started may hold fd 3 open after it: wait briefly for what is still in the
    // pipe; the immediate runs after the loop's next poll, so bytes already there are read first even
    // when this process got no CPU for longer than the wait
    else setTimeout(() => setImmediate(finish), 500);
  });

  function finish() {
    if (done) return;
    done = true;
    // a tail that was no frame (a frame cut short was copied as far as it came)
    if (need === 0) foreign(buf);
    const [code, signal] = exited;
    process.stdout.write('', () => {
      if (signal !== null) {
        // ended by a signal: end the same way (a shell sees 128+n), or exit 128+n if it is caught or ignored here
        for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(s);
        try {
          process.kill(process.pid, signal);
        } catch {
          // not a signal this platform can send
        }
        process.exit(128 + (signalNumber(signal) ?? 0));
      }
      if (code === 0 && !ended) {
        process.stderr.write('steadystate: the command exited 0 without finishing its output: code other than steadystate ended it; failing.\n');
        process.exit(1);
      }
      process.exit(code ?? 1);
    });
  }

  function signalNumber(signal) {
    return { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15 }[signal];
  }
}
