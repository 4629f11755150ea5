/**
 * The entity registry (shared/db/entity-schemas.ts): the entity files' own key builders give keys
 * the registry names as their entity; the schemas declared so far; item sizes; sealed secrets;
 * object keys (decisions 164, 165, 167).
 */
import { describe, expect, it } from 'vitest';
import { marshall } from '@aws-sdk/util-dynamodb';
import { ENTITY_SHAPES, entityOfKey, itemBytes, MAX_ITEM_BYTES } from '../../shared/db/entity-schemas.ts';
import { commentKey } from '../../shared/db/entities/comment.ts';
import { guideKey } from '../../shared/db/entities/guide.ts';
import { mediaItemKey } from '../../shared/db/entities/media-item.ts';
import { importKey } from '../../shared/db/entities/module-import.ts';
import { sessionKey } from '../../shared/db/entities/quiz-session.ts';
import { teamKey } from '../../shared/db/entities/team.ts';
import { tokenKey } from '../../shared/db/entities/token.ts';
import { completionKey } from '../../shared/db/entities/training-record.ts';
import { courseKey } from '../../shared/db/entities/course.ts';
import { moduleKey } from '../../shared/db/entities/training-module.ts';
import { userKey } from '../../shared/db/entities/user.ts';
import { wikiKey } from '../../shared/db/entities/wiki.ts';
import { deliveryKey } from '../../shared/db/entities/webhook.ts';
import { uniqueKey } from '../../shared/db/uniqueness.ts';
import { isAllowedObjectKey } from '../../shared/site-archive/object-keys.ts';
import { openSecret, sealSecret } from '../../shared/site-archive/secret-box.ts';
import { KNOWN_ENTITIES } from '../../shared/site-archive/catalogue.ts';
import { escapesBucket } from '../../infra/local/s3-post-policy-proxy.ts';

const HASH = 'a'.repeat(64);

describe('entity registry', () => {
  it("names the keys of the entity files' own builders as their entity", () => {
    const cases: Array<[{ pk: string; sk: string }, string]> = [
      [userKey(12), 'User'],
      [tokenKey(HASH), 'Token'],
      [guideKey(3), 'Guide'],
      [teamKey(4), 'Team'],
      [wikiKey(5), 'Wiki'],
      [courseKey(5), 'Course'],
      [commentKey(6), 'Comment'],
      [mediaItemKey(7), 'MediaItem'],
      [importKey(8), 'ModuleImport'],
      [moduleKey(9), 'TrainingModule'],
      [sessionKey(10), 'QuizSession'],
      [completionKey(11, { doctype: 'guide', docid: 3 } as never), 'StageCompletion'],
      [deliveryKey({ webhookid: 2, sequence: 5, deliveryid: 'abc' } as never), 'WebhookDelivery'],
      [uniqueKey('EMAIL', 'a@example.com'), 'Unique'],
    ];
    for (const [key, entity] of cases)
      expect(entityOfKey(key.pk, key.sk)?.entity, `${key.pk} / ${key.sk}`).toBe(entity);
  });

  it('knows every entity name a site file may carry, and no key shape matches two entities', () => {
    const registered = new Set(ENTITY_SHAPES.map((shape) => shape.entity));
    expect([...KNOWN_ENTITIES].filter((name) => !registered.has(name))).toEqual([]);
    expect(entityOfKey('USER#../1', 'USER')).toBeUndefined();
    expect(entityOfKey('GIZMO#1', 'GIZMO')).toBeUndefined();
  });

  it('lists the entities whose file declares an exact item schema (the rest are key-checked only)', () => {
    expect(ENTITY_SHAPES.filter((shape) => shape.exact).map((shape) => shape.entity)).toEqual([
      'User',
      'Badge',
      'Token',
      'ResetLink',
      'SigningToken',
      'Webhook',
    ]);
  });

  it('sizes items as DynamoDB does, near enough to refuse what it refuses', () => {
    const item = marshall({ pk: 'USER#1', sk: 'USER', about_raw: 'x'.repeat(1000), n: 12345 });
    expect(itemBytes(item)).toBeGreaterThan(1000 + 'about_raw'.length);
    expect(itemBytes(item)).toBeLessThan(1100);
    expect(itemBytes(marshall({ pk: 'x', big: 'y'.repeat(MAX_ITEM_BYTES) }))).toBeGreaterThan(MAX_ITEM_BYTES);
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
