/** The webhook retry schedule and signature (shared/domain/webhook-delivery.ts). */
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { nextAttemptAt, signatureHeader, verifySignature } from '../../shared/domain/webhook-delivery.ts';

describe('retry schedule', () => {
  it('waits 1 s, 5 s, 30 s, 2 min, 10 min, 1 h, then hourly, and gives up after 24 h', () => {
    const first = 0;
    let now = first;
    const waits: number[] = [];
    for (let attempts = 1; ; attempts++) {
      const next = nextAttemptAt(attempts, first, now, { scale: 1, random: 0.5 });
      if (next === null) break;
      waits.push((next - now) / 1000);
      now = next;
    }
    expect(waits.slice(0, 7)).toEqual([1, 5, 30, 120, 600, 3600, 3600]);
    expect(waits.every((wait, index) => index < 6 || wait === 3600)).toBe(true);
    expect(now).toBeLessThanOrEqual(24 * 3600 * 1000);
    expect(now).toBeGreaterThan(23 * 3600 * 1000);
  });

  it('varies each wait by at most 20 %', () => {
    expect(nextAttemptAt(4, 0, 0, { scale: 1, random: 0 })).toBe(96_000);
    expect(nextAttemptAt(4, 0, 0, { scale: 1, random: 0.999999 })).toBeLessThanOrEqual(144_000);
  });

  it('scales the waits and the horizon (tests)', () => {
    expect(nextAttemptAt(1, 0, 0, { scale: 0.001, random: 0.5 })).toBe(1);
    expect(nextAttemptAt(30, 0, 86_400, { scale: 0.001, random: 0.5 })).toBeNull();
  });
});

describe('signature', () => {
  it('is sha256=<hex HMAC-SHA256 of the raw body>, verified in constant time', () => {
    const body = '{"title":"x"}';
    expect(signatureHeader('secret', body)).toBe(`sha256=${createHmac('sha256', 'secret').update(body).digest('hex')}`);
    expect(verifySignature('secret', body, signatureHeader('secret', body))).toBe(true);
    expect(verifySignature('secret', `${body} `, signatureHeader('secret', body))).toBe(false);
    expect(verifySignature('secret', body, undefined)).toBe(false);
  });
});
