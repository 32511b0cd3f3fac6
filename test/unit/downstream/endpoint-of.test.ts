import { describe, expect, it } from 'vitest';
import { endpointOf } from '../../../src/downstream/endpoint-of.js';

describe('endpointOf', () => {
  it('normalises id-like segments and drops the query', () => {
    expect(endpointOf('GET', 'https://dns.example/records/42?x=1')).toBe('GET https://dns.example/records/:id');
    expect(endpointOf('DELETE', 'https://a.example/v1/orders/ord_1N2b3c/items/3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(
      'DELETE https://a.example/v1/orders/:id/items/:id',
    );
    expect(endpointOf('GET', 'https://a.example/apis/v2beta1/things')).toBe('GET https://a.example/apis/v2beta1/things');
    expect(endpointOf('POST', 'https://a.example/records')).toBe('POST https://a.example/records');
  });
});
