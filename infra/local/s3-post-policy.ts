/**
 * Evaluation of S3 browser-upload (presigned POST) policies, as real S3 does it and s3rver
 * does not: SigV4 policy signature, expiration, `eq` / `starts-with` conditions, extra form
 * fields and `content-length-range`.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
 *
 * Pure functions; the HTTP side lives in s3-post-policy-proxy.ts.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** An S3 error answer: HTTP status, S3 error code and message, extra XML elements. */
export interface S3ErrorAnswer {
  status: number;
  code: string;
  message: string;
  details?: Record<string, string | number>;
}

export interface SizeRange {
  min: number;
  max: number;
}

/** Real S3 refuses POST uploads above 5 GiB whatever the policy says. */
export const MAX_POST_OBJECT_BYTES = 5 * 1024 ** 3;

/** Form fields that never need a policy condition. */
const FIELDS_EXEMPT_FROM_CONDITIONS = new Set(['policy', 'x-amz-signature', 'file']);

type Condition =
  | { kind: 'eq' | 'starts-with'; field: string; value: string; text: string }
  | { kind: 'content-length-range'; min: number; max: number };

/**
 * Checks everything that can be checked before the file arrives (signature, expiry,
 * conditions, extra fields). `fields` are the form fields sent before the file, keyed in
 * lower case. Returns the allowed file size range, or the error S3 would answer.
 */
export function evaluatePostPolicy(input: {
  bucket: string;
  fields: Map<string, string>;
  now: Date;
  secretFor: (accessKeyId: string) => string | undefined;
}): { ok: true; sizeRange: SizeRange } | { ok: false; error: S3ErrorAnswer } {
  const { bucket, fields, now, secretFor } = input;
  const policyBase64 = fields.get('policy');
  if (policyBase64 === undefined) {
    // An unsigned POST is anonymous; with public access blocked S3 refuses it.
    return fail(accessDenied('Access Denied'));
  }
  if (fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') {
    return fail({
      status: 400,
      code: 'InvalidArgument',
      message: 'Only AWS4-HMAC-SHA256 POST policies are supported locally',
    });
  }

  const signature = verifySignature(policyBase64, fields, secretFor);
  if (signature) return fail(signature);

  let policy: { expiration?: unknown; conditions?: unknown };
  try {
    policy = JSON.parse(Buffer.from(policyBase64, 'base64').toString('utf8'));
  } catch {
    return fail(invalidPolicy('Invalid Policy: Invalid JSON.'));
  }
  const expiresAt = typeof policy.expiration === 'string' ? Date.parse(policy.expiration) : Number.NaN;
  if (Number.isNaN(expiresAt)) return fail(invalidPolicy("Invalid Policy: Invalid 'expiration' value."));
  if (expiresAt <= now.getTime()) return fail(accessDenied('Invalid according to Policy: Policy expired.'));
  if (!Array.isArray(policy.conditions)) return fail(invalidPolicy("Invalid Policy: Missing 'conditions'."));

  const conditions: Condition[] = [];
  for (const raw of policy.conditions) {
    const condition = parseCondition(raw);
    if (!condition) return fail(invalidPolicy(`Invalid Policy: Invalid Condition: ${JSON.stringify(raw)}`));
    conditions.push(condition);
  }

  const fieldValue = (field: string) => (field === 'bucket' ? bucket : fields.get(field));
  for (const condition of conditions) {
    if (condition.kind === 'content-length-range') continue;
    const actual = fieldValue(condition.field);
    const holds =
      actual !== undefined &&
      (condition.kind === 'eq' ? actual === condition.value : actual.startsWith(condition.value));
    if (!holds) return fail(accessDenied(`Invalid according to Policy: Policy Condition failed: ${condition.text}`));
  }

  const covered = new Set(conditions.flatMap((c) => (c.kind === 'content-length-range' ? [] : [c.field])));
  const extra = [...fields.keys()].filter(
    (name) => !FIELDS_EXEMPT_FROM_CONDITIONS.has(name) && !name.startsWith('x-ignore-') && !covered.has(name),
  );
  if (extra.length > 0) {
    return fail(accessDenied(`Invalid according to Policy: Extra input fields: ${extra.join(', ')}`));
  }

  const range = conditions.find((c) => c.kind === 'content-length-range');
  const sizeRange =
    range?.kind === 'content-length-range'
      ? { min: range.min, max: Math.min(range.max, MAX_POST_OBJECT_BYTES) }
      : { min: 0, max: MAX_POST_OBJECT_BYTES };
  return { ok: true, sizeRange };
}

/** The size answer S3 gives once the whole file has been received (or has grown too big). */
export function checkFileSize(size: number, range: SizeRange): S3ErrorAnswer | undefined {
  if (size > range.max) {
    return {
      status: 400,
      code: 'EntityTooLarge',
      message: 'Your proposed upload exceeds the maximum allowed size',
      details: { ProposedSize: size, MaxSizeAllowed: range.max },
    };
  }
  if (size < range.min) {
    return {
      status: 400,
      code: 'EntityTooSmall',
      message: 'Your proposed upload is smaller than the minimum allowed size',
      details: { ProposedSize: size, MinSizeAllowed: range.min },
    };
  }
  return undefined;
}

/** SigV4 for POST: the signature is an HMAC of the base64 policy with the scoped signing key. */
function verifySignature(
  policyBase64: string,
  fields: Map<string, string>,
  secretFor: (accessKeyId: string) => string | undefined,
): S3ErrorAnswer | undefined {
  const [accessKeyId = '', date = '', region = '', service = '', terminator = ''] = (
    fields.get('x-amz-credential') ?? ''
  ).split('/');
  const secret = secretFor(accessKeyId);
  if (secret === undefined) {
    return {
      status: 403,
      code: 'InvalidAccessKeyId',
      message: 'The AWS Access Key Id you provided does not exist in our records.',
      details: { AWSAccessKeyId: accessKeyId },
    };
  }
  if (!/^\d{8}$/.test(date) || !region || service !== 's3' || terminator !== 'aws4_request') {
    return {
      status: 400,
      code: 'AuthorizationQueryParametersError',
      message: 'Error parsing the X-Amz-Credential parameter',
    };
  }
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), terminator);
  const expected = Buffer.from(hmac(signingKey, policyBase64).toString('hex'));
  const provided = Buffer.from(fields.get('x-amz-signature') ?? '');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return {
      status: 403,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your key and ' +
        'signing method.',
    };
  }
  return undefined;
}

/** `{ "key": "v" }`, `["eq"|"starts-with", "$key", "v"]` or `["content-length-range", min, max]`. */
function parseCondition(raw: unknown): Condition | undefined {
  const text = JSON.stringify(raw);
  if (Array.isArray(raw)) {
    const [operator, subject, value] = raw;
    if (typeof operator !== 'string') return undefined;
    const op = operator.toLowerCase();
    if (op === 'content-length-range') {
      const min = Number(subject);
      const max = Number(value);
      return Number.isInteger(min) && Number.isInteger(max) && min >= 0 && max >= min
        ? { kind: op, min, max }
        : undefined;
    }
    if (
      (op === 'eq' || op === 'starts-with') &&
      typeof subject === 'string' &&
      subject.startsWith('$') &&
      typeof value === 'string'
    ) {
      return { kind: op, field: subject.slice(1).toLowerCase(), value, text };
    }
    return undefined;
  }
  if (raw && typeof raw === 'object') {
    const entries = Object.entries(raw);
    const [field, value] = entries[0] ?? [];
    if (entries.length === 1 && typeof field === 'string' && typeof value === 'string') {
      return { kind: 'eq', field: field.toLowerCase(), value, text };
    }
  }
  return undefined;
}

function accessDenied(message: string): S3ErrorAnswer {
  return { status: 403, code: 'AccessDenied', message };
}

function invalidPolicy(message: string): S3ErrorAnswer {
  return { status: 400, code: 'InvalidPolicyDocument', message };
}

function fail(error: S3ErrorAnswer): { ok: false; error: S3ErrorAnswer } {
  return { ok: false, error };
}
