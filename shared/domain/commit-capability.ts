/**
 * The runtime's commit capability (issue 37, decision 326): what lets the SCORM runtime on the
 * content origin commit one attempt synchronously, without any credential of the learner. Issued
 * by the player page at launch for one learner, module and attempt, for CAPABILITY_SECONDS:
 * `<userid>.<attempt>.<expires>.<HMAC-SHA-256("scorm-commit:<moduleid>:<userid>:<attempt>:<expires>")>`
 * (base64url) under the content signing key (the key of the launch token, decision 270, with
 * another message prefix, so neither token opens what the other does). Nothing is stored: there is
 * no secret at rest to hash, and the commit route checks the learner's assignment again anyway.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const CAPABILITY_SCHEME = 'ScormCommit';

export interface CommitGrant {
  moduleid: number;
  userid: number;
  attempt: number;
  expires: number;
}

function seal(key: string, grant: CommitGrant): string {
  return createHmac('sha256', key)
    .update(`scorm-commit:${grant.moduleid}:${grant.userid}:${grant.attempt}:${grant.expires}`)
    .digest('base64url');
}

export function commitCapability(key: string, grant: CommitGrant): string {
  return `${grant.userid}.${grant.attempt}.${grant.expires}.${seal(key, grant)}`;
}

const FORM = /^([1-9]\d{0,14})\.([1-9]\d{0,5})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** The grant a capability holds for this module and attempt, or null (forged, another's, expired). */
export function openCommitCapability(
  key: string,
  capability: string,
  moduleid: number,
  attempt: number,
  nowSeconds: number,
): CommitGrant | null {
  const match = FORM.exec(capability);
  if (!match) return null;
  const grant = { moduleid, userid: Number(match[1]), attempt: Number(match[2]), expires: Number(match[3]) };
  const expected = Buffer.from(seal(key, grant));
  const given = Buffer.from(match[4]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  if (grant.attempt !== attempt || grant.expires <= nowSeconds) return null;
  return grant;
}
