/**
 * Identity is the key (decision 254): every travelling entity says how its key is spelled from
 * its attributes, every one of those attributes disagreeing with the key refuses the item with
 * the reason, counters follow the key, and uniqueness claims are derived from their records.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { ENTITY_SHAPES, entityOfKey } from '../../shared/db/entity-schemas.ts';
import { SITE_EXPORT_ENTITY, SITE_IMPORT_ENTITY } from '../../shared/db/entities/site-transfer-job.ts';
import {
  identityProblem,
  idInKey,
  KEY_ONLY_ENTITIES,
  KEY_TEMPLATES,
  templateAttributes,
} from '../../shared/site-archive/identity.ts';
import { sha256Hex } from '../../shared/domain/secrets.ts';
import { checkItem } from '../../shared/site-archive/item-checks.ts';
import { TRANSIENT_ENTITIES } from '../../shared/site-archive/records.ts';
import { claimSignature, claimsOf } from '../../shared/site-archive/unique-claims.ts';

/** Attributes that are text in keys; every other attribute of a template is an integer id. */
const TEXT: Record<string, string> = {
  doctype: 'guide',
  doc_type: 'guide',
  role: 'Author',
  declineid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  tag: 'pumps',
  name: 'safety',
  subject: 'guide#3',
  client_guid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  token_hash: 'a'.repeat(64),
  badgeid: 'first-guide',
  statement_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  activity_id: 'http://example.com/activities/pump-seal',
  doc_id: 'bookmark',
  registration: '0f8fad5b-d9cb-469f-a165-70867728950e',
};

/** What the `{}` parts of a template (no attribute repeats them) are filled with, per entity. */
const FREE: Record<string, string[]> = {
  SearchToken: ['GUIDE', 'seal'],
  WorkLogLink: ['#G3', ''],
  ApprovedRevision: ['GUIDE#3'],
  XapiStatementIndex: ['ALL', '000001764300000#000'],
  XapiDocument: [`STATE#${'b'.repeat(64)}`, '-'],
};

function sampleOf(entity: string, template: readonly [string, string]) {
  const values: Record<string, unknown> = {};
  templateAttributes(template).forEach((name, index) => {
    values[name] = TEXT[name] ?? 3 + index;
  });
  const free = [...(FREE[entity] ?? [])];
  const render = (part: string) =>
    part.replace(/\{([a-z_]*)(?::(pad|lower|upper|sha256))?\}/g, (_, name: string, form?: string) => {
      if (!name) return free.shift() ?? '7';
      const value = values[name];
      if (form === 'pad') return String(value).padStart(12, '0');
      if (form === 'lower') return String(value).toLowerCase();
      if (form === 'sha256') return sha256Hex(String(value));
      return String(value);
    });
  return { pk: render(template[0]), sk: render(template[1]), ...values };
}

const changed = (value: unknown) => (typeof value === 'number' ? value + 1000 : `${String(value)}x`);

describe('identity is the key', () => {
  it('every entity a site file may carry says how its key repeats its attributes, or that it repeats none', () => {
    const travelling = ENTITY_SHAPES.map((shape) => shape.entity).filter(
      (entity) => !TRANSIENT_ENTITIES.has(entity) && entity !== SITE_EXPORT_ENTITY && entity !== SITE_IMPORT_ENTITY,
    );
    const undeclared = travelling.filter((entity) => !KEY_TEMPLATES[entity] && !KEY_ONLY_ENTITIES.has(entity));
    expect(undeclared).toEqual([]);
  });

  const cases = Object.entries(KEY_TEMPLATES).flatMap(([entity, templates]) =>
    templates.map((template) => [entity, template] as const),
  );

  it.each(cases)(
    '%s: the template spells a key of its own shape, which its attributes agree with',
    (entity, template) => {
      const item = sampleOf(entity, template);
      expect(entityOfKey(item.pk, item.sk)?.entity, `${item.pk} / ${item.sk}`).toBe(entity);
      expect(identityProblem(entity, item)).toBeUndefined();
    },
  );

  it.each(cases)('%s: an item whose attribute disagrees with its key is refused, naming it', (entity, template) => {
    const item = sampleOf(entity, template);
    for (const name of templateAttributes(template)) {
      const hostile = { ...item, [name]: changed(item[name as keyof typeof item]) };
      const problem = identityProblem(entity, hostile);
      expect(problem, `${entity}.${name}`).toMatch(/disagree with its key/);
      expect(problem, `${entity}.${name}`).toContain(name);
      const missing = { ...item, [name]: null };
      expect(identityProblem(entity, missing), `${entity}.${name} missing`).toMatch(`names ${name}`);
    }
  });

  it('checkItem refuses the issue-35 User (key USER#771551, userid 1) with the reason', () => {
    const user = {
      pk: 'USER#771551',
      sk: 'USER',
      entity: 'User',
      gsi1pk: 'USERS',
      gsi1sk: '000000771551',
      userid: 1,
      username: 'Stranger',
      unique_username: null,
      email: 'stranger@example.com',
      password_hash: 'scrypt$x',
      privileges: ['User'],
      join_date: 1,
      reputation: 0,
      image: null,
      location: null,
      summary: null,
      about_raw: '',
      sso_userid: null,
      employee_id: null,
      created_by: null,
      flags: [],
      badge_counts: { bronze: 0, silver: 0, gold: 0, total: 0 },
      search_tokens: [],
      version: 1,
    };
    const checked = checkItem('User', marshall(user));
    expect(checked).toMatchObject({ ok: false, keyEntity: 'User' });
    expect(checked.ok ? '' : checked.reason).toContain('userid 1) disagree with its key USER#771551 / USER');
    expect(identityProblem('User', user)).toMatch(/userid 1\) disagree with its key USER#771551/);
  });

  it('counters follow the key: the id a key names, padded or not', () => {
    expect(idInKey('User', 'userid', { pk: 'USER#771551', sk: 'USER' })).toBe(771551);
    expect(idInKey('GuideRevision', 'revisionid', { pk: 'GUIDE#3', sk: 'REV#000000000042' })).toBe(42);
    expect(
      idInKey('StageCompletion', 'course_assignment_stage_completionid', { pk: 'USER#1', sk: 'TRAINDOC#guide#1' }),
    ).toBeUndefined();
  });
});

describe('uniqueness claims are derived from their records', () => {
  it("a User's claims are its email, username, SSO subject and employee id, owned by its userid", () => {
    const claims = claimsOf('User', {
      userid: 9,
      email: 'Ann@Example.com',
      unique_username: 'ann',
      sso_userid: 'corp|ann',
      employee_id: null,
    });
    expect(claims.map((claim) => claim.pk).sort()).toEqual(
      ['UNIQUE#EMAIL#ann@example.com', 'UNIQUE#SSO#corp|ann', 'UNIQUE#UNIQUE_USERNAME#ann'].sort(),
    );
    for (const claim of claims)
      expect(claimSignature(claim.kind, claim.owner)).toBe(claimSignature(claim.kind, { userid: 9 }));
  });

  it('a cancelled course assignment holds no claim; a live one holds its assignee and course', () => {
    const live = { course_assignmentid: 4, wikiid: 5, assignee_userid: 9, assignee_teamid: null, cancelled: 0 };
    expect(claimsOf('CourseAssignment', live).map((claim) => claim.pk)).toEqual([
      'UNIQUE#COURSE_ASSIGNEE#USER#9#COURSE#5',
    ]);
    expect(claimsOf('CourseAssignment', { ...live, cancelled: 1 })).toEqual([]);
  });
});
