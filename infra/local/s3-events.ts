/**
 * S3 event notifications, locally: the S3 emulator reports each stored object, and this turns
 * the report into the event S3 sends a Lambda (events/s3/media-original-created.json is a
 * recorded one), checked against the handlers' contract (shared/storage/s3-event.ts), and calls
 * the handlers whose trigger matches (functions/pipeline/triggers.ts).
 */
import { randomUUID } from 'node:crypto';
import type { S3Event } from 'aws-lambda';
import { encodeRfc3986 } from '../../shared/domain/text.ts';
import { s3EventSchema } from '../../shared/storage/s3-event.ts';
import type { ObjectCreatedNotice } from './s3-emulator.ts';

/** The event of one object created, as S3 delivers it (key URL-encoded, spaces as `+`). */
export function objectCreatedEvent(
  notice: ObjectCreatedNotice,
  options: { region: string; configurationId: string },
): S3Event {
  const encodedKey = encodeRfc3986(notice.key).replace(/%20/g, '+').replace(/%2F/g, '/');
  const event = {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: options.region,
        eventTime: notice.time.toISOString(),
        eventName: notice.eventName,
        userIdentity: { principalId: 'AWS:LOCAL' },
        requestParameters: { sourceIPAddress: notice.sourceIp },
        responseElements: {
          'x-amz-request-id': randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase(),
          'x-amz-id-2': randomUUID(),
        },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: options.configurationId,
          bucket: {
            name: notice.bucket,
            ownerIdentity: { principalId: 'LOCAL' },
            arn: `arn:aws:s3:::${notice.bucket}`,
          },
          object: {
            key: encodedKey,
            size: notice.size,
            eTag: notice.eTag,
            sequencer: notice.time.getTime().toString(16).toUpperCase().padStart(16, '0'),
          },
        },
      },
    ],
  } as S3Event;
  // The handlers' contract (shared/storage/s3-event.ts): a local event they could not read fails here.
  s3EventSchema.parse(event);
  return event;
}

export type S3EventHandler = (event: S3Event) => Promise<unknown>;

/** Routes a stored object to the handlers of the triggers on its bucket and prefix. */
export function s3EventDispatcher(
  triggers: Array<{ name: string; bucketName: string; prefix: string; handler: () => Promise<S3EventHandler> }>,
  region: string,
): (notice: ObjectCreatedNotice) => Promise<void> {
  return async (notice) => {
    for (const trigger of triggers) {
      if (trigger.bucketName !== notice.bucket || !notice.key.startsWith(trigger.prefix)) continue;
      const handler = await trigger.handler();
      await handler(objectCreatedEvent(notice, { region, configurationId: trigger.name }));
    }
  };
}
