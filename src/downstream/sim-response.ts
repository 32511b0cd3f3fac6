/**
 * The fast path's response object. Building a web `Response` (and its body stream) costs more
 * than the whole fake-service call, so requests served by built-in fake services get this
 * lightweight stand-in instead. It implements the part of `Response` reconcilers use and keeps
 * the one rule that bites real code: a body can be read only once (clone first).
 *
 * Known limits: no `body` stream and no `formData()`; `type` is always `'basic'` and
 * `redirected` always false.
 */

/** `[name, value]` pairs; names are matched case-insensitively. @internal */
export type HeaderPairs = ReadonlyArray<readonly [string, string]>;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * The reason phrase for a status code ('' when unknown, as undici does).
 * @internal
 */
export function statusTextOf(status: number): string {
  return STATUS_TEXT[status] ?? '';
}

/**
 * A read-only, case-insensitive header map with the `Headers` read API.
 * @public
 */
export class SimHeaders implements Iterable<[string, string]> {
  private readonly map = new Map<string, string>();

  constructor(pairs: HeaderPairs = []) {
    for (const [k, v] of pairs) {
      const key = k.toLowerCase();
      const prev = this.map.get(key);
      this.map.set(key, prev === undefined ? v : `${prev}, ${v}`);
    }
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [];
  }

  forEach(fn: (value: string, key: string, parent: SimHeaders) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }

  /** Entries sorted by name, as `Headers` iterates. */
  *entries(): IterableIterator<[string, string]> {
    for (const k of [...this.map.keys()].sort()) yield [k, this.map.get(k)!];
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * A response served without web streams. Reads resolve at once (no I/O), so a reconciler
 * awaiting them never gives the kernel a reason to fall back to macrotasks.
 * @public
 */
export class SimResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: SimHeaders;
  readonly url: string;
  readonly redirected = false;
  readonly type = 'basic' as const;
  private readonly text_: string | null;
  private used = false;

  /**
   * @param status - HTTP status
   * @param text - body text (JSON for every built-in service), or null for no body
   * @param headers - response headers
   * @param url - the requested URL
   */
  constructor(status: number, text: string | null, headers: HeaderPairs, url: string) {
    this.status = status;
    this.statusText = statusTextOf(status);
    this.ok = status >= 200 && status < 300;
    this.headers = new SimHeaders(headers);
    this.url = url;
    this.text_ = text;
  }

  /** True once the body was read, as on `Response`. */
  get bodyUsed(): boolean {
    return this.used;
  }

  // Response.json() is typed `Promise<any>`; matching it keeps SimResponse a drop-in.
  json(): Promise<any> {
    return this.consume().then((t) => JSON.parse(t) as unknown);
  }

  text(): Promise<string> {
    return this.consume();
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.consume().then((t) => new TextEncoder().encode(t).buffer as ArrayBuffer);
  }

  bytes(): Promise<Uint8Array> {
    return this.consume().then((t) => new TextEncoder().encode(t));
  }

  blob(): Promise<Blob> {
    return this.consume().then((t) => new Blob([t], { type: this.headers.get('content-type') ?? '' }));
  }

  /** A copy with an unread body; throws if this body was already read, as `Response` does. */
  clone(): SimResponse {
    if (this.used) throw new TypeError('Response.clone: Body has already been consumed.');
    const pairs: [string, string][] = [...this.headers];
    return new SimResponse(this.status, this.text_, pairs, this.url);
  }

  private consume(): Promise<string> {
    // Same error undici throws, so code that reads a body twice fails here as it would in prod.
    if (this.used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.used = true;
    return Promise.resolve(this.text_ ?? '');
  }
}
