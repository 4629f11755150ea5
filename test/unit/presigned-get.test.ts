/**
 * presigned-get.ts signs GET URLs without the S3 client; these must be the URLs the SDK's own
 * presigner builds for the same object, time and credentials, byte for byte: same host, path
 * escaping, query and signature. (That S3 accepts them is shown over HTTP by the media tests
 * against the emulator, and in AWS by the SDK's URL being the same.)
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { createGetPresigner, type S3Site } from '../../shared/storage/presigned-get.ts';

const signingDate = new Date('2026-11-25T10:11:12Z');
const keys = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/with+chars' };

const sites: Array<{ name: string; site: S3Site; forcePathStyle?: boolean }> = [
  { name: 'emulator, path-style', site: { region: 'us-east-1', endpoint: 'http://127.0.0.1:4569', credentials: keys } },
  { name: 'AWS us-east-1', site: { region: 'us-east-1', credentials: keys } },
  {
    name: 'AWS eu-west-1, session token',
    site: { region: 'eu-west-1', credentials: { ...keys, sessionToken: 'tok/en=+' } },
  },
  { name: 'AWS China', site: { region: 'cn-north-1', credentials: keys } },
];

const objects = [
  { bucket: 'stepwise-media-abc123', key: 'media/images/42/original.jpg' },
  { bucket: 'stepwise-media-abc123', key: "uploads/a b/ü+é/x!'()*~.pdf" },
  { bucket: 'stepwise-media-abc123', key: 'a//double/slash/%41' },
  { bucket: 'Legacy_Bucket', key: 'k' },
  { bucket: 'dotted.bucket.name', key: 'k/v' },
];

const dispositions = [undefined, 'attachment; filename="Report (final) 100%.pdf"', 'attachment; filename="a_b;c=d&e"'];

async function sdkUrl(site: S3Site, bucket: string, key: string, disposition?: string, expiresIn = 900) {
  const client = new S3Client({
    region: site.region,
    credentials: site.credentials,
    // As shared/storage/s3-client.ts configures the site's client (no checksum mode in GET URLs).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(site.endpoint ? { endpoint: site.endpoint, forcePathStyle: true } : {}),
  });
  const command = new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: disposition });
  return getSignedUrl(client, command, { expiresIn, signingDate });
}

describe('presigned GET URLs without the S3 client', () => {
  for (const { name, site } of sites) {
    it(`equal the SDK's presigned URLs: ${name}`, async () => {
      const presign = createGetPresigner(site);
      for (const { bucket, key } of objects) {
        for (const contentDisposition of dispositions) {
          const ours = await presign({ bucket, key, expiresInSeconds: 900, contentDisposition, signingDate });
          expect(ours, `${bucket}/${key} ${contentDisposition}`).toBe(
            await sdkUrl(site, bucket, key, contentDisposition),
          );
        }
      }
    });
  }

  it('sign the expiry asked for, and a different time gives a different signature', async () => {
    const site = sites[1].site;
    const presign = createGetPresigner(site);
    const object = objects[0];
    const week = await presign({ ...object, expiresInSeconds: 604800, signingDate });
    expect(week).toBe(await sdkUrl(site, object.bucket, object.key, undefined, 604800));
    expect(new URL(week).searchParams.get('X-Amz-Expires')).toBe('604800');
    const later = await presign({
      ...object,
      expiresInSeconds: 604800,
      signingDate: new Date(signingDate.getTime() + 1000),
    });
    expect(new URL(later).searchParams.get('X-Amz-Signature')).not.toBe(
      new URL(week).searchParams.get('X-Amz-Signature'),
    );
  });

  it('refuse an expiry past the seven days S3 allows', async () => {
    const presign = createGetPresigner(sites[1].site);
    await expect(presign({ ...objects[0], expiresInSeconds: 604801, signingDate })).rejects.toThrow(/expir/i);
  });
});
