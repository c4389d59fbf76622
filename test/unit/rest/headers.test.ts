// prefersPlainText: the Accept negotiation of GET /health (JSON by default, Hazelcast 3.x's
// text only for a client that ranks text/plain above application/json).

import { describe, expect, it } from 'vitest';
import { prefersPlainText } from '../../../src/rest/headers.js';

describe('prefersPlainText', () => {
  it('is false without a preference for text: no header, curl and fetch defaults, JSON asked, ties', () => {
    for (const accept of [
      undefined,
      '',
      '*/*', // curl, node fetch, Kubernetes probes
      'application/json',
      'application/*',
      'text/plain, application/json', // a tie keeps the default
      'application/json, text/plain',
      'text/plain;q=0.5, application/json',
      'text/*;q=0.9, application/json',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', // a browser: */* covers both alike
      'text/html',
      'text/plain;q=0',
      'text/plain;q=0, */*',
    ]) {
      expect(prefersPlainText(accept), String(accept)).toBe(false);
    }
  });

  it('is true when text/plain ranks above application/json', () => {
    for (const accept of [
      'text/plain',
      'TEXT/PLAIN',
      ' text/plain ; charset=utf-8 ',
      'text/*',
      'text/plain, */*;q=0.1',
      'application/json;q=0.9, text/plain',
      'text/plain, application/json;q=0.5',
      'text/plain;q=0.4, */*;q=0.3',
      '*/*;q=0.5, text/plain', // the most specific range wins for text/plain, */* still rates JSON 0.5
    ]) {
      expect(prefersPlainText(accept), accept).toBe(true);
    }
  });

  it('takes the most specific range of each type, whatever the order', () => {
    // text/plain is rated by its own range (0.2), not by text/* (1).
    expect(prefersPlainText('text/*, text/plain;q=0.2, application/json;q=0.5')).toBe(false);
    expect(prefersPlainText('text/plain;q=0.2, text/*, application/json;q=0.5')).toBe(false);
    // application/json is rated by its own range (0.1), not by */* (1).
    expect(prefersPlainText('*/*, application/json;q=0.1, text/plain;q=0.3')).toBe(true);
  });

  it('ignores a malformed q (the range counts with q=1) instead of failing', () => {
    expect(prefersPlainText('text/plain;q=abc, application/json;q=0.9')).toBe(true);
    expect(prefersPlainText('text/plain;q=2, application/json')).toBe(false);
    expect(prefersPlainText('text/plain;q=0.5000, application/json;q=0.4')).toBe(true);
  });
});
