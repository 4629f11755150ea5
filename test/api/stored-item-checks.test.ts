/**
 * A stored item that departs from its entity's declaration is refused at the read (decision
 * 202): the answer is the documented 500 naming the mismatch, never a TypeError from deep
 * inside a view. The item is corrupted straight in the local stack's table.
 */
import { describe, expect, inject, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { api, createUser } from '../support/api.ts';
import { createGuide } from './guide-fixtures.ts';

function localDb() {
  const client = new DynamoDBClient({
    endpoint: inject('ddbEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  return DynamoDBDocumentClient.from(client);
}

/** SETs one attribute of a guide item to a value its declaration does not allow. */
async function corruptGuide(guideid: number, field: string, value: unknown): Promise<void> {
  await localDb().send(
    new UpdateCommand({
      TableName: 'stepwise',
      Key: { pk: `GUIDE#${guideid}`, sk: 'GUIDE' },
      UpdateExpression: 'SET #field = :value',
      ExpressionAttributeNames: { '#field': field },
      ExpressionAttributeValues: { ':value': value },
    }),
  );
}

describe('a stored item that does not match its declaration', () => {
  it('is answered 500 with the declaration message, not a TypeError, and a sound guide still reads', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const sound = await createGuide(author.token);
    const broken = await createGuide(author.token);
    // `steps` as a map: a view mapping over it would throw a TypeError.
    await corruptGuide(broken.guideid, 'steps', { stepid: 'one' });

    const answer = await api('GET', `/guides/${broken.guideid}`, { token: author.token });
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ message: 'A stored record does not match its declaration' });

    expect((await api('GET', `/guides/${sound.guideid}`, { token: author.token })).status).toBe(200);
  });

  it('refuses an attribute the guide never writes (the schema is exact)', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const guide = await createGuide(author.token);
    await corruptGuide(guide.guideid, 'is_admin', true);

    const answer = await api('GET', `/guides/${guide.guideid}`, { token: author.token });
    expect(answer.status).toBe(500);
    expect(answer.body.message).toBe('A stored record does not match its declaration');
  });
});
