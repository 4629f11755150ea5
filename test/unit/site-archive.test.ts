/** The pure parts of the site file: entity names, item comparison, the reference table. */
import { describe, expect, it } from 'vitest';
import { definedTarget, referencesOf } from '../../shared/site-archive/catalogue.ts';
import { sameItem } from '../../shared/site-archive/item-compare.ts';
import { entityOf } from '../../shared/site-archive/records.ts';

describe('entityOf', () => {
  it('names items without an entity attribute by key, in plain and DynamoDB JSON', () => {
    expect(entityOf({ pk: 'QUIZCOUNT', sk: 'COUNT' })).toBe('QuizCount');
    expect(entityOf({ pk: { S: 'USER#3' }, sk: { S: 'TRAINSUMMARY' } })).toBe('TrainingSummary');
    expect(entityOf({ pk: { S: 'TEAM#3' }, sk: { S: 'TRAINSUMMARY' } })).toBe('TrainingSummary');
    expect(entityOf({ pk: 'COUNTER#guide', sk: 'COUNTER' })).toBe('Counter');
    expect(entityOf({ pk: 'GIZMO#1', sk: 'X' })).toBe('Unknown:GIZMO');
    expect(entityOf({ pk: { S: 'USER#3' }, sk: { S: 'USER' }, entity: { S: 'User' } })).toBe('User');
  });
});

describe('sameItem', () => {
  const item = {
    pk: { S: 'USER#3' },
    sk: { S: 'USER' },
    teams: { NS: ['1', '2'] },
    password_hash: { S: 'scrypt$a' },
    badge_counts: { M: { gold: { N: '0' }, total: { N: '1' } } },
  };

  it('ignores the order of attributes and of set members', () => {
    const reordered = {
      badge_counts: { M: { total: { N: '1' }, gold: { N: '0' } } },
      teams: { NS: ['2', '1'] },
      password_hash: { S: 'scrypt$a' },
      sk: { S: 'USER' },
      pk: { S: 'USER#3' },
    };
    expect(sameItem(item, reordered)).toBe(true);
  });

  it('sees any other difference, and leaves out only the attributes named', () => {
    expect(sameItem(item, { ...item, teams: { NS: ['1'] } })).toBe(false);
    expect(sameItem(item, { ...item, password_hash: { S: 'scrypt$b' } })).toBe(false);
    expect(sameItem(item, { ...item, password_hash: { S: 'scrypt$b' } }, ['password_hash'])).toBe(true);
    const { password_hash: _, ...without } = item;
    expect(sameItem(item, without)).toBe(false);
  });
});

describe('references', () => {
  it('follow the document type of a release and skip ids of 0', () => {
    expect(referencesOf('Release', { doctype: 'guide', docid: 7 })).toEqual([{ target: 'guide', id: 7 }]);
    expect(referencesOf('Release', { doctype: 'wiki', docid: 9 })).toEqual([{ target: 'wiki', id: 9 }]);
    expect(referencesOf('TeamMember', { teamid: 2, userid: 0 })).toEqual([{ target: 'team', id: 2 }]);
  });

  it('are defined only by the main item of an entity, not by items under its partition', () => {
    expect(definedTarget('User', { pk: 'USER#4', sk: 'USER' })).toEqual({ target: 'user', id: 4 });
    expect(definedTarget('FavoriteGuide', { pk: 'USER#4', sk: 'FAVORITE#GUIDE#000000000001' })).toBeUndefined();
    expect(definedTarget('Guide', { pk: 'GUIDE#4', sk: 'REV#000000000002' })).toBeUndefined();
  });
});
