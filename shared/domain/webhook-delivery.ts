/**
 * Webhook delivery rules, no I/O: the retry schedule and the signature.
 *
 * Attempts: the first at once, then after 1 s, 5 s, 30 s, 2 min, 10 min and 1 h, then hourly
 * until 24 h have passed since the first attempt; then the delivery has failed. Every wait
 * after the first attempt varies by ±20 % (jitter), so receivers coming back from an outage
 * are not hit by every sender at the same second. `scale` multiplies every wait and the 24 h
 * horizon (tests run the schedule in milliseconds; 1 in production).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const RETRY_WAITS_SECONDS = [1, 5, 30, 120, 600, 3600] as const;
export const HOURLY_SECONDS = 3600;
export const GIVE_UP_AFTER_SECONDS = 24 * 3600;
export const JITTER = 0.2;

/**
 * When the next attempt is due (epoch ms) after `attemptsMade` failed attempts, the first of
 * which was at `firstAttemptAt`; null when the delivery has failed for good.
 * `random` is in [0, 1).
 */
export function nextAttemptAt(
  attemptsMade: number,
  firstAttemptAt: number,
  now: number,
  options: { scale: number; random: number },
): number | null {
  const base = attemptsMade <= RETRY_WAITS_SECONDS.length ? RETRY_WAITS_SECONDS[attemptsMade - 1] : HOURLY_SECONDS;
  const factor = 1 - JITTER + 2 * JITTER * options.random;
  const next = now + Math.round(base * factor * options.scale * 1000);
  return next - firstAttemptAt > GIVE_UP_AFTER_SECONDS * options.scale * 1000 ? null : next;
}

/** One id per event and webhook: the X-Stepwise-Delivery header, the same on every retry. */
export function deliveryIdOf(eventid: string, webhookid: number): string {
  return createHash('sha256').update(`${eventid}:${webhookid}`).digest('hex').slice(0, 32);
}

/** The 2xx answers count as delivered; anything else (and no answer in time) is retried. */
export function isDelivered(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** `sha256=<hex HMAC-SHA256 of the raw body with the secret>` (the X-Stepwise-Signature header). */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** What a receiver does: recompute and compare in constant time. */
export function verifySignature(secret: string, body: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signatureHeader(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
