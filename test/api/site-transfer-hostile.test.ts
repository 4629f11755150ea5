/**
 * Hostile site files (issue 23, items 2, 3 and 11): what a file says about itself is never
 * trusted. Imported over HTTP into stacks of their own: a merge target with an Admin, a victim
 * and a webhook; an empty target holding only its first Admin.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES } from '../../shared/site-archive/line-reader.ts';
import { ADMIN } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import { exportSite, fileOf, importSite, recordsOf, siteAt, type Site } from '../support/site-transfer.ts';

const ADMIN_ENV = {
  STEPWISE_ADMIN_EMAIL: ADMIN.email,
  STEPWISE_ADMIN_PASSWORD: ADMIN.password,
  STEPWISE_FETCH_ALLOW_HOSTS: '127.0.0.1',
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const pad = (id: number) => String(id).padStart(12, '0');

let stacks: RunningStack[] = [];
let merge: Site;
let empty: Site;
let victim: number;
let webhookid: number;
const WEBHOOK_SECRET = 'receiver-secret-0123456789';

const HEADER = {
  type: 'header',
  format: 'stepwise-site',
  format_version: 1,
  created_at: '2026-11-26T00:00:00.000Z',
  source: { kind: 'export', base_url: null },
};

type Entry = { entity: string; item: Record<string, unknown> };
/** A site file of these items (and objects), with a correct end record. */
function fileWith(items: Entry[], objects: Array<{ bucket: string; key: string; data: Buffer }> = []) {
  const body: unknown[] = [HEADER, ...items.map((entry) => ({ type: 'item', ...entry }))];
  for (const object of objects) {
    body.push({
      type: 'object',
      bucket: object.bucket,
      key: object.key,
      content_type: 'text/plain',
      size: object.data.length,
      sha256: createHash('sha256').update(object.data).digest('hex'),
      chunks: 1,
    });
    body.push({
      type: 'object_chunk',
      bucket: object.bucket,
      key: object.key,
      index: 0,
      data: object.data.toString('base64'),
    });
  }
  const counts: Record<string, number> = {};
  for (const entry of items) counts[entry.entity] = (counts[entry.entity] ?? 0) + 1;
  return fileOf([...body, { type: 'end', records: body.length, counts, objects: objects.length }]);
}

/** A token item for `userid` whose plain token the file's author knows. */
function plantedToken(userid: number): { token: string; entry: Entry } {
  const token = `${randomBytes(32).toString('hex')}.${userid}`;
  const hash = sha256(token);
  const now = Math.floor(Date.now() / 1000);
  return {
    token,
    entry: {
      entity: 'Token',
      item: {
        pk: { S: `TOKEN#${hash}` },
        sk: { S: 'TOKEN' },
        entity: { S: 'Token' },
        gsi1pk: { S: `USER#${userid}#TOKENS` },
        gsi1sk: { S: String(now) },
        ttl: { N: String(now + 86_400) },
        token_hash: { S: hash },
        userid: { N: String(userid) },
        created: { N: String(now) },
        expires: { N: String(now + 86_400) },
        impersonator_userid: { NULL: true },
      },
    },
  };
}

/** A complete User item as the app writes it. */
function userItem(userid: number, email: string, privileges: string[], passwordHash = ''): Record<string, unknown> {
  return {
    pk: { S: `USER#${userid}` },
    sk: { S: 'USER' },
    entity: { S: 'User' },
    gsi1pk: { S: 'USERS' },
    gsi1sk: { S: pad(userid) },
    userid: { N: String(userid) },
    username: { S: `Person ${userid}` },
    unique_username: { NULL: true },
    email: { S: email },
    password_hash: { S: passwordHash },
    privileges: { L: privileges.map((role) => ({ S: role })) },
    join_date: { N: '1700000000' },
    reputation: { N: '1' },
    image: { NULL: true },
    location: { NULL: true },
    summary: { NULL: true },
    about_raw: { S: '' },
    sso_userid: { NULL: true },
    employee_id: { NULL: true },
    created_by: { NULL: true },
    flags: { L: [] },
    badge_counts: { M: { bronze: { N: '0' }, silver: { N: '0' }, gold: { N: '0' }, total: { N: '0' } } },
    search_tokens: { L: [] },
    version: { N: '1' },
  };
}

const uniqueEmail = (email: string, userid: number): Entry => ({
  entity: 'Unique',
  item: {
    pk: { S: `UNIQUE#EMAIL#${email}` },
    sk: { S: 'UNIQUE' },
    entity: { S: 'Unique' },
    kind: { S: 'EMAIL' },
    userid: { N: String(userid) },
  },
});

beforeAll(async () => {
  stacks = await Promise.all([startStackProcess(ADMIN_ENV), startStackProcess(ADMIN_ENV)]);
  merge = siteAt(stacks[0]!.url);
  empty = siteAt(stacks[1]!.url);
  const admin = await merge.admin();
  const created = await merge.call('POST', '/users', {
    token: admin,
    body: { email: 'victim@example.com', username: 'Victim', password: 'victim-Secret-1', unique_username: 'victim' },
  });
  expect(created.status, created.text).toBe(201);
  victim = created.body.userid;
  const hook = await merge.call('POST', '/webhooks', {
    token: admin,
    body: { url: 'http://127.0.0.1:9/in', events: ['*'], secret: WEBHOOK_SECRET },
  });
  expect(hook.status, hook.text).toBe(201);
  webhookid = hook.body.webhookid;
}, 300_000);

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
});

describe('credentials and privileges (decision 164)', () => {
  it('a token for an account the site has is never written: it is named and skipped, and does not log in', async () => {
    const { token, entry } = plantedToken(1);
    const dry = await importSite(merge, fileWith([entry]), { mode: 'merge', dry_run: true });
    expect(dry.status).toBe('validated');
    expect(dry.report.counts).toEqual({ Token: 1 });
    expect(dry.report.credentials.items).toEqual([
      expect.stringMatching(
        /^Token TOKEN#[0-9a-f]{64} \/ TOKEN \(user 1\): skipped, user 1 already has an account here$/,
      ),
    ]);
    const done = await importSite(merge, fileWith([entry]), { mode: 'merge' });
    expect(done.status, done.error).toBe('complete');
    expect(done.report.written).toBe(0);
    expect((await merge.call('GET', '/users', { token })).status).toBe(401);
  });

  it('a reset link disguised as a badge is named by its key and refused; it resets nobody', async () => {
    const link = randomBytes(32).toString('hex');
    const disguised = {
      pk: { S: `RESET#${sha256(link)}` },
      sk: { S: 'RESET' },
      entity: { S: 'Badge' },
      userid: { N: String(victim) },
      ttl: { N: String(Math.floor(Date.now() / 1000) + 3600) },
    };
    const { entry } = plantedToken(1);
    const file = fileWith([{ entity: 'Badge', item: disguised }, entry]);
    const dry = await importSite(merge, file, { mode: 'merge', dry_run: true });
    expect(dry.status).toBe('failed');
    expect(dry.report.counts).toEqual({ ResetLink: 1, Token: 1 });
    expect(dry.report.invalid_items.items).toEqual([
      `Badge RESET#${sha256(link)} / RESET: the record says Badge, its key is a ResetLink`,
    ]);
    expect(dry.report.credentials.items).toHaveLength(1);
    const done = await importSite(merge, file, { mode: 'merge' });
    expect(done.status).toBe('failed');
    expect(done.report.written).toBe(0);
    const reset = await merge.call('POST', '/users/reset_password/complete', {
      body: { token: link, password: 'taken-over-Secret-9' },
    });
    expect(reset.status).toBeGreaterThanOrEqual(400);
    expect(
      (await merge.call('POST', '/user/token', { body: { email: 'victim@example.com', password: 'victim-Secret-1' } }))
        .status,
    ).toBe(201);
  });

  it('merge mode refuses a new Admin unless allow_admin_grants; the dry run names it and its token', async () => {
    const email = 'planted-admin@example.com';
    const { token, entry } = plantedToken(7001);
    const file = fileWith([
      { entity: 'User', item: userItem(7001, email, ['Admin']) },
      uniqueEmail(email, 7001),
      entry,
    ]);
    const dry = await importSite(merge, file, { mode: 'merge', dry_run: true });
    expect(dry.status).toBe('failed');
    expect(dry.error).toMatch(/allow_admin_grants/);
    expect(dry.report.privileged.items).toEqual([`user 7001 <${email}>: Admin`]);
    expect(dry.report.credentials.items).toEqual([
      expect.stringMatching(/\(user 7001\): written with its new account$/),
    ]);
    const refused = await importSite(merge, file, { mode: 'merge' });
    expect(refused.status).toBe('failed');
    expect((await merge.call('GET', '/users', { token })).status).toBe(401);

    const allowed = await importSite(merge, file, { mode: 'merge', allow_admin_grants: true });
    expect(allowed.status, allowed.error).toBe('complete');
    expect(allowed.allow_admin_grants).toBe(true);
    expect((await merge.call('GET', '/users', { token })).status).toBe(200);
  });

  it('empty mode keeps the operator an Admin even when the file makes their account a plain User', async () => {
    const file = fileWith([
      { entity: 'User', item: userItem(1, ADMIN.email, ['User']) },
      uniqueEmail(ADMIN.email, 1),
      { entity: 'User', item: userItem(2, 'second@example.com', ['Admin']) },
      uniqueEmail('second@example.com', 2),
    ]);
    const done = await importSite(empty, file, { mode: 'empty' });
    expect(done.status, done.error).toBe('complete');
    expect(done.report.privileged.items).toContain('user 2 <second@example.com>: Admin');
    const login = await empty.call('POST', '/user/token', { body: ADMIN });
    expect(login.status).toBe(201);
    const users = await empty.call('GET', '/users', { token: login.body.authToken });
    expect(users.status).toBe(200);
    const me = await empty.call('GET', '/user', { token: login.body.authToken });
    expect(me.body.privileges).toContain('Admin');
  });
});

describe('imported data is checked (decision 165)', () => {
  it('a User with a number for its username is refused with the reason; GET /users keeps working', async () => {
    const email = 'numbered@example.com';
    const item = { ...userItem(7100, email, ['User']), username: { N: '5' } };
    const done = await importSite(merge, fileWith([{ entity: 'User', item }, uniqueEmail(email, 7100)]), {
      mode: 'merge',
    });
    expect(done.status).toBe('failed');
    expect(done.report.invalid_items.items).toEqual([
      expect.stringMatching(/^User USER#7100 \/ USER: username: /),
      // Its record refused, the file's claim of its email has no record to come from (decision 254).
      expect.stringMatching(/^Unique UNIQUE#EMAIL#numbered@example.com \/ UNIQUE: no record of the file holds/),
    ]);
    expect(done.report.written).toBe(0);
    expect((await merge.call('GET', '/users', { token: await merge.admin() })).status).toBe(200);
    expect((await merge.call('GET', '/users/7100', { token: await merge.admin() })).status).toBe(404);
  });

  it('an unknown key shape under a known name is refused', async () => {
    const item = { ...userItem(7200, 'odd@example.com', ['User']), pk: { S: 'USER#../7200' } };
    const done = await importSite(merge, fileWith([{ entity: 'User', item }]), { mode: 'merge', dry_run: true });
    expect(done.status).toBe('failed');
    expect(done.report.invalid_items.items[0]).toMatch(/a key shape this site never writes/);
  });

  it('an item over 400 KB is refused by size, and the stack keeps answering', async () => {
    const email = 'huge@example.com';
    const item = { ...userItem(7300, email, ['User']), about_raw: { S: 'x'.repeat(500 * 1024) } };
    const done = await importSite(merge, fileWith([{ entity: 'User', item }]), { mode: 'merge' });
    expect(done.status).toBe('failed');
    expect(done.report.invalid_items.items[0]).toMatch(/over DynamoDB's item limit of 409600/);
    expect((await merge.call('GET', '/users', { token: await merge.admin() })).status).toBe(200);
  }, 60_000);

  // Twice the bound (4 MiB): the read stops at the bound, so a larger line (the hostile 30 MB one) proves no more.
  it('a line twice the bound is refused before it is held whole, naming its line; the stack answers', async () => {
    const about = 'x'.repeat(2 * MAX_LINE_BYTES);
    const item = { ...userItem(7301, 'huger@example.com', ['User']), about_raw: { S: about } };
    const done = await importSite(merge, fileWith([{ entity: 'User', item }]), { mode: 'merge' });
    expect(done.status).toBe('failed');
    expect(JSON.stringify(done)).toMatch(/Line 2 is longer than 4194304 bytes/);
    expect((await merge.call('GET', '/users', { token: await merge.admin() })).status).toBe(200);
  }, 60_000);

  it('object keys outside the shapes the site writes are refused, nothing is stored', async () => {
    const file = fileWith(
      [],
      [
        { bucket: 'media', key: 'originals/5/../../../../escaped.txt', data: Buffer.from('planted') },
        { bucket: 'modules', key: 'site-transfer/imports/1/site.jsonl', data: Buffer.from('planted') },
      ],
    );
    const done = await importSite(merge, file, { mode: 'merge' });
    expect(done.status).toBe('failed');
    expect(done.report.invalid_items.total).toBe(2);
    expect(done.report.written).toBe(0);
  });

  it('the local S3 emulator refuses a key that leaves its bucket', async () => {
    const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const s3 = new S3Client({
      endpoint: stacks[0]!.s3Endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    for (const Key of ['originals/1/../../../x.txt', 'originals/1/..\\..\\..\\y.txt']) {
      await expect(s3.send(new PutObjectCommand({ Bucket: 'stepwise-media', Key, Body: 'x' })), Key).rejects.toThrow(
        /outside its bucket|InvalidObjectName/,
      );
    }
  });
});

describe('webhook secrets (decision 167)', () => {
  const webhookRecord = (records: any[]) => records.find((r) => r.type === 'item' && r.entity === 'Webhook');

  it('an export leaves webhook secrets out; the import names the webhook to set again, inactive', async () => {
    const { file } = await exportSite(merge, { include_objects: false });
    expect(file.toString('utf8')).not.toContain(WEBHOOK_SECRET);
    const hook = webhookRecord(recordsOf(file));
    expect(hook.item.secret).toEqual({ S: '' });
    const moved = { ...hook.item, pk: { S: 'WEBHOOK#9001' }, webhookid: { N: '9001' }, gsi1sk: { S: pad(9001) } };
    const done = await importSite(merge, fileWith([{ entity: 'Webhook', item: moved }]), { mode: 'merge' });
    expect(done.status, done.error).toBe('complete');
    expect(done.report.webhook_secrets.items).toEqual(['webhook 9001 http://127.0.0.1:9/in']);
    const read = await merge.call('GET', '/webhooks/9001', { token: await merge.admin() });
    expect(read.body.active).toBe(false);
  }, 60_000);

  it('with a passphrase the secret travels sealed; a wrong passphrase is a clear refusal', async () => {
    const passphrase = 'correct horse battery staple';
    const { file, view } = await exportSite(merge, { include_objects: false, webhook_secrets_passphrase: passphrase });
    expect(view.webhook_secrets).toBe(true);
    expect(file.toString('utf8')).not.toContain(WEBHOOK_SECRET);
    const hook = webhookRecord(
      recordsOf(file).filter((r) => r.type !== 'item' || r.item.webhookid?.N === String(webhookid)),
    );
    expect(hook.item.secret.S).toMatch(/^stepwise-sealed:v1:/);
    const moved = { ...hook.item, pk: { S: 'WEBHOOK#9002' }, webhookid: { N: '9002' }, gsi1sk: { S: pad(9002) } };
    const sealed = fileWith([{ entity: 'Webhook', item: moved }]);
    const wrong = await importSite(merge, sealed, { mode: 'merge', secrets_passphrase: 'not the passphrase' });
    expect(wrong.status).toBe('failed');
    expect(wrong.error).toBe('The passphrase does not open the webhook secrets of this file');
    const none = await importSite(merge, sealed, { mode: 'merge' });
    expect(none.error).toMatch(/give secrets_passphrase/);
    const done = await importSite(merge, sealed, { mode: 'merge', secrets_passphrase: passphrase });
    expect(done.status, done.error).toBe('complete');
    expect(done.report.webhook_secrets.total).toBe(0);
  }, 60_000);
});

describe('identity is the key (issue 35 item 1, decision 254)', () => {
  const PASSWORD = 'stranger-Secret-1';
  /** A password hash the site accepts for PASSWORD, read from an account made for it. */
  let strangerHash: string;

  beforeAll(async () => {
    const made = await empty.call('POST', '/users', {
      token: await siteAt(empty.url).admin(),
      body: { email: 'hash-donor@example.com', username: 'Donor', password: PASSWORD },
    });
    expect(made.status, made.text).toBe(201);
    const { file } = await exportSite(empty, { include_objects: false });
    const donor = recordsOf(file).find((r) => r.type === 'item' && r.item.email?.S === 'hash-donor@example.com');
    strangerHash = donor.item.password_hash.S;
  }, 120_000);

  it('a User keyed USER#771551 whose userid says 1 is refused with the reason; it never signs in as the Admin', async () => {
    const email = 'stranger@example.com';
    const item = { ...userItem(771551, email, ['User'], strangerHash), userid: { N: '1' } };
    const file = fileWith([{ entity: 'User', item }, uniqueEmail(email, 771551)]);
    const done = await importSite(merge, file, { mode: 'merge' });
    expect(done.status).toBe('failed');
    expect(done.report.invalid_items.items).toEqual([
      'User USER#771551 / USER: its attributes (userid 1) disagree with its key USER#771551 / USER: ' +
        'the key decides what an item is',
      expect.stringMatching(/^Unique UNIQUE#EMAIL#stranger@example.com \/ UNIQUE: no record of the file holds/),
    ]);
    expect(done.report.written).toBe(0);
    expect((await merge.call('POST', '/user/token', { body: { email, password: PASSWORD } })).status).toBe(401);
    const me = await merge.call('GET', '/user', { token: await merge.admin() });
    expect(me.body).toMatchObject({ userid: 1, privileges: expect.arrayContaining(['Admin']) });
  });

  it('a claim UNIQUE#SSO#<provider>|evil pointing at the Admin is refused: claims come from their records', async () => {
    const claim = (userid: number): Entry => ({
      entity: 'Unique',
      item: {
        pk: { S: 'UNIQUE#SSO#corp-oidc|evil' },
        sk: { S: 'UNIQUE' },
        entity: { S: 'Unique' },
        kind: { S: 'SSO' },
        userid: { N: String(userid) },
      },
    });
    const alone = await importSite(merge, fileWith([claim(1)]), { mode: 'merge' });
    expect(alone.status).toBe('failed');
    expect(alone.report.invalid_items.items).toEqual([
      'Unique UNIQUE#SSO#corp-oidc|evil / UNIQUE: no record of the file holds this value; ' +
        'claims are derived from the records they guard',
    ]);
    expect(alone.report.written).toBe(0);
    // A new account of the file that does hold the subject: the claim must name it, not the Admin.
    const evil = { ...userItem(7400, 'evil@example.com', ['User']), sso_userid: { S: 'corp-oidc|evil' } };
    const disguised = await importSite(
      merge,
      fileWith([{ entity: 'User', item: evil }, uniqueEmail('evil@example.com', 7400), claim(1)]),
      { mode: 'merge' },
    );
    expect(disguised.status).toBe('failed');
    expect(disguised.report.invalid_items.items).toEqual([
      expect.stringMatching(/^Unique UNIQUE#SSO#corp-oidc\|evil \/ UNIQUE: names another owner than the record/),
    ]);
    expect(disguised.report.written).toBe(0);
  });

  it("a file's account without claim items gets the claims its record holds; counters pass its key", async () => {
    const email = 'claimless@example.com';
    const item = userItem(880001, email, ['User'], strangerHash);
    const done = await importSite(merge, fileWith([{ entity: 'User', item }]), { mode: 'merge' });
    expect(done.status, done.error).toBe('complete');
    const login = await merge.call('POST', '/user/token', { body: { email, password: PASSWORD } });
    expect(login.status, login.text).toBe(201);
    expect(login.body.userid).toBe(880001);
    // The email is taken now: nobody else can register it.
    const twin = await merge.call('POST', '/users', {
      token: await merge.admin(),
      body: { email: email.toUpperCase(), username: 'Twin', password: 'twin-Secret-12' },
    });
    expect(twin.status).toBeGreaterThanOrEqual(400);
    const next = await merge.call('POST', '/users', {
      token: await merge.admin(),
      body: { email: 'after-import@example.com', username: 'After', password: 'after-Secret-12' },
    });
    expect(next.status, next.text).toBe(201);
    expect(next.body.userid).toBeGreaterThan(880001);
  });
});
