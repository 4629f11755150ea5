/** Rules for user input, shared by registration, PATCH and bulk creation. */
import * as z from 'zod/mini';

/** The real service's unique_username rule (verified live): lowercase, 3-30 chars. */
export const UNIQUE_USERNAME = /^[a-z0-9][a-z0-9_]{2,29}$/;

export const uniqueUsernameSchema = z
  .string()
  .check(z.regex(UNIQUE_USERNAME, 'must be 3-30 characters of a-z, 0-9 and _, starting with a letter or digit'));

export const emailSchema = z.string().check(z.trim(), z.maxLength(254), z.email('must be an email address'));

/** At least 8 characters and not all one class of character. */
export const passwordSchema = z.string().check(
  z.minLength(8, 'must be at least 8 characters'),
  z.maxLength(512),
  z.refine((value) => new Set(value).size >= 4, 'is too simple'),
);

export const displayNameSchema = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));

/** A unique_username derived from a name or email: "Jane Doe" -> "jane_doe". */
export function uniqueUsernameBase(source: string): string {
  const base = source
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/@.*$/, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 24);
  return base.length >= 3 ? base : `${base}user`.slice(0, 24).padEnd(3, '0');
}
