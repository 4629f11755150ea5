/**
 * The category index (decision 211): a category page reads its guides from one sorted
 * reference per (category, guide), moved in the guide's own transactions, not from every guide
 * of the site. Guides stored before the index get their references from
 * `npm run guides:category-index` (infra/ops/backfill/category-index.ts).
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { getGuide } from '../../shared/db/entities/guide.ts';
import { categoryRefWrites } from '../../shared/db/entities/guide-link.ts';
import { transactWrite } from '../../shared/db/transactions.ts';
import { rebuildCategoryIndex } from '../../infra/ops/backfill/category-index.ts';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { createCategory, createGuide, publish } from './guide-fixtures.ts';

let admin: string;

beforeAll(async () => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
  admin = await loginAdmin();
});

async function pageGuideids(title: string, token = admin): Promise<number[]> {
  const answer = await api('GET', `/categories/${encodeURIComponent(title)}`, { token });
  expect(answer.status).toBe(200);
  return answer.body.guides.map((guide: { guideid: number }) => guide.guideid);
}

describe('category index', () => {
  it('follows a guide as it is created, moved to another category and deleted', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    // One title a prefix of the other: each category's references stay its own.
    const first = await createCategory();
    const second = await api('POST', '/wikis', {
      token: admin,
      body: { namespace: 'CATEGORY', title: `${first} 2`, contents: 'x' },
    });
    expect(second.status).toBe(201);
    const [a, b] = [
      await createGuide(writer.token, { category: first }),
      await createGuide(writer.token, { category: first }),
    ];
    expect(await pageGuideids(first)).toEqual([a.guideid, b.guideid]);
    expect(await pageGuideids(second.body.title)).toEqual([]);

    const moved = await api('PATCH', `/guides/${a.guideid}`, {
      token: writer.token,
      query: { revisionid: a.revisionid },
      body: { category: second.body.title },
    });
    expect(moved.status).toBe(200);
    expect(await pageGuideids(first)).toEqual([b.guideid]);
    expect(await pageGuideids(second.body.title)).toEqual([a.guideid]);

    const deleted = await api('DELETE', `/guides/${b.guideid}`, {
      token: writer.token,
      query: { revisionid: b.revisionid },
    });
    expect(deleted.status).toBe(204);
    expect(await pageGuideids(first)).toEqual([]);
  });

  it('keeps the answer per caller: a private guide shows to its author, not to a reader', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const reader = await createUser();
    const title = await createCategory();
    const hidden = await createGuide(writer.token, { category: title });
    const shown = await publish(writer.token, await createGuide(writer.token, { category: title }));
    expect(await pageGuideids(title, writer.token)).toEqual([hidden.guideid, shown.guideid]);
    expect(await pageGuideids(title, reader.token)).toEqual([shown.guideid]);
  });

  it('shows guides stored before the index once the rebuild has run (idempotent)', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const title = await createCategory();
    const guide = await createGuide(writer.token, { category: title });
    // As a guide written before decision 211: no reference.
    await transactWrite(categoryRefWrites((await getGuide(guide.guideid))!, null));
    expect(await pageGuideids(title)).toEqual([]);

    const indexed = await rebuildCategoryIndex();
    expect(indexed).toBeGreaterThan(0);
    expect(await pageGuideids(title)).toEqual([guide.guideid]);
    await rebuildCategoryIndex();
    expect(await pageGuideids(title)).toEqual([guide.guideid]);
  });
});
