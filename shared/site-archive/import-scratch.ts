/**
 * What a site import carries from one step to the next besides its byte offset: the ids the
 * file defines and the references still looking for one, the audit chains to re-verify, counters
 * and highest ids, accounts to send reset links to. Kept as a JSON object next to the uploaded
 * file (it grows with the number of users, guides, teams, wikis and chains, not with the file).
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../storage/s3-client.ts';
import type { ReferenceTarget } from './catalogue.ts';
import { bucketOf, SITE_TRANSFER_PREFIX } from './keys.ts';
import { isAwsError } from '../domain/aws-error.ts';

export interface ImportScratch {
  defined: Partial<Record<ReferenceTarget, Set<number>>>;
  /** Target kind -> id -> the first item that referred to it. */
  wanted: Partial<Record<ReferenceTarget, Record<string, string>>>;
  chains: string[];
  counters: Record<string, number>;
  highest: Record<string, number>;
  /** Emails of accounts without a password (a migration): reset links, if asked for. */
  resets: string[];
  /** Credential items met, judged once the file is read (then emptied). */
  credentials: Array<{ label: string; owners: number[] }>;
  /** Accounts this site had before the import: their credentials in the file are not written. */
  existing_owners: number[];
  /** Accounts other than the operator's the file gives Admin. */
  admin_grants: number;
  /** Webhooks whose secret is sealed with a passphrase. */
  sealed_secrets: number;
  /** Uniqueness claims the file's records hold (claim key -> signature; unique-claims.ts, decision 254). */
  derived_claims: Record<string, string>;
  /** Uniqueness claims the file carries itself (key -> [signature, label]): each must be a derived one. */
  file_claims: Record<string, [string, string]>;
}

const EMPTY: ImportScratch = {
  defined: {},
  wanted: {},
  chains: [],
  counters: {},
  highest: {},
  resets: [],
  credentials: [],
  existing_owners: [],
  admin_grants: 0,
  sealed_secrets: 0,
  derived_claims: {},
  file_claims: {},
};

const scratchKey = (importid: number) => `${SITE_TRANSFER_PREFIX}imports/${importid}/scratch.json`;

export async function loadScratch(importid: number): Promise<ImportScratch> {
  try {
    const result = await s3Client().send(
      new GetObjectCommand({ Bucket: bucketOf('modules'), Key: scratchKey(importid) }),
    );
    const stored = JSON.parse(await result.Body!.transformToString()) as Omit<ImportScratch, 'defined'> & {
      defined: Record<string, number[]>;
    };
    const defined = Object.fromEntries(Object.entries(stored.defined).map(([kind, ids]) => [kind, new Set(ids)]));
    return { ...structuredClone(EMPTY), ...stored, defined };
  } catch (error) {
    if (!isAwsError(error, 'NoSuchKey')) throw error;
    return structuredClone(EMPTY);
  }
}

export async function saveScratch(importid: number, scratch: ImportScratch): Promise<void> {
  const defined = Object.fromEntries(Object.entries(scratch.defined).map(([kind, ids]) => [kind, [...ids]]));
  await s3Client().send(
    new PutObjectCommand({
      Bucket: bucketOf('modules'),
      Key: scratchKey(importid),
      Body: JSON.stringify({ ...scratch, defined }),
      ContentType: 'application/json',
    }),
  );
}

export async function dropScratch(importid: number): Promise<void> {
  await s3Client().send(new DeleteObjectCommand({ Bucket: bucketOf('modules'), Key: scratchKey(importid) }));
}
