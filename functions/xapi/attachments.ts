/**
 * Statement attachments (xAPI "Attachments" and "Signed Statements"): the parts of a
 * multipart/mixed request matched to the statements' attachment objects by SHA-2, checked, kept
 * in the bucket by digest, and sent back with attachments=true. A signature attachment is a
 * compact JWS whose payload must be the statement it signs (RS256/384/512; checked against the
 * x5c certificate when the header carries one).
 */
import { createHash } from 'node:crypto';
import { BadRequestError } from '../../shared/domain/errors.ts';
import { canonicalJson } from '../../shared/domain/canonical-json.ts';
import { isObject, type JsonObject } from '../../shared/domain/xapi/statement-rules.ts';
import { getObjectBytes, putObject } from '../../shared/storage/objects.ts';
import { xapiAttachmentKey, xapiBucket } from '../../shared/storage/xapi-objects.ts';
import type { Part } from './xapi-protocol.ts';

/** jose, loaded with the first signed statement (its side bundle, decision 355). */
const jose = () => import('#jose');

export const SIGNATURE_USAGE = 'http://adlnet.gov/expapi/attachments/signature';
/** The most bytes one attachment may have (the request as a whole is bounded by the gateway). */
const MAX_ATTACHMENT_BYTES = 6 * 1024 * 1024;

export interface AttachmentPart {
  sha2: string;
  contentType: string;
  body: Buffer;
}

/** The attachment parts of a multipart request (every part after the statements). */
export function attachmentParts(parts: Part[]): AttachmentPart[] {
  return parts.map((part, index) => {
    const sha2 = part.headers['x-experience-api-hash'];
    if (!sha2) throw new BadRequestError(`attachment part ${index + 1}: X-Experience-API-Hash is required`);
    const encoding = part.headers['content-transfer-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'binary')
      throw new BadRequestError(`attachment part ${index + 1}: Content-Transfer-Encoding must be binary`);
    const algorithm = { 56: 'sha224', 64: 'sha256', 96: 'sha384', 128: 'sha512' }[sha2.length];
    if (!algorithm || createHash(algorithm).update(part.body).digest('hex') !== sha2.toLowerCase())
      throw new BadRequestError(`attachment part ${index + 1}: its body does not have the SHA-2 its header names`);
    return {
      sha2: sha2.toLowerCase(),
      contentType: part.headers['content-type'] ?? 'application/octet-stream',
      body: part.body,
    };
  });
}

function rawAttachments(statement: JsonObject): JsonObject[] {
  return (Array.isArray(statement.attachments) ? statement.attachments : []).filter(isObject);
}

/** Every attachment without fileUrl has its part; every part belongs to an attachment; signatures hold. */
export async function checkAttachmentParts(statements: JsonObject[], parts: AttachmentPart[]): Promise<void> {
  const bySha = new Map(parts.map((part) => [part.sha2, part]));
  const wanted = new Set<string>();
  for (const [index, statement] of statements.entries()) {
    for (const attachment of rawAttachments(statement)) {
      const sha2 = String(attachment.sha2).toLowerCase();
      wanted.add(sha2);
      const part = bySha.get(sha2);
      if (attachment.fileUrl === undefined && !part)
        throw new BadRequestError(
          `statement ${index + 1}: attachment ${sha2} has no fileUrl and no part in the request`,
        );
      if (attachment.usageType === SIGNATURE_USAGE) {
        if (attachment.contentType !== 'application/octet-stream')
          throw new BadRequestError('A signature attachment has Content-Type application/octet-stream');
        if (!part) throw new BadRequestError('A signature attachment must be sent in the request');
        await checkSignature(statement, part.body.toString('utf8'));
      }
    }
  }
  for (const part of parts)
    if (!wanted.has(part.sha2)) throw new BadRequestError(`attachment part ${part.sha2}: no statement names it`);
}

function base64urlJson(decode: (text: string) => Uint8Array, text: string, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(decode(text)));
  } catch {
    throw new BadRequestError(`signature: the JWS ${what} is not base64url JSON`);
  }
}

/** The statement as a signature covers it: without what the LRS sets and the attachments. */
function signedShape(statement: JsonObject, keepId: boolean): string {
  const { attachments: _a, authority: _b, stored: _c, version: _d, id, ...rest } = statement;
  return canonicalJson(keepId ? { ...rest, id: typeof id === 'string' ? id.toLowerCase() : id } : rest);
}

const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512'];

/** An x5c entry (base64 DER) as the PEM `importX509` takes. */
function certificatePem(der: string): string {
  const lines = der.replace(/\s+/g, '').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----`;
}

/**
 * A signature attachment (xAPI 1.0.3, Signed Statements), read with `jose`: a compact JWS with
 * RS256/384/512 whose payload is the statement (ignoring what the LRS sets); when its header
 * carries `x5c`, its signature verifies with the first certificate's key.
 */
async function checkSignature(statement: JsonObject, jws: string): Promise<void> {
  const compact = jws.trim();
  const pieces = compact.split('.');
  if (pieces.length !== 3) throw new BadRequestError('signature: not a compact JWS');
  const { base64url, compactVerify, decodeProtectedHeader, importX509 } = await jose();
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(compact);
  } catch {
    throw new BadRequestError('signature: the JWS header is not base64url JSON');
  }
  if (!SIGNING_ALGORITHMS.includes(String(header.alg)))
    throw new BadRequestError('signature: the JWS algorithm must be RS256, RS384 or RS512');
  const payload = base64urlJson(base64url.decode, pieces[1]!, 'payload');
  if (!isObject(payload)) throw new BadRequestError('signature: the JWS payload is not a statement');
  const keepId = payload.id !== undefined;
  if (signedShape(payload, keepId) !== signedShape(statement, keepId))
    throw new BadRequestError('signature: the JWS payload is not the statement it is attached to');
  if (Array.isArray(header.x5c) && typeof header.x5c[0] === 'string') {
    const alg = String(header.alg);
    try {
      const key = await importX509(certificatePem(header.x5c[0]), alg);
      await compactVerify(compact, key, { algorithms: [alg] });
    } catch {
      throw new BadRequestError('signature: the JWS does not verify with its x5c certificate');
    }
  }
}

export async function storeAttachments(parts: AttachmentPart[]): Promise<void> {
  await Promise.all(
    parts.map((part) => putObject(xapiBucket(), xapiAttachmentKey(part.sha2), part.body, part.contentType)),
  );
}

export async function readAttachments(list: Array<{ sha2: string; contentType: string }>): Promise<Part[]> {
  return Promise.all(
    list.map(async (attachment) => ({
      headers: {
        'content-type': attachment.contentType,
        'content-transfer-encoding': 'binary',
        'x-experience-api-hash': attachment.sha2,
      },
      body: await getObjectBytes(xapiBucket(), xapiAttachmentKey(attachment.sha2), MAX_ATTACHMENT_BYTES),
    })),
  );
}
