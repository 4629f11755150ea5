/**
 * The S3 event notification contract (decision 188): the part of an "object created" event
 * that the handlers S3 starts read (functions/pipeline/triggers.ts), checked by zod on arrival.
 * The local stack's S3 emulator builds its events through the same schema
 * (infra/local/s3-events.ts), so a local event the handler could not read fails where it is
 * made. Fields it does not name are dropped on parsing (S3 adds some between schema versions).
 */
import type { S3Event } from 'aws-lambda';
import * as z from 'zod/mini';

export const s3EventRecordSchema = z.object({
  eventName: z.string(),
  s3: z.object({
    bucket: z.object({ name: z.string().check(z.minLength(1)) }),
    /** `key` is URL-encoded with `+` for spaces (decodeEventKey). */
    object: z.object({ key: z.string().check(z.minLength(1)), size: z.optional(z.number()) }),
  }),
});

/** No Records at all is S3's test event (sent when a notification is configured): nothing to do. */
export const s3EventSchema = z.object({ Records: z.optional(z.array(s3EventRecordSchema)) });

export type ObjectEventRecord = z.output<typeof s3EventRecordSchema>;

/** Every event S3 (or aws-lambda's type of it) describes is one the contract accepts. */
const deliveredFitsContract: (event: S3Event) => z.input<typeof s3EventSchema> = (event) => event;
void deliveredFitsContract;

/** Keys in S3 event records are URL-encoded, with `+` for spaces. */
export function decodeEventKey(key: string): string {
  return decodeURIComponent(key.replace(/\+/g, ' '));
}
