/**
 * `npm run guides:summary-backfill` (infra/ops/backfill/guide-summary-copies.ts) against the test
 * stack's table: a guide tagged and given a quiz before decision 283 (its item without the `tags`
 * and `attached_quiz` copies) lists `tags: []` and `attachedQuiz: null`; after the backfill its
 * summary shows both, a second run writes nothing, and the command itself runs and resumes.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { reloadConfig } from '../../shared/config.ts';
import { db, tableName } from '../../shared/db/client.ts';
import { guideKey } from '../../shared/db/entities/guide.ts';
import { backfillGuideSummaryCopies } from '../../infra/ops/backfill/guide-summary-copies.ts';
import { api, createUser, loginAdmin } from '../support/api.ts';
import { runOperatorCommand } from '../support/operator-commands.ts';
import { createCategory, createGuide, publish } from './guide-fixtures.ts';
import { importQuiz } from './quiz-fixtures.ts';

beforeAll(() => {
  process.env.DDB_ENDPOINT = inject('ddbEndpoint');
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  reloadConfig();
});

describe('guides:summary-backfill', () => {
  it("copies a guide's tags and attached quiz onto guides stored before decision 283; idempotent and resumable", async () => {
    const admin = await loginAdmin();
    const writer = await createUser({ privileges: ['Author'] });
    const cat = await createCategory();
    const guide = await publish(writer.token, await createGuide(writer.token, { category: cat }));
    for (const tag of ['zinc', 'brass']) {
      expect((await api('PUT', `/guides/${guide.guideid}/tag`, { token: writer.token, body: { tag } })).status).toBe(
        200,
      );
    }
    const quiz = await importQuiz();
    const attached = await api('POST', '/quizzes/attach/guide', {
      token: admin,
      query: { revisionid: guide.revisionid },
      body: { quizid: quiz.quizid, guideid: guide.guideid },
    });
    expect(attached.status).toBe(201);
    const summaryOf = async () => {
      const page = await api('GET', `/categories/${encodeURIComponent(cat)}`, { token: writer.token });
      return page.body.guides.find((summary: { guideid: number }) => summary.guideid === guide.guideid);
    };
    // As stored before decision 283: the links only.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: guideKey(guide.guideid),
        UpdateExpression: 'REMOVE tags, attached_quiz',
      }),
    );
    expect(await summaryOf()).toMatchObject({ tags: [], attachedQuiz: null });

    const first = await backfillGuideSummaryCopies({ afterGuideid: guide.guideid - 1 });
    expect(first.guides).toBeGreaterThanOrEqual(1);
    expect(first.tagsWritten).toBeGreaterThanOrEqual(1);
    expect(first.quizzesWritten).toBeGreaterThanOrEqual(1);
    expect(await summaryOf()).toMatchObject({
      tags: ['brass', 'zinc'],
      attachedQuiz: { quizid: quiz.quizid, quiz_revisionid: quiz.quiz_revisionid },
    });
    // The guide still takes edits at its (bumped) version: nothing was left inconsistent.
    const current = await api('GET', `/guides/${guide.guideid}`, { token: writer.token });
    const edited = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: current.body.revisionid },
      body: { summary: 'Edited after the backfill' },
    });
    expect(edited.status).toBe(200);
    expect(await summaryOf()).toMatchObject({ tags: ['brass', 'zinc'], attachedQuiz: { quizid: quiz.quizid } });

    // Run again from the guide, through the command: this guide has nothing left to write.
    const versionOf = async () =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: guideKey(guide.guideid), ConsistentRead: true })))
        .Item?.version;
    const before = await versionOf();
    const run = await runOperatorCommand('guides:summary-backfill', ['--after', String(guide.guideid - 1)]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Done: \d+ guides read/);
    expect(run.stderr).toMatch(/resume: --after \d+/);
    expect(await versionOf()).toBe(before);
    // Resumed after this guide: it is not read again (the run starts past it).
    const resumed = await backfillGuideSummaryCopies({ afterGuideid: guide.guideid });
    expect(resumed.lastGuideid).toBeGreaterThanOrEqual(guide.guideid);
  });
});
