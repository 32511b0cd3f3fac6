/**
 * Text for a terminal, whatever user code put in it. Object names, error messages and paths
 * come from the code under test: a right-to-left override (U+202E) makes `gpj.ts` read as
 * `st.jpg`, NUL or a carriage return hides what follows, an escape sequence clears the screen.
 * Every line the CLI prints goes through {@link escapeTerminal}; file names never hold such
 * characters in the first place (report/write-atomic.ts `safeFileName`).
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls, bidi embeddings, overrides, isolates and
 * marks, and ESC unless it starts a colour (SGR) sequence.
 */
const UNSAFE = /\u001b(?!\[[0-9;]*m)|[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every unsafe character written as `\uXXXX`, readable on a terminal and still
 * valid inside a JSON string (JSON.stringify's own output stays parseable and equal).
 * @internal
 */
export function escapeTerminal(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const RAW = Symbol('steadystate.raw-stream');

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * A stream whose string writes are escaped ({@link escapeTerminal}); everything else (isTTY,
 * columns, events) is the stream's own. The unescaped stream stays reachable for a progress bar,
 * which writes cursor controls itself ({@link rawStream}).
 * @internal
 */
export function escapingStream<S extends Stream>(stream: S): S {
  return new Proxy(stream, {
    get(target, key, receiver) {
      if (key === RAW) return target;
      if (key === 'write') {
        return (chunk: unknown, ...rest: unknown[]) => (target.write as (...a: unknown[]) => boolean).call(target, typeof chunk === 'string' ? escapeTerminal(chunk) : chunk, ...rest);
      }
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The stream under {@link escapingStream}, or the stream itself. @internal */
export function rawStream<S extends Stream>(stream: S): S {
  return ((stream as unknown as Record<symbol, unknown>)[RAW] as S | undefined) ?? stream;
}
