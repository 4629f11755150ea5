/**
 * Secrets the server must use again (an OIDC client secret, the remote-login secret) are kept
 * encrypted at rest with AES-256-GCM under the deployment's key (STEPWISE_SECRETS_KEY):
 * `stepwise-at-rest:v1:<nonce>:<ciphertext>:<tag>` (base64url). The item's key is bound as
 * additional data, so a sealed value copied onto another item does not open there.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'stepwise-at-rest:v1:';

/** 32 key bytes from the configured text (any length: hashed, so a passphrase works too). */
export function atRestKey(configured: string): Buffer {
  return createHash('sha256').update(`stepwise-at-rest\u0000${configured}`).digest();
}

export function sealAtRest(secret: string, key: Buffer, boundTo: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(boundTo));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return PREFIX + [nonce, sealed, cipher.getAuthTag()].map((part) => part.toString('base64url')).join(':');
}

/** The secret, or undefined when the value was not sealed with this key for this item. */
export function openAtRest(value: string, key: Buffer, boundTo: string): string | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  const parts = value.slice(PREFIX.length).split(':');
  if (parts.length !== 3) return undefined;
  const [nonce, sealed, tag] = parts.map((part) => Buffer.from(part, 'base64url')) as [Buffer, Buffer, Buffer];
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
