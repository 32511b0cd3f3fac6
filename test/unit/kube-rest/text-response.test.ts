import { describe, expect, it } from 'vitest';
import { responseText, TextResponse } from '../../../src/kube-rest/json-response.js';

const make = (): TextResponse => new TextResponse('{"kind":"Status","code":404}', { status: 404, headers: { 'content-type': 'application/json' } });

/** The API's JSON responses keep their body as a string; every reader of a Response still works. */
describe('TextResponse', () => {
  it('reads like a Response built from the same string: text, json, body stream, array buffer', async () => {
    expect(await make().text()).toBe('{"kind":"Status","code":404}');
    expect(await make().json()).toEqual({ kind: 'Status', code: 404 });
    expect(await new Response(make().body).text()).toBe('{"kind":"Status","code":404}');
    expect(new TextDecoder().decode(await make().arrayBuffer())).toBe('{"kind":"Status","code":404}');
    const r = make();
    expect([r.status, r.headers.get('content-type'), r instanceof Response]).toEqual([404, 'application/json', true]);
  });

  it('is read once, as a body is: a second read fails, clone before reading gives a copy', async () => {
    const r = make();
    const copy = r.clone();
    expect(r.bodyUsed).toBe(false);
    expect(await responseText(r)).toBe('{"kind":"Status","code":404}');
    expect(r.bodyUsed).toBe(true);
    await expect(r.text()).rejects.toThrow(TypeError);
    expect(await copy.json()).toEqual({ kind: 'Status', code: 404 });
    const streamed = make();
    await streamed.body!.getReader().read();
    expect(await responseText(streamed).catch((e: unknown) => e)).toBeInstanceOf(TypeError);
  });
});
