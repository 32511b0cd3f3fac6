/**
 * A `Response` whose body is a string it keeps as is until someone asks for a stream: a web
 * `Response` built from a string creates a body `ReadableStream` (and reading it back goes
 * through that stream), which cost the in-process transport a tenth of every reconcile. Every
 * reader of a `Response` works unchanged (`body`, `text()`, `json()`, `clone()`, …: the stream
 * is made on first use); {@link responseText} reads the string without it.
 * @internal
 */
export class TextResponse extends Response {
  #text: string;
  #streamed: Response | undefined;
  #used = false;

  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this.#text = text;
  }

  /** The string, once, as reading a body does (undefined when it was read already). */
  takeText(): string | undefined {
    if (this.#used || this.#streamed !== undefined) return undefined;
    this.#used = true;
    return this.#text;
  }

  #stream(): Response {
    if (this.#streamed === undefined) {
      this.#streamed = new Response(this.#used ? '' : this.#text, { status: this.status, statusText: this.statusText, headers: this.headers });
      if (this.#used) void this.#streamed.text();
    }
    return this.#streamed;
  }

  override get body(): Response['body'] {
    return this.#stream().body;
  }
  override get bodyUsed(): boolean {
    return this.#used || (this.#streamed?.bodyUsed ?? false);
  }
  override text(): Promise<string> {
    const text = this.takeText();
    return text !== undefined ? Promise.resolve(text) : this.#stream().text();
  }
  override json(): Promise<unknown> {
    return this.text().then((t) => JSON.parse(t) as unknown);
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#stream().arrayBuffer();
  }
  override blob(): Promise<Blob> {
    return this.#stream().blob();
  }
  override formData(): Promise<FormData> {
    return this.#stream().formData();
  }
  override clone(): Response {
    if (this.bodyUsed) return this.#stream().clone();
    return new TextResponse(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}

/** A response's body as a string: without a stream for a {@link TextResponse}. @internal */
export function responseText(response: Response): Promise<string> {
  if (response instanceof TextResponse) {
    const text = response.takeText();
    if (text !== undefined) return Promise.resolve(text);
  }
  return response.body === null ? Promise.resolve('') : response.text();
}
