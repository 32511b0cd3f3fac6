/**
 * The errors a downstream call can reject with. Network failures imitate undici (Node's fetch)
 * so reconciler code that inspects `err.cause.code` or `err.name` takes the same branch it
 * would in production.
 */

/**
 * A request that no fake service and no msw handler answered. Requests never leave the
 * process (SPEC §2.3), so this is a test-setup error, not a fault.
 * @public
 */
export class UnhandledRequestError extends Error {
  readonly reason = 'UnhandledRequest' as const;
  /** No HTTP status: the request was never answered. */
  readonly code = 0;
  readonly method: string;
  readonly url: string;

  constructor(method: string, url: string, detail?: string) {
    const origin = originOf(url);
    super(
      `steadystate.downstream: no handler for ${method} ${url}${detail ? ` (${detail})` : ''}. ` +
        `Requests never leave the simulation: add an msw handler (e.g. http.${method.toLowerCase()}('${url.split(/[?#]/)[0]}', …)) ` +
        `or a fakeRestService({ baseUrl: '${origin}' }) for ${origin}.`,
    );
    this.name = 'UnhandledRequestError';
    this.method = method;
    this.url = url;
  }
}

/**
 * What undici rejects with when the connection drops: `TypeError('fetch failed')` whose
 * `cause` is a system error with `code: 'ECONNRESET'`.
 * @internal
 */
export function connectionResetError(): TypeError {
  const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
  return new TypeError('fetch failed', { cause });
}

/**
 * What a timed-out fetch rejects with (`AbortSignal.timeout` style): a `DOMException` named
 * `TimeoutError`.
 * @internal
 */
export function timeoutError(method: string, url: string, ms: number): DOMException {
  return new DOMException(`steadystate.downstream: ${method} ${url} got no response within ${ms} ms (virtual)`, 'TimeoutError');
}

/**
 * What undici rejects with when msw answers `HttpResponse.error()`.
 * @internal
 */
export function networkError(): TypeError {
  return new TypeError('Failed to fetch');
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
