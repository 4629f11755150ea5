/**
 * Site import over HTTP (issue 15's proof): a source stack is populated with every kind of
 * entity the API creates, exported, and the file imported into a second, EMPTY stack; every GET
 * answers the same on both, chains verify, ids continue past the imported ones and the operator
 * still logs in. Then the refusals: dry-run reports, empty and merge modes, the same file twice.
 * Both stacks are started here (the shared one changes while other files run).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, api, apiAt, loginAdmin } from '../support/api.ts';
import { startStackProcess, type RunningStack } from '../support/local-stack-process.ts';
import {
  exportSite,
  fileOf,
  importSite,
  recordsOf,
  sha256,
  siteAt,
  untilSettled,
  uploadSiteFile,
  type Site,
} from '../support/site-transfer.ts';
import { onEachReading, populateSite, withoutHosts, type Person, type Population } from '../support/site-population.ts';
import { entityShape } from '../../shared/db/entity-schemas.ts';

const ADMIN_ENV = { STEPWISE_ADMIN_EMAIL: ADMIN.email, STEPWISE_ADMIN_PASSWORD: ADMIN.password };
let stacks: RunningStack[] = [];
/** Mail the target sends (reset links of migrated accounts). */
const targetOutbox = mkdtempSync(join(tmpdir(), 'stepwise-transfer-outbox-'));
let source: Site;
let target: Site;

let made: Population;

beforeAll(async () => {
  // Small parts on the source, so its export spans several.
  stacks = await Promise.all([
    startStackProcess({ ...ADMIN_ENV, STEPWISE_TRANSFER_PART_BYTES: String(16 * 1024) }),
    startStackProcess({ ...ADMIN_ENV, STEPWISE_OUTBOX_DIR: targetOutbox }),
  ]);
  source = siteAt(stacks[0]!.url);
  target = siteAt(stacks[1]!.url);
  made = await populateSite(source);
}, 240_000);

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
});

describe('round trip into an empty site', () => {
  let file: Buffer;
  let records: any[];
  let exported: any;

  beforeAll(async () => {
    ({ view: exported, file } = await exportSite(source));
    records = recordsOf(file);
  }, 120_000);

  it('exports the populated site as parts that parse, with counts that match and no unknown entity', () => {
    expect(exported.files.length).toBeGreaterThan(1);
    expect(exported.files.every((part: any) => part.size > 0 && part.expires_at > exported.completed_at)).toBe(true);
    expect(records[0]).toMatchObject({ type: 'header', format: 'stepwise-site', format_version: 1 });
    const end = records.at(-1);
    expect(end.type).toBe('end');
    expect(end.records).toBe(records.length - 1);
    const counts: Record<string, number> = {};
    for (const record of records.filter((r) => r.type === 'item'))
      counts[record.entity] = (counts[record.entity] ?? 0) + 1;
    expect(end.counts).toEqual(counts);
    expect(exported.counts).toEqual(counts);
    expect(Object.keys(counts).filter((name) => name.startsWith('Unknown:'))).toEqual([]);
    for (const entity of [
      'User',
      'Team',
      'Guide',
      'Step',
      'MediaItem',
      'Release',
      'Wiki',
      'Comment',
      'Course',
      'CourseAssignment',
      'WorkLogEntry',
      'QuizSession',
      'ApprovalRequest',
      'AuditRecord',
      'FavoriteGuide',
      'Tag',
    ]) {
      expect(counts[entity], entity).toBeGreaterThan(0);
    }
    // Left out: short-lived secrets, attempt counters, the outbox, and the export job itself.
    for (const entity of [
      'AttemptCounter',
      'ResetLink',
      'SigningToken',
      'OutboxEvent',
      'WebhookDelivery',
      'SiteExport',
    ]) {
      expect(counts[entity], entity).toBeUndefined();
    }
  });

  it("an object's chunks reassemble to its bytes and sha256", async () => {
    const objects = records.filter((r) => r.type === 'object');
    expect(objects.length).toBe(records.at(-1).objects);
    const original = objects.find((o) => o.bucket === 'media' && o.key.startsWith('originals/'));
    const chunks = records.filter((r) => r.type === 'object_chunk' && r.key === original.key);
    expect(chunks.map((c) => c.index)).toEqual([...Array(original.chunks).keys()]);
    const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.data, 'base64')));
    expect(bytes.length).toBe(original.size);
    expect(sha256(bytes)).toBe(original.sha256);
    const [author] = made.people as [Person];
    const item = await source.call('GET', `/user/media/GuideImage/${made.imageid}`, { token: author.token });
    const served = Buffer.from(await (await fetch(item.body.image.original)).arrayBuffer());
    expect(sha256(served)).toBe(original.sha256);
  });

  it('a dry run validates the file and writes nothing', async () => {
    const dry = await importSite(target, file, { dry_run: true });
    // Every item the app wrote passes its entity's key shape and schema (decisions 165, 200), and
    // those schemas are exact (strict, every attribute typed) for all but the LOOSE few.
    expect(dry.report.invalid_items).toEqual({ items: [], total: 0 });
    const carried = Object.keys(records.at(-1).counts);
    expect(carried.length).toBeGreaterThan(40);
    expect(carried.filter((entity) => !entityShape(entity)?.exact)).toEqual(['SortedRef']);
    expect(dry).toMatchObject({ status: 'validated', dry_run: true, percent: 100, error: null });
    expect(dry.report.counts).toEqual(records.at(-1).counts);
    expect(dry.report.objects).toBe(records.at(-1).objects);
    expect(dry.report).toMatchObject({ unknown_types: [], broken_references: { total: 0 }, refusal: null });
    expect((await target.call('GET', `/guides/${made.guideid}`, { token: await target.admin() })).status).toBe(404);
  });

  it('imports the file: written, chains re-verified', async () => {
    const done = await importSite(target, file);
    expect(done.error).toBeNull();
    expect(done.status).toBe('complete');
    expect(done.report.written).toBeGreaterThan(50);
    expect(done.report.chains.broken).toEqual([]);
    expect(done.report.chains.verified).toBeGreaterThan(0);
  });

  // Before any reads: a read records a view, which the file does not hold.
  it('the same file imported again changes nothing: everything is already present', async () => {
    const again = await importSite(target, file);
    expect(again.error).toBeNull();
    expect(again.status).toBe('complete');
    expect(again.report.written).toBe(0);
    expect(again.report.collisions.total).toBe(0);
    const items = records.filter((r) => r.type === 'item' && r.entity !== 'Counter').length;
    // The operator's own tokens name an account the target had before the first import: never
    // written (decision 164), so not present either. Every other token came with its new account.
    const operatorTokens = records.filter((r) => r.entity === 'Token' && r.item.userid.N === '1').length;
    expect(operatorTokens).toBeGreaterThan(0);
    expect(again.report.already_present).toBe(items - operatorTokens + records.at(-1).objects);
  });

  it('every GET of every entity answers the same on both sites', async () => {
    const tokenOn = async (site: Site, token: string) => (token === 'admin' ? site.admin() : token);
    await onEachReading(made, async (path, token) => {
      const [before, after] = await Promise.all([
        source.call('GET', path, { token: await tokenOn(source, token) }),
        target.call('GET', path, { token: await tokenOn(target, token) }),
      ]);
      expect(before.status, path).toBe(200);
      expect(withoutHosts(after.body), path).toEqual(withoutHosts(before.body));
    });
  });

  it('a removed team, a SCIM-deleted account and what a revoked token wrote arrive as they were', async () => {
    const admin = await target.admin();
    // The removed team is still named where the guide's grant reads it, and gone from /teams.
    expect((await target.call('GET', `/teams/${made.removedTeamid}`, { token: admin })).status).toBe(404);
    const grants = await target.call('GET', `/guides/${made.guideid}/teams`, { token: admin });
    expect(JSON.stringify(grants.body)).toContain('Day shift');
    // The deleted account is a disabled account for Admins and gone for SCIM (decision 242).
    const scim = await target.call('POST', '/admin/api_tokens', {
      token: admin,
      body: { name: 'Directory sync after the move', scopes: ['scim'] },
    });
    const siteRoot = target.url.replace(/\/api\/2\.0$/, '');
    const gone = await apiAt(siteRoot, 'GET', `/scim/v2/Users/${made.deprovisionedUserid}`, {
      headers: { authorization: `Bearer ${scim.body.token}` },
    });
    expect(gone.status).toBe(404);
    expect((await target.call('GET', `/users/${made.deprovisionedUserid}`, { token: admin })).status).toBe(200);
    // Tokens do not travel; their content still names the one that wrote it (decision 244).
    const principal = { userid: 0, username: 'Importer bot' };
    const guide = await target.call('GET', `/guides/${made.tokenGuideid}`, { token: admin });
    expect(guide.body.author).toMatchObject(principal);
    const comment = await target.call('GET', `/comments/${made.tokenCommentid}`, { token: admin });
    expect(comment.body.author).toMatchObject(principal);
  });

  it('the audit chains verify on the new site', async () => {
    const admin = await target.admin();
    const document = await target.call('GET', `/audit/documents/guide/${made.guideid}/verify`, { token: admin });
    expect(document.body).toMatchObject({ valid: true });
    const user = await target.call('GET', `/audit/users/${made.people[2]!.userid}/verify`, { token: admin });
    expect(user.body).toMatchObject({ valid: true });
  });

  it('media files come back byte for byte', async () => {
    const [author] = made.people as [Person];
    const read = async (site: Site) => {
      const item = await site.call('GET', `/user/media/GuideImage/${made.imageid}`, { token: author.token });
      // Imported ready (the population waits for processing before the export): nothing is redone.
      expect(item.body.status).toBe('ready');
      const url = item.body.image?.original ?? item.body.original ?? Object.values(item.body.image ?? {})[0];
      const served = await fetch(String(url));
      // A missing object would compare its error body: say so instead.
      expect(served.status, String(url)).toBe(200);
      return Buffer.from(await served.arrayBuffer());
    };
    const [before, after] = await Promise.all([read(source), read(target)]);
    expect(after.length).toBeGreaterThan(0);
    expect(after.equals(before)).toBe(true);
  });

  it('the operator still logs in, and new ids continue past the imported ones', async () => {
    const login = await target.call('POST', '/user/token', { body: ADMIN });
    expect(login.status).toBe(201);
    const [author] = made.people as [Person];
    const guide = await target.call('POST', '/guides', {
      token: author.token,
      body: { category: made.category, type: 'how-to', title: 'After the move' },
    });
    expect(guide.status).toBe(201);
    expect(guide.body.guideid).toBeGreaterThan(made.guideid);
    const user = await target.call('POST', '/users', {
      token: login.body.authToken,
      body: { email: 'after@example.com', username: 'After', password: 'pw-after-Secret', unique_username: 'after' },
    });
    expect(user.body.userid).toBeGreaterThan(Math.max(...made.people.map((p) => p.userid)));
  });
});

describe('refusals', () => {
  let file: Buffer;
  let records: any[];
  /** A file of a header, these items and a correct end record. */
  const fileWith = (items: Array<{ entity: string; item: Record<string, unknown> }>) => {
    const body = [records[0], ...items.map((entry) => ({ type: 'item', ...entry }))];
    const counts: Record<string, number> = {};
    for (const entry of items) counts[entry.entity] = (counts[entry.entity] ?? 0) + 1;
    return fileOf([...body, { type: 'end', records: body.length, counts, objects: 0 }]);
  };

  beforeAll(async () => {
    file = (await exportSite(source)).file;
    records = recordsOf(file);
  }, 120_000);

  it('empty mode refuses a site that holds more than its first Admin and the file', async () => {
    const refused = await importSite(target, file);
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/not empty/);
    expect(refused.report.refusal).toBe(refused.error);
  });

  it('merge mode refuses a collision up front and writes nothing', async () => {
    const admin = await target.admin();
    const trainee = made.people[1]!.userid;
    const moved = await target.call('PATCH', `/users/${trainee}`, { token: admin, body: { location: 'Plant 2' } });
    expect(moved.status).toBe(200);
    const refused = await importSite(target, file, { mode: 'merge' });
    expect(refused.status).toBe('failed');
    expect(refused.report.collisions.total).toBeGreaterThan(0);
    expect(refused.report.collisions.items).toContain(`User USER#${trainee} / USER`);
    expect(refused.report.written).toBe(0);
    expect((await target.call('GET', `/users/${trainee}`, { token: admin })).body.location).toBe('Plant 2');
  });

  it('a dry run reports broken references without refusing', async () => {
    const step = records.find((r) => r.type === 'item' && r.entity === 'Step').item;
    const orphan = { ...step, pk: { S: 'STEP#999999' }, stepid: { N: '999999' }, guideid: { N: '888888' } };
    const report = await importSite(target, fileWith([{ entity: 'Step', item: orphan }]), {
      mode: 'merge',
      dry_run: true,
    });
    expect(report.status).toBe('validated');
    expect(report.report.broken_references).toEqual({
      items: ['Step STEP#999999 / STEP -> guide 888888'],
      total: 1,
    });
    expect((await target.call('GET', '/guides/888888', { token: await target.admin() })).status).toBe(404);
  });

  it('a dry run names unknown item types and refuses them', async () => {
    const gizmo = { pk: { S: 'GIZMO#1' }, sk: { S: 'GIZMO' }, entity: { S: 'Gizmo' } };
    const report = await importSite(target, fileWith([{ entity: 'Gizmo', item: gizmo }]), {
      mode: 'merge',
      dry_run: true,
    });
    expect(report.status).toBe('failed');
    expect(report.report.unknown_types).toEqual(['Gizmo']);
    expect(report.error).toMatch(/does not know: Gizmo/);
  });

  it('a dry run lists collisions: an item under an existing key with other content', async () => {
    const user = records.find(
      (r) => r.type === 'item' && r.entity === 'User' && r.item.userid.N === String(made.people[1]!.userid),
    );
    const changed = { ...user.item, username: { S: 'Someone else' } };
    const report = await importSite(target, fileWith([{ entity: 'User', item: changed }]), {
      mode: 'merge',
      dry_run: true,
    });
    expect(report.status).toBe('failed');
    expect(report.report.collisions).toEqual({ items: [`User USER#${made.people[1]!.userid} / USER`], total: 1 });
  });

  it('a cut file fails with the reason', async () => {
    const cut = file.subarray(0, Math.floor(file.length / 2));
    const report = await importSite(target, cut, { mode: 'merge', dry_run: true });
    expect(report.status).toBe('failed');
    expect(report.error).toMatch(/cut short|is not JSON/);
  });

  it('a file of a newer format version is refused with the version named', async () => {
    const newer = fileOf([{ ...records[0], format_version: 2 }, records.at(-1)]);
    const report = await importSite(target, newer, { mode: 'merge', dry_run: true });
    expect(report.error).toMatch(/format version 2/);
  });

  it('merge mode adds new accounts; one without a password gets a reset link when asked', async () => {
    const user = records.find((r) => r.type === 'item' && r.entity === 'User' && r.item.userid.N === '2').item;
    const email = 'migrated@example.com';
    const migrated = {
      ...user,
      pk: { S: 'USER#7001' },
      userid: { N: '7001' },
      email: { S: email },
      password_hash: { S: '' },
      unique_username: { NULL: true },
      gsi1sk: { S: '000000007001' },
    };
    const unique = {
      pk: { S: `UNIQUE#EMAIL#${email}` },
      sk: { S: 'UNIQUE' },
      entity: { S: 'Unique' },
      kind: { S: 'EMAIL' },
      userid: { N: '7001' },
    };
    const done = await importSite(
      target,
      fileWith([
        { entity: 'User', item: migrated },
        { entity: 'Unique', item: unique },
      ]),
      { mode: 'merge', mail_password_resets: true },
    );
    expect(done.error).toBeNull();
    expect(done.status).toBe('complete');
    expect(done.report.written).toBe(2);
    const admin = await target.admin();
    expect((await target.call('GET', '/users/7001', { token: admin })).body.email).toBe(email);
    const mails = readdirSync(targetOutbox)
      .map((file) => JSON.parse(readFileSync(join(targetOutbox, file), 'utf8')))
      .filter((message) => message.to === email);
    expect(mails).toHaveLength(1);
    // The next user gets an id past the imported one.
    const next = await target.call('POST', '/users', {
      token: admin,
      body: { email: 'next@example.com', username: 'Next', password: 'pw-next-Secret', unique_username: 'next' },
    });
    expect(next.body.userid).toBeGreaterThan(7001);
  });

  it('start answers 409 before the upload and once started', async () => {
    const admin = await target.admin();
    const created = await target.call('POST', '/admin/imports', {
      token: admin,
      body: { dry_run: true, mode: 'merge' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'awaiting_upload', mode: 'merge', dry_run: true });
    const early = await target.call('POST', `/admin/imports/${created.body.importid}/start`, { token: admin });
    expect(early.status).toBe(409);
    await uploadSiteFile(created.body.upload, file);
    expect((await target.call('POST', `/admin/imports/${created.body.importid}/start`, { token: admin })).status).toBe(
      202,
    );
    expect((await target.call('POST', `/admin/imports/${created.body.importid}/start`, { token: admin })).status).toBe(
      409,
    );
    await untilSettled(target, `/admin/imports/${created.body.importid}`, ['validating', 'writing', 'finishing']);
  });
});

describe('authorization', () => {
  it('answers 401 without a token and 403 to anyone but an Admin', async () => {
    const user = made.people[1]!.token;
    const requests: Array<[string, string]> = [
      ['POST', '/admin/exports'],
      ['GET', '/admin/exports/1'],
      ['POST', '/admin/imports'],
      ['POST', '/admin/imports/1/start'],
      ['GET', '/admin/imports/1'],
    ];
    for (const [method, path] of requests) {
      const body = method === 'POST' ? {} : undefined;
      expect((await source.call(method, path, { body })).status, path).toBe(401);
      expect((await source.call(method, path, { token: user, body })).status, path).toBe(403);
    }
    // The shared test stack answers the same (its Admin may read an unknown job: 404).
    expect((await api('GET', '/admin/exports/999999', { token: await loginAdmin() })).status).toBe(404);
  });

  it('site API tokens, read-only or full, neither read nor start exports and imports (issue 35 item 9)', async () => {
    const admin = await source.admin();
    const { view } = await exportSite(source, { include_objects: false });
    for (const scopes of [['read-only'], ['full']]) {
      const minted = await source.call('POST', '/admin/api_tokens', { token: admin, body: { name: 'probe', scopes } });
      expect(minted.status, minted.text).toBe(201);
      const token = minted.body.token as string;
      const read = await source.call('GET', `/admin/exports/${view.exportid}`, { token });
      expect(read.status, scopes[0]).toBe(403);
      expect(read.text).not.toContain('X-Amz-Signature');
      if (scopes[0] === 'full') {
        expect((await source.call('POST', '/admin/exports', { token, body: {} })).status).toBe(403);
        expect((await source.call('POST', '/admin/imports', { token, body: {} })).status).toBe(403);
      }
    }
    // The Admin signed in as themselves still reads it.
    expect((await source.call('GET', `/admin/exports/${view.exportid}`, { token: admin })).status).toBe(200);
  });
});
