/**
 * Uniqueness claims are derived from the records they guard, never taken from a site file as
 * given (decision 254): a claim decides who a value signs in as (an email, a username, an SSO
 * subject), so a file's `UNIQUE#SSO#<provider>|evil -> userid 1` would make a stranger the first
 * Admin. The import works out the claims of every guarding record it reads, with the entity
 * files' own claim values; a claim in the file must be exactly one of those (else it is refused
 * with its reason), and the import writes the derived claims, not the file's.
 *
 * CLIENT_GUID claims (decision 224) guard no record a file carries whole: they travel as given.
 * They name no account and give nothing: a claim only makes its owner's own retried create answer
 * the record it names, read through that route's access checks.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { assigneeClaim } from '../db/entities/course-assignment.ts';
import { termKeyValue } from '../db/entities/glossary.ts';
import { claimValue as reviewDocumentClaim } from '../db/entities/review-schedule.ts';
import { uniqueValues } from '../db/entities/user.ts';
import { uniqueTitle } from '../db/entities/wiki.ts';
import { uniqueKey, type UniqueKind } from '../db/uniqueness.ts';
import type { RawItem } from './item-compare.ts';

/** The owner attributes a claim may carry (uniqueItemSchema), in the order a signature lists them. */
const OWNER_ATTRIBUTES = ['userid', 'wikiid', 'entryid', 'course_assignmentid', 'prdid', 'prsid'] as const;

export interface DerivedClaim {
  pk: string;
  kind: UniqueKind;
  owner: Partial<Record<(typeof OWNER_ATTRIBUTES)[number], number>>;
}

/** Kinds whose claims travel as given (see above). */
export const GIVEN_KINDS: ReadonlySet<string> = new Set(['CLIENT_GUID']);

const str = (value: unknown) => (typeof value === 'string' ? value : null);
const int = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined);

function claim(kind: UniqueKind, value: string, owner: DerivedClaim['owner']): DerivedClaim {
  return { pk: uniqueKey(kind, value).pk, kind, owner };
}

/** The claims a checked record of the file holds (its entity's own claim values), in no particular order. */
export function claimsOf(entity: string, plain: Record<string, unknown>): DerivedClaim[] {
  switch (entity) {
    case 'User': {
      const userid = int(plain.userid);
      const values = uniqueValues({
        email: str(plain.email) ?? '',
        unique_username: str(plain.unique_username),
        sso_userid: str(plain.sso_userid),
        employee_id: str(plain.employee_id),
        scim_username: str(plain.scim_username) ?? undefined,
      });
      return values.map(([kind, value]) => claim(kind, value, { userid }));
    }
    case 'Wiki': {
      const namespace = str(plain.namespace);
      const title = str(plain.title);
      if (namespace === null || title === null) return [];
      return [claim('WIKI_TITLE', uniqueTitle(namespace, title), { wikiid: int(plain.wikiid) })];
    }
    case 'GlossaryEntry': {
      const langid = str(plain.langid);
      const term = str(plain.term);
      if (langid === null || term === null) return [];
      return [claim('GLOSSARY_TERM', termKeyValue({ langid, term }), { entryid: int(plain.entryid) })];
    }
    case 'ReviewDocument': {
      const docid = int(plain.docid);
      if (typeof plain.doctype !== 'string' || docid === undefined) return [];
      const value = reviewDocumentClaim(plain.doctype as Parameters<typeof reviewDocumentClaim>[0], docid);
      return [claim('PERIODIC_REVIEW_DOC', value, { prdid: int(plain.prdid), prsid: int(plain.prsid) })];
    }
    case 'CourseAssignment': {
      // A cancelled assignment released its claim (course-assignment.ts).
      if (plain.cancelled === 1) return [];
      const value = assigneeClaim({
        assignee_userid: int(plain.assignee_userid) ?? null,
        assignee_teamid: int(plain.assignee_teamid) ?? null,
        wikiid: int(plain.wikiid) ?? 0,
      } as Parameters<typeof assigneeClaim>[0]);
      return [claim('COURSE_ASSIGNEE', value, { course_assignmentid: int(plain.course_assignmentid) })];
    }
    default:
      return [];
  }
}

/** What a claim says, as one comparable string: its kind and owner. */
export function claimSignature(kind: unknown, owner: Record<string, unknown>): string {
  return JSON.stringify([kind, ...OWNER_ATTRIBUTES.map((name) => owner[name] ?? null)]);
}

/** The claim item as uniqueness.ts writes it (claimUnique), in DynamoDB JSON. */
export function claimItem(derived: DerivedClaim): RawItem {
  return marshall(
    { pk: derived.pk, sk: 'UNIQUE', entity: 'Unique', kind: derived.kind, ...derived.owner },
    { removeUndefinedValues: true },
  ) as RawItem;
}

/** A claim item of the file the import derives rather than takes (all but GIVEN_KINDS). */
export function isDerivedClaim(entity: string, plain: Record<string, unknown>): boolean {
  return entity === 'Unique' && !GIVEN_KINDS.has(String(plain.kind));
}
