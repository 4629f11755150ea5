/**
 * The entity registry (shared/db/entity-schemas.ts): the schemas declared so far (every key shape
 * against its builder: entity-keys.test.ts); item sizes; sealed secrets;
 * object keys (decisions 164, 165, 167).
 */
import { describe, expect, it } from 'vitest';
import { marshall } from '@aws-sdk/util-dynamodb';
import { ENTITY_SHAPES, entityOfKey, itemBytes, MAX_ITEM_BYTES } from '../../shared/db/entity-schemas.ts';
import { isAllowedObjectKey } from '../../shared/site-archive/object-keys.ts';
import { openSecret, sealSecret } from '../../shared/site-archive/secret-box.ts';
import { KNOWN_ENTITIES } from '../../shared/site-archive/catalogue.ts';
import { escapesBucket } from '../../infra/local/s3-post-policy-proxy.ts';
import { checkItem } from '../../shared/site-archive/item-checks.ts';
import { guideToItem } from '../../shared/db/entities/guide.ts';
import { stepCreateWrites } from '../../shared/db/entities/step.ts';
import { guideRecord } from '../support/guide-record.ts';
import { teamCreateWrites } from '../../shared/db/entities/team.ts';
import { commentCreateWrites } from '../../shared/db/entities/comment.ts';
import { wikiCreateWrites } from '../../shared/db/entities/wiki.ts';
import { mediaItemCreateWrites } from '../../shared/db/entities/media-item.ts';
import type { LabelledWrite } from '../../shared/db/transactions.ts';

describe('entity registry', () => {
  it('knows every entity name a site file may carry, and no key shape matches two entities', () => {
    const registered = new Set(ENTITY_SHAPES.map((shape) => shape.entity));
    expect([...KNOWN_ENTITIES].filter((name) => !registered.has(name))).toEqual([]);
    expect(entityOfKey('USER#../1', 'USER')).toBeUndefined();
    expect(entityOfKey('GIZMO#1', 'GIZMO')).toBeUndefined();
  });

  it('declares an exact schema for every entity; only the justified LOOSE few are typed but open', () => {
    // SortedRef: filter attributes differ per collection; site jobs never travel (entity-schemas.ts).
    expect(ENTITY_SHAPES.filter((shape) => !shape.exact).map((shape) => shape.entity)).toEqual([
      'SortedRef',
      'SiteExport',
      'SiteImport',
    ]);
    for (const shape of ENTITY_SHAPES) expect(shape.schema, shape.entity).toBeDefined();
  });

  it('sizes items as DynamoDB does, near enough to refuse what it refuses', () => {
    const item = marshall({ pk: 'USER#1', sk: 'USER', about_raw: 'x'.repeat(1000), n: 12345 });
    expect(itemBytes(item)).toBeGreaterThan(1000 + 'about_raw'.length);
    expect(itemBytes(item)).toBeLessThan(1100);
    expect(itemBytes(marshall({ pk: 'x', big: 'y'.repeat(MAX_ITEM_BYTES) }))).toBeGreaterThan(MAX_ITEM_BYTES);
  });
});

/** The Put item of a labelled write (the entity files' own builders). */
const putItem = (writes: LabelledWrite[], label: string) => {
  const item = writes.find((write) => write.label === label)?.item.Put?.Item;
  if (!item) throw new Error(`no put labelled ${label}`);
  return item as Record<string, unknown>;
};

const GUIDE = guideRecord({
  guideid: 3,
  type: 'technique',
  category: 'Pumps',
  title: 'Replace the seal',
  userid: 2,
  tools: [
    {
      text: 'Wrench',
      notes: null,
      type: 'tool',
      quantity: 1,
      url: null,
      thumbnail: null,
      isoptional: false,
      featured: false,
    },
  ],
  steps: [{ stepid: 9, revisionid: 1 }],
  search_tokens: ['seal'],
});

/** Items as the entity files write them: each must pass; each wrong-typed copy must be refused. */
const WRITTEN: Array<[entity: string, item: Record<string, unknown>]> = [
  ['Guide', guideToItem(GUIDE)],
  [
    'Step',
    putItem(
      stepCreateWrites({
        guideid: 3,
        stepid: 9,
        revisionid: 1,
        title: 'Open',
        lines: [{ lineid: 1, bullet: 'black', level: 0, text_raw: 'Loosen', text_rendered: 'Loosen' }],
        media: { type: 'image', data: [7] },
      }),
      'step',
    ),
  ],
  [
    'Team',
    putItem(
      teamCreateWrites(
        {
          teamid: 4,
          name: 'Line 1',
          description: '',
          owner: 2,
          location: null,
          latitude: null,
          longitude: null,
          image: null,
          member_count: 0,
          reputation: 0,
          attributes: {},
          created_date: 1,
          privacy: 'private',
          new_member_since: null,
        },
        ['line'],
      ),
      'team',
    ),
  ],
  [
    'Comment',
    putItem(
      commentCreateWrites({
        commentid: 6,
        locale: 'en',
        context: 'guide',
        contextid: 3,
        guideid: 3,
        parentid: null,
        author_userid: 2,
        title: 'Replace the seal',
        text_raw: 'Nice',
        rating: 0,
        date: 1,
        modified_date: 1,
        replied_date: 0,
        status: 'public',
        reply_count: 0,
      }),
      'comment',
    ),
  ],
  [
    'Wiki',
    putItem(
      wikiCreateWrites({
        wikiid: 5,
        namespace: 'CATEGORY',
        title: 'Pumps',
        display_title: 'Pumps',
        langid: 'en',
        revisionid: 1,
        contents_raw: '',
        excerpt: '',
        description: '',
        identification_raw: '',
        image: null,
        flags: [],
        table_of_contents: false,
        author_userid: 2,
        modified_by: 2,
        parent_wikiid: null,
        child_count: 0,
        created_date: 1,
        modified_date: 1,
      }),
      'wiki',
    ),
  ],
  [
    'MediaItem',
    putItem(
      mediaItemCreateWrites({
        itemid: 7,
        type: 'GuideImage',
        userid: 2,
        guid: 'abc',
        filename: 'seal.png',
        content_type: 'image/png',
        size: 10,
        status: 'ready',
        failure: null,
        original_key: 'originals/7/seal.png',
        sizes: ['thumbnail'],
        width: 10,
        height: 10,
        source_itemid: null,
        markup: null,
        date: 1,
        modified_date: 1,
      }),
      'item',
    ),
  ],
];

/** Wrong types a hostile file might plant: [entity, field, value]. */
const WRONG: Array<[entity: string, field: string, value: unknown]> = [
  ['Guide', 'title', 5],
  ['Guide', 'steps', { 0: { stepid: 9, revisionid: 1 } }],
  ['Guide', 'userid', '2'],
  ['Step', 'lines', { lineid: 1 }],
  ['Step', 'title', 12],
  ['Team', 'name', 7],
  ['Team', 'attributes', ['x']],
  ['Comment', 'text_raw', 42],
  ['Comment', 'parentid', 'none'],
  ['Wiki', 'title', { text: 'Pumps' }],
  ['Wiki', 'flags', 'GUIDE_STARRED'],
  ['MediaItem', 'filename', 1],
  ['MediaItem', 'sizes', { thumbnail: true }],
];

const check = (entity: string, item: Record<string, unknown>) =>
  checkItem(entity, marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: true }));

describe('exact item schemas', () => {
  it("accept the items the entity files' own builders write", () => {
    for (const [entity, item] of WRITTEN) expect(check(entity, item), entity).toMatchObject({ ok: true });
  });

  it('refuse a wrong-typed attribute, naming the key and the field', () => {
    for (const [entity, field, value] of WRONG) {
      const item = WRITTEN.find(([name]) => name === entity)![1];
      const result = check(entity, { ...item, [field]: value });
      expect(result.ok, `${entity}.${field}`).toBe(false);
      const reason = (result as { reason: string }).reason;
      expect(reason).toMatch(new RegExp(`^${entity} ${item.pk} / ${item.sk}: ${field}(\\.\\w+)?: expected `));
    }
  });

  it('name what was wrong: the type found, the values allowed', () => {
    const [, guide] = WRITTEN[0]!;
    expect(check('Guide', { ...guide, title: 5 })).toMatchObject({
      reason: 'Guide GUIDE#3 / GUIDE: title: expected string, got number',
    });
    const [, comment] = WRITTEN[3]!;
    expect(check('Comment', { ...comment, status: 'hidden' })).toMatchObject({
      reason: 'Comment COMMENT#6 / COMMENT: status: expected "public" | "private", got "hidden"',
    });
  });

  it('refuse an attribute the entity never writes', () => {
    const [, guide] = WRITTEN[0]!;
    expect(check('Guide', { ...guide, is_admin: true })).toMatchObject({
      ok: false,
      reason: 'Guide GUIDE#3 / GUIDE: item: attributes it never writes: is_admin',
    });
    const [, team] = WRITTEN[2]!;
    expect((check('Team', { ...team, owner_token: 'x' }) as { reason: string }).reason).toContain('owner_token');
  });
});

describe('sealed webhook secrets', () => {
  it('open with the passphrase only', () => {
    const sealed = sealSecret('receiver-secret', 'correct horse battery staple');
    expect(sealed).toMatch(/^stepwise-sealed:v1:[\w-]+:[\w-]+:[\w-]+:[\w-]+$/);
    expect(sealed).not.toContain('receiver-secret');
    expect(openSecret(sealed, 'correct horse battery staple')).toBe('receiver-secret');
    expect(() => openSecret(sealed, 'wrong horse')).toThrow('The passphrase does not open');
    expect(sealSecret('receiver-secret', 'p')).not.toBe(sealSecret('receiver-secret', 'p'));
  });
});

describe('object keys', () => {
  it('allows the shapes the site writes, nothing that leaves them', () => {
    expect(isAllowedObjectKey('media', 'originals/7/nozzle.png')).toBe(true);
    expect(isAllowedObjectKey('media', 'derived/7/abc.thumbnail')).toBe(true);
    expect(isAllowedObjectKey('media', 'igi/0f1e2d3c4b5a69788796a5b4c3d2e1f0')).toBe(true);
    expect(isAllowedObjectKey('media', 'igi/0f1e2d3c4b5a69788796a5b4c3d2e1f0.medium')).toBe(true);
    for (const key of ['igi/../x', 'igi/abc/def', 'igi/.medium', 'igi/abc.me/dium'])
      expect(isAllowedObjectKey('media', key), key).toBe(false);
    expect(isAllowedObjectKey('modules', 'content/3/scorm/index.html')).toBe(true);
    expect(isAllowedObjectKey('modules', 'imports/4/package.zip')).toBe(true);
    for (const key of ['originals/7/../../x', 'originals/7/..', 'content/3/a/../../x', 'site-transfer/x', 'x\\..\\y'])
      expect(isAllowedObjectKey(key.startsWith('content') ? 'modules' : 'media', key), key).toBe(false);
  });

  it('the local S3 front proxy refuses paths that leave their bucket', () => {
    expect(escapesBucket('/stepwise-media/originals/1/x.png')).toBe(false);
    expect(escapesBucket('/stepwise-media/originals/1/../../../etc/x')).toBe(true);
    expect(escapesBucket('/stepwise-media/originals/1/%2E%2E/%2e%2e/x')).toBe(true);
    expect(escapesBucket('/stepwise-media/originals/1/..%5C..%5Cx')).toBe(true);
    expect(escapesBucket('/stepwise-media/%E0%A4%A')).toBe(true);
  });
});
