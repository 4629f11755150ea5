/**
 * verify:deploy's check of presigned URLs and forms (infra/verify/presigned-check.ts): what S3
 * will authorize when they are used, read back from what the SDK's presigners produce, and
 * decided against a role as the IAM check decides SDK calls.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { IamLedger } from '../../infra/verify/iam-check.ts';
import { presignedRequests } from '../../infra/verify/presigned-check.ts';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const awsClient = new S3Client({ region: 'us-east-1', credentials });
const localClient = new S3Client({
  region: 'us-east-1',
  credentials,
  endpoint: 'http://127.0.0.1:4569',
  forcePathStyle: true,
});
const reply = (body: unknown, headers: Record<string, string> = {}) => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('presigned requests in a response', () => {
  it('reads GetObject on the object of a presigned GET, virtual-hosted or path-style, anywhere', async () => {
    const key = 'derived/12/a b.thumbnail';
    const hosted = await getSignedUrl(awsClient, new GetObjectCommand({ Bucket: 'media', Key: key }));
    const pathStyle = await getSignedUrl(localClient, new GetObjectCommand({ Bucket: 'media', Key: key }));
    const found = presignedRequests(reply({ image: { original: hosted, sizes: [{ url: pathStyle }] } }), 'aws');
    expect(found).toEqual([
      { action: 's3:GetObject', resource: `arn:aws:s3:::media/${key}` },
      { action: 's3:GetObject', resource: `arn:aws:s3:::media/${key}` },
    ]);
  });

  it('reads PutObject on the key a presigned POST form allows, and a redirect to a presigned URL', async () => {
    const post = await createPresignedPost(localClient, {
      Bucket: 'modules',
      Key: 'imports/7/package.zip',
      Conditions: [['content-length-range', 1, 100]],
      Expires: 60,
    });
    const redirect = await getSignedUrl(localClient, new GetObjectCommand({ Bucket: 'modules', Key: 'content/7/x' }));
    expect(presignedRequests(reply({ upload: { url: post.url, fields: post.fields } }), 'aws')).toEqual([
      { action: 's3:PutObject', resource: 'arn:aws:s3:::modules/imports/7/package.zip' },
    ]);
    expect(presignedRequests({ statusCode: 302, headers: { Location: redirect }, body: '' }, 'aws')).toEqual([
      { action: 's3:GetObject', resource: 'arn:aws:s3:::modules/content/7/x' },
    ]);
  });

  it('finds nothing in plain URLs, binary bodies and text', () => {
    expect(presignedRequests(reply({ url: 'https://example.com/a?b=c' }), 'aws')).toEqual([]);
    expect(presignedRequests({ statusCode: 200, body: 'X-Amz-Signature=1', isBase64Encoded: true }, 'aws')).toEqual([]);
    expect(presignedRequests({ statusCode: 200, body: 'plain X-Amz-Signature=1' }, 'aws')).toEqual([]);
  });

  it('is decided against the role: a form for a prefix the role may not write is denied and recorded', async () => {
    const ledger = new IamLedger(new Map());
    ledger.register({
      id: 'modules',
      description: 'modules endpoints',
      statements: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::modules/imports/*' }],
    });
    const allowed = { action: 's3:PutObject', resource: 'arn:aws:s3:::modules/imports/7/package.zip' };
    const denied = { action: 's3:PutObject', resource: 'arn:aws:s3:::modules/content/7/index.html' };
    expect(ledger.authorize('modules', allowed)).toBe(true);
    expect(ledger.authorize('modules', denied)).toBe(false);
    expect(ledger.report()).toMatchObject({ ok: false });
    expect(ledger.report().text).toContain(
      'IAM DENIED  modules endpoints: s3:PutObject on arn:aws:s3:::modules/content/7',
    );
  });
});
