/**
 * Webhook secrets in a site file (decision 167): left out by default; with the operator's
 * passphrase, sealed with AES-256-GCM under a key scrypt derives from the passphrase and a
 * random salt. The sealed value carries its own salt and nonce:
 * `stepwise-sealed:v1:<salt>:<nonce>:<ciphertext>:<tag>` (base64url), so a file sealed once
 * opens with the passphrase alone. A wrong passphrase fails the GCM tag: `WrongPassphrase`.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

const PREFIX = 'stepwise-sealed:v1:';
/** scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB, some tens of ms per value). */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

export class WrongPassphrase extends Error {
  constructor() {
    super('The passphrase does not open the webhook secrets of this file');
    this.name = 'WrongPassphrase';
  }
}

const keyOf = (passphrase: string, salt: Buffer) => scryptSync(passphrase.normalize('NFC'), salt, 32, SCRYPT);

export function isSealedSecret(value: string): boolean {
  return value.startsWith(PREFIX);
}

export function sealSecret(secret: string, passphrase: string): string {
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(passphrase, salt), nonce);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const parts = [salt, nonce, sealed, cipher.getAuthTag()].map((part) => part.toString('base64url'));
  return `${PREFIX}${parts.join(':')}`;
}

export function openSecret(value: string, passphrase: string): string {
  const parts = value.slice(PREFIX.length).split(':');
  if (parts.length !== 4) throw new WrongPassphrase();
  const [salt, nonce, sealed, tag] = parts.map((part) => Buffer.from(part, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(passphrase, salt), nonce);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    throw new WrongPassphrase();
  }
}
