/**
 * xAPI statement validation and the terms a statement is found by (shared/domain/xapi): a
 * statement using every property is accepted as it is (a false 400 fails a client), and each
 * rule refuses what it names.
 */
import { describe, expect, it } from 'vitest';
import { xapiStatements } from '../../shared/domain/events/xapi-statements.ts';
import type { StoredEvent } from '../../shared/domain/events/stored-event.ts';
import { checkStatement, isDuration, isLanguageTag, isTimestamp } from '../../shared/domain/xapi/statement-rules.ts';
import {
  agentKey,
  canonicalOf,
  idsOfStatement,
  matchesFilter,
  termsOf,
} from '../../shared/domain/xapi/statement-terms.ts';

const full = {
  id: '7ccd3322-e1a5-411a-a67d-6a735c76f119',
  actor: {
    objectType: 'Group',
    name: 'Line 3',
    member: [{ mbox_sha1sum: 'cd9b00a5611f94eaa7b1661edab976068e364975' }, { openid: 'http://openid.example.org/1' }],
  },
  verb: { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered', 'zh-Hant-TW': '回答' } },
  object: {
    objectType: 'Activity',
    id: 'http://example.com/quiz/1#q2',
    definition: {
      name: { en: 'Torque' },
      description: { en: 'Which torque?' },
      type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
      moreInfo: 'https://example.com/more',
      interactionType: 'choice',
      correctResponsesPattern: ['golf[,]tetris'],
      choices: [{ id: 'golf', description: { en: 'Golf' } }, { id: 'tetris' }],
      extensions: { 'http://example.com/ext': { any: ['thing', 1, null] } },
    },
  },
  result: {
    score: { scaled: 0.95, raw: 95, min: 0, max: 100 },
    success: true,
    completion: true,
    response: 'golf',
    duration: 'PT1H0M0.5S',
    extensions: { 'http://example.com/r': 1 },
  },
  context: {
    registration: 'ec531277-b57b-4c15-8d91-d292c5b2b8f7',
    instructor: { account: { homePage: 'https://example.com', name: 'trainer' } },
    team: { objectType: 'Group', mbox: 'mailto:team@example.com' },
    contextActivities: {
      parent: { id: 'http://example.com/quiz/1' },
      grouping: [{ id: 'http://example.com/course/1' }],
      category: [
        { id: 'http://example.com/profile', definition: { type: 'http://adlnet.gov/expapi/activities/profile' } },
      ],
    },
    revision: 'r2',
    platform: 'Stepwise',
    language: 'en-US',
    statement: { objectType: 'StatementRef', id: '6690e6c9-3ef0-4ed3-8b37-7f3964730bee' },
    extensions: { 'http://example.com/c': true },
  },
  timestamp: '2026-11-28T10:00:00.123+01:00',
  version: '1.0.3',
  attachments: [
    {
      usageType: 'http://example.com/usage',
      display: { en: 'Certificate' },
      contentType: 'application/pdf',
      length: 12,
      sha2: 'a'.repeat(64),
      fileUrl: 'https://example.com/cert.pdf',
    },
  ],
};

describe('checkStatement', () => {
  it('accepts a statement using every property', () => {
    expect(() => checkStatement(full)).not.toThrow();
  });

  it('accepts a SubStatement and 2.0 context agents', () => {
    const sub = {
      actor: { mbox: 'mailto:a@example.com' },
      verb: { id: 'http://example.com/planned' },
      object: {
        objectType: 'SubStatement',
        actor: { mbox: 'mailto:b@example.com' },
        verb: { id: 'http://example.com/visit' },
        object: { objectType: 'Agent', mbox: 'mailto:c@example.com' },
      },
      context: {
        contextAgents: [
          {
            objectType: 'contextAgent',
            agent: { mbox: 'mailto:d@example.com' },
            relevantTypes: ['http://x.example.com/t'],
          },
        ],
      },
    };
    expect(() => checkStatement(sub)).not.toThrow();
  });

  it.each([
    [
      'statement.actor.member[0]: an Agent needs exactly one',
      { actor: { objectType: 'Group', member: [{ name: 'x' }] } },
    ],
    ['statement.object.definition.choices', { object: { id: 'http://x.example.com', definition: { choices: [] } } }],
    [
      'statement.object.definition.scale: is not a component list',
      {
        object: { id: 'http://x.example.com', definition: { interactionType: 'choice', scale: [] } },
      },
    ],
    ['statement.context.team.objectType', { context: { team: { mbox: 'mailto:t@example.com' } } }],
    ['statement.attachments[0].sha2', { attachments: [{ ...full.attachments[0], sha2: 'xyz' }] }],
    ['statement.actor.account.homePage', { actor: { account: { homePage: 'example.com', name: 'x' } } }],
    ['statement.id', { id: 'not-a-uuid' }],
    [
      'statement.authority',
      {
        authority: { objectType: 'Group', member: [{ mbox: 'mailto:a@example.com' }] },
      },
    ],
  ])('refuses: %s', (message, change) => {
    expect(() => checkStatement({ ...full, ...change })).toThrow(message);
  });
});

describe('data types', () => {
  it.each(['2026-11-28T10:00Z', '2026-11-28T10:00:00.1234567+05:30', '2026-11-28T10:00:00+0100'])(
    'takes timestamp %s',
    (value) => expect(isTimestamp(value)).toBe(true),
  );
  it.each(['2026-11-28', '2026-13-01T00:00:00Z', '2026-11-28T10:00:00', '2026-11-28T10:00:00-00:00'])(
    'refuses timestamp %s',
    (value) => expect(isTimestamp(value)).toBe(false),
  );
  it('checks durations and language tags', () => {
    expect(['PT1H', 'P1Y2M3DT4H5M6.7S', 'P4W'].every(isDuration)).toBe(true);
    expect(['P', 'PT', '1H', 'P1H'].some(isDuration)).toBe(false);
    expect(['en', 'en-US', 'zh-Hant-TW', 'x-klingon', 'de-CH-1996'].every(isLanguageTag)).toBe(true);
    expect(['english language', '', 'en_US'].some(isLanguageTag)).toBe(false);
  });
});

describe('statement terms', () => {
  const terms = termsOf(full as never);

  it('finds the actor group, members only as related agents, and every related activity', () => {
    expect(terms.agents).toEqual([]);
    expect(terms.relatedAgents).toEqual(
      expect.arrayContaining([
        'sha1:cd9b00a5611f94eaa7b1661edab976068e364975',
        'account:https://example.com|trainer',
        'mbox:mailto:team@example.com',
      ]),
    );
    expect(terms.relatedActivities).toEqual(
      expect.arrayContaining([
        'http://example.com/quiz/1#q2',
        'http://example.com/quiz/1',
        'http://example.com/profile',
      ]),
    );
    expect(matchesFilter(terms, { activity: 'http://example.com/course/1' })).toBe(false);
    expect(matchesFilter(terms, { activity: 'http://example.com/course/1', relatedActivities: true })).toBe(true);
    expect(matchesFilter(terms, { agent: 'account:https://example.com|trainer', relatedAgents: true })).toBe(true);
  });

  it('projects ids and canonical forms', () => {
    const ids = idsOfStatement(full as never);
    expect(ids.verb).toEqual({ id: full.verb.id });
    expect(ids.object).toEqual({ objectType: 'Activity', id: full.object.id });
    const canonical = canonicalOf(full as never, ['zh-Hant-TW']) as unknown as typeof full;
    expect(canonical.verb.display).toEqual({ 'zh-Hant-TW': '回答' });
    expect(canonical.object.definition.extensions).toEqual(full.object.definition.extensions);
    expect(agentKey({ mbox: 'mailto:A@Example.com' })).toBe('mbox:mailto:a@example.com');
  });
});

describe("the site's outgoing statements (decision 104)", () => {
  it.each([
    ['work_log.finished', { operator_userid: 7, guideid: 12 }],
    ['course_stage.completed', { userid: 7, wikiid: 3, course_stageid: 4, title: 'Stage' }],
    ['quiz_session.submitted', { userid: 7, quizid: 9, passed: true, score: 80 }],
  ])('%s passes the LRS validation, so they can be sent to it', (name, data) => {
    const record = { eventid: 'e1', name, entity: 'x', sequence: '1', occurred_at: 1764150000, data } as StoredEvent;
    const statements = xapiStatements(record, 'https://training.example.com');
    expect(statements).toHaveLength(1);
    for (const statement of statements) expect(() => checkStatement(statement)).not.toThrow();
  });
});
