/**
 * Request bodies of the media group that its services take as input (z.output of these), shared
 * by the routes files and the services so a service never imports a routes file.
 */
import * as z from 'zod/mini';
import { MARKUP_COLORS } from '../../shared/media/images.ts';

export const presignBody = z.object({
  filename: z.string().check(z.minLength(1), z.maxLength(255)),
  content_type: z.optional(z.string().check(z.maxLength(255))),
  size: z.optional(z.int().check(z.positive())),
});

const pixel = z.int().check(z.minimum(0), z.maximum(100_000));
const extent = z.int().check(z.minimum(1), z.maximum(100_000));
const point = z.object({ x: pixel, y: pixel });
const color = z.union([
  z.enum(Object.keys(MARKUP_COLORS) as [string, ...string[]]),
  z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/)),
]);
const stroke = { color, stroke_width: z.optional(z.int().check(z.minimum(1), z.maximum(200))) };
const shape = z.discriminatedUnion('shape', [
  z.object({ shape: z.literal('rectangle'), x: pixel, y: pixel, width: extent, height: extent, ...stroke }),
  z.object({ shape: z.literal('circle'), x: pixel, y: pixel, radius: extent, ...stroke }),
  z.object({ shape: z.literal('line'), from: point, to: point, ...stroke }),
  z.object({ shape: z.literal('arrow'), from: point, to: point, ...stroke }),
]);

export const imageEditBody = z.object({
  imageid: z.int().check(z.positive()),
  crop: z.optional(z.object({ x: pixel, y: pixel, width: extent, height: extent })),
  markup: z.optional(z.array(shape).check(z.maxLength(100))),
});

export const embedBody = z.object({ url: z.string().check(z.minLength(1), z.maxLength(2000)) });

export type PresignInput = z.output<typeof presignBody>;
export type ImageEditInput = z.output<typeof imageEditBody>;
export type EmbedInput = z.output<typeof embedBody>;

/** The most one library list answers: the apps ask `limit=1000` and never page (decision 199). */
export const MAX_LIBRARY_PAGE_SIZE = 1000;

/** `limit` of the media library lists: 1..1000, larger clamped, default 20 (other lists stop at 200). */
export const libraryLimit = z.pipe(
  z._default(z.string().check(z.regex(/^\d+$/, 'must be a positive integer')), '20'),
  z.pipe(
    z.transform((value: string) => Math.min(Number.parseInt(value, 10), MAX_LIBRARY_PAGE_SIZE)),
    z.number().check(z.minimum(1, 'must be at least 1')),
  ),
);
