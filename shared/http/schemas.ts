/** Schemas reused across route files: path ids and common bodies. */
import * as z from 'zod/mini';

/** A positive integer id in a path segment. */
export const pathId = z.pipe(
  z.string().check(z.regex(/^\d{1,15}$/)),
  z.pipe(z.transform((value: string) => Number.parseInt(value, 10)), z.number().check(z.minimum(1))),
);

/** Path params object with the given integer ids: idParams('userid') -> { userid: number }. */
export function idParams<K extends string>(...names: K[]) {
  return z.object(Object.fromEntries(names.map((name) => [name, pathId])) as Record<K, typeof pathId>);
}

export const messageResponse = z.object({ message: z.string() });

/** `order` of legacy lists: ASC or DESC (case-insensitive). */
export const orderQuery = z.optional(
  z.pipe(
    z.string(),
    z.pipe(z.transform((value: string) => value.toUpperCase()), z.enum(['ASC', 'DESC'])),
  ),
);
