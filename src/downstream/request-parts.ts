/**
 * Reading the parts of a `fetch(input, init)` call without building a web `Request`: the fast
 * path needs only the URL, method, one header and the body text.
 * @internal
 */

/** The `Request` members the downstream reads when the caller passes a `Request` as input. */
export interface RequestLike {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly body: unknown;
  text(): Promise<string>;
}

/** Everything the downstream needs from one call, normalised. */
export interface RequestParts {
  url: string;
  method: string;
  signal: AbortSignal | undefined;
  /** The caller's Request, when it passed one. */
  request: RequestLike | undefined;
}

const ABSOLUTE_HTTP = /^https?:\/\//i;

/**
 * Normalises the arguments of a `fetch` call. Throws the `TypeError` undici throws for a URL it
 * cannot parse (the simulation has no base URL, so relative URLs fail as they do in Node).
 */
export function requestParts(input: string | URL | RequestLike, init: RequestInit | undefined): RequestParts {
  let url: string;
  let request: RequestLike | undefined;
  if (typeof input === 'string') {
    url = ABSOLUTE_HTTP.test(input) ? input : parseUrl(input);
  } else if (input instanceof URL) {
    url = input.href;
  } else {
    request = input;
    url = input.url;
  }
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  const signal = init?.signal ?? request?.signal ?? undefined;
  return { url, method, signal, request };
}

function parseUrl(input: string): string {
  try {
    return new URL(input).href;
  } catch (cause) {
    throw new TypeError(`Failed to parse URL from ${input}`, { cause });
  }
}

/** One request header, case-insensitively; init headers replace the Request's, as in `new Request(req, init)`. */
export function headerOf(parts: RequestParts, init: RequestInit | undefined, name: string): string | undefined {
  const headers: HeadersInit | undefined = init?.headers ?? parts.request?.headers;
  if (headers === undefined) return undefined;
  if (isHeaders(headers)) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  if (Array.isArray(headers)) {
    for (const pair of headers) if (pair[0]?.toLowerCase() === lower) return pair[1];
    return undefined;
  }
  for (const k in headers) if (k.toLowerCase() === lower) return (headers as Record<string, string>)[k];
  return undefined;
}

function isHeaders(h: HeadersInit): h is Headers {
  return typeof (h as Headers).get === 'function';
}

const decoder = new TextDecoder();

/**
 * The request body as text: synchronously for strings and byte buffers (the fast path), through
 * a throwaway `Response` only for streams, blobs and form data.
 */
export function bodyTextOf(parts: RequestParts, init: RequestInit | undefined): string | undefined | Promise<string | undefined> {
  const body = init?.body;
  if (typeof body === 'string') return body;
  if (body === undefined) {
    const req = parts.request;
    return req && req.body !== null && req.body !== undefined ? req.text() : undefined;
  }
  if (body === null) return undefined;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return decoder.decode(body);
  if (ArrayBuffer.isView(body)) return decoder.decode(body);
  return new Response(body).text();
}
