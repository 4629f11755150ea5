/**
 * Webhooks over HTTP with a local receiver: CRUD and its errors, signed deliveries, the
 * §3.28 shape of course_stage.completed, retries with one delivery id, per-entity order, and a
 * dead receiver that never fails the request that caused the event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { assignedTrainee, releaseGuide, stageGuide } from '../support/courses.ts';
import { startReceiver, type Receiver, type ReceivedDelivery } from '../support/webhook-receiver.ts';

let admin: string;
const receivers: Receiver[] = [];
const webhookids: number[] = [];

beforeAll(async () => {
  admin = await loginAdmin();
});

afterAll(async () => {
  for (const id of webhookids) await api('DELETE', `/webhooks/${id}`, { token: admin });
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

async function register(url: string, events: string[], secret?: string) {
  const response = await api('POST', '/webhooks', {
    token: admin,
    body: { url, events, ...(secret ? { secret } : {}) },
  });
  expect(response.status).toBe(201);
  webhookids.push(response.body.webhookid);
  return response.body as { webhookid: number; secret: string };
}

/** What a receiver does with the secret: HMAC-SHA256 of the raw body. */
function signatureValid(secret: string, delivery: ReceivedDelivery): boolean {
  return (
    delivery.headers['x-stepwise-signature'] ===
    `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`
  );
}

describe('webhook CRUD', () => {
  it('creates (secret shown once), reads, lists, changes and deletes a webhook', async () => {
    const hook = await receiver();
    const created = await api('POST', '/webhooks', {
      token: admin,
      body: { url: hook.url, events: ['user.created', 'guide.released'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: hook.url, events: ['user.created', 'guide.released'], active: true });
    expect(created.body.secret).toMatch(/^[0-9a-f]{64}$/);
    const id = created.body.webhookid;
    webhookids.push(id);

    const read = await api('GET', `/webhooks/${id}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ webhookid: id, url: hook.url });
    expect(read.body).not.toHaveProperty('secret');

    const listed = await api('GET', '/webhooks?limit=200', { token: admin });
    const mine = listed.body.webhooks.find((webhook: { webhookid: number }) => webhook.webhookid === id);
    expect(mine).toBeDefined();
    expect(mine).not.toHaveProperty('secret');

    const changed = await api('PATCH', `/webhooks/${id}`, { token: admin, body: { events: ['*'], active: false } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ events: ['*'], active: false });
    expect(changed.body).not.toHaveProperty('secret');

    expect((await api('DELETE', `/webhooks/${id}`, { token: admin })).status).toBe(204);
    expect((await api('GET', `/webhooks/${id}`, { token: admin })).status).toBe(404);
    expect((await api('DELETE', `/webhooks/${id}`, { token: admin })).status).toBe(404);
  });

  it('is for Admins only', async () => {
    const author = await createUser({ privileges: ['Author'] });
    const response = await api('POST', '/webhooks', {
      token: author.token,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(response.status).toBe(403);
    expect((await api('GET', '/webhooks', { token: author.token })).status).toBe(403);
  });

  it('refuses URLs the SSRF rules refuse and unknown event names (422)', async () => {
    const metadata = await api('POST', '/webhooks', {
      token: admin,
      body: { url: 'http://169.254.169.254/latest/meta-data', events: ['*'] },
    });
    expect(metadata.status).toBe(422);
    expect(metadata.body.errors).toContainEqual(expect.objectContaining({ field: 'url', code: 'url_not_allowed' }));

    const privateNet = await api('POST', '/webhooks', {
      token: admin,
      body: { url: 'http://10.1.2.3/hook', events: ['*'] },
    });
    expect(privateNet.status).toBe(422);

    const ftp = await api('POST', '/webhooks', { token: admin, body: { url: 'ftp://127.0.0.1/hook', events: ['*'] } });
    expect(ftp.status).toBe(422);

    const unknown = await api('POST', '/webhooks', {
      token: admin,
      body: { url: 'http://127.0.0.1:9/hook', events: ['user.created', 'user.exploded'] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ field: 'events.1', code: 'unknown_event' }));

    const hook = await register('http://127.0.0.1:9/hook', ['user.created']);
    const badPatch = await api('PATCH', `/webhooks/${hook.webhookid}`, {
      token: admin,
      body: { url: 'http://[::1]:8080/' },
    });
    expect(badPatch.status).toBe(422);
  });

  it('answers 404 for an unknown webhook', async () => {
    expect((await api('GET', '/webhooks/987654321', { token: admin })).status).toBe(404);
    expect((await api('PATCH', '/webhooks/987654321', { token: admin, body: { active: false } })).status).toBe(404);
    expect((await api('POST', '/webhooks/987654321/test', { token: admin })).status).toBe(404);
    expect((await api('GET', '/webhooks/987654321/deliveries', { token: admin })).status).toBe(404);
  });
});

describe('deliveries', () => {
  it('pings with a signature the receiver can verify', async () => {
    const hook = await receiver();
    const secret = `test-secret-${uniqueSuffix()}`;
    const { webhookid } = await register(hook.url, ['user.created'], secret);
    const ping = await api('POST', `/webhooks/${webhookid}/test`, { token: admin });
    expect(ping.status).toBe(202);
    // Users created by other test files meanwhile reach this hook too: pick the ping out.
    const isPing = (received: ReceivedDelivery) => received.headers['x-stepwise-event'] === 'ping';
    const delivery = (await hook.waitFor((received) => received.some(isPing))).find(isPing)!;
    expect(delivery.headers['x-stepwise-delivery']).toBe(ping.body.deliveryid);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(signatureValid(secret, delivery)).toBe(true);
    expect(signatureValid('another secret', delivery)).toBe(false);
    expect(delivery.json).toMatchObject({
      siteName: expect.any(String),
      siteDomain: expect.any(String),
      title: 'Ping',
      data: { webhookid },
    });
  });

  it('sends course_stage.completed in exactly the §3.28 shape', async () => {
    const hook = await receiver();
    const { secret } = await register(hook.url, ['course_stage.completed']);
    const { guide, course, trainee } = await assignedTrainee();
    const done = await api('PATCH', `/course_assignments/complete/guide/${guide.guideid}`, {
      token: trainee.token,
      body: {},
    });
    expect(done.status).toBe(200);

    const received = await hook.waitFor((all) =>
      all.some((delivery) => delivery.json?.data?.userid === trainee.userid),
    );
    const delivery = received.find((candidate) => candidate.json.data.userid === trainee.userid)!;
    expect(delivery.headers['x-stepwise-event']).toBe('course_stage.completed');
    expect(signatureValid(secret, delivery)).toBe(true);
    const body = delivery.json;
    expect(Object.keys(body).sort()).toEqual(['data', 'description', 'siteDomain', 'siteName', 'title']);
    expect(Object.keys(body.data).sort()).toEqual([
      'course_stageid',
      'doc_completion',
      'docid',
      'doctype',
      'title',
      'userid',
    ]);
    expect(Object.keys(body.data.doc_completion).sort()).toEqual([
      'course_assignment_stage_completionid',
      'end_date',
      'init_date',
    ]);
    expect(body.data).toMatchObject({
      course_stageid: course.stages[0].course_stageid,
      docid: guide.guideid,
      doctype: 'guide',
      title: guide.title,
      userid: trainee.userid,
    });
    expect(body.data.doc_completion.course_assignment_stage_completionid).toEqual(expect.any(Number));
    expect(body.data.doc_completion.end_date).toBeGreaterThanOrEqual(body.data.doc_completion.init_date);
    expect(body.title).toBe('Course Stage Completed');
  });

  it('retries after 500s with one delivery id, and lists the delivery', async () => {
    const hook = await receiver();
    // Every delivery (other tests create users too) fails three times, then succeeds.
    const attempts = new Map<string, number>();
    hook.respond = (delivery) => {
      const id = String(delivery.headers['x-stepwise-delivery']);
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      return attempts.get(id)! <= 3 ? 500 : 204;
    };
    const { webhookid } = await register(hook.url, ['user.created']);
    const user = await createUser();
    const received = await hook.waitFor(
      (all) => all.filter((delivery) => delivery.json?.data?.userid === user.userid).length >= 4,
    );
    const mine = received.filter((delivery) => delivery.json.data.userid === user.userid);
    expect(new Set(mine.map((delivery) => delivery.headers['x-stepwise-delivery'])).size).toBe(1);
    expect(new Set(mine.map((delivery) => delivery.body)).size).toBe(1);
    expect(mine[0].json).toMatchObject({
      title: 'User Created',
      data: { userid: user.userid, username: expect.any(String) },
    });

    let deliveries: any[] = [];
    for (let poll = 0; poll < 100; poll++) {
      deliveries = (await api('GET', `/webhooks/${webhookid}/deliveries`, { token: admin })).body.deliveries;
      if (deliveries.some((delivery) => delivery.status === 'succeeded')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const delivery = deliveries.find((candidate) => candidate.deliveryid === mine[0].headers['x-stepwise-delivery']);
    expect(delivery).toMatchObject({
      event: 'user.created',
      status: 'succeeded',
      attempts: 4,
      last_response_code: 204,
      next_attempt: null,
    });
  });

  it('delivers the events of one entity in order, holding later ones while an earlier one is retried', async () => {
    const hook = await receiver();
    await register(hook.url, ['guide.released']);
    const guide = await stageGuide();
    // The first attempt of this guide's first release fails: the later releases must wait for it.
    let failed = false;
    hook.respond = (delivery) => {
      if (delivery.json?.data?.guideid !== guide.guideid || failed) return 200;
      failed = true;
      return 503;
    };
    const versions = [];
    for (let release = 0; release < 3; release++) versions.push((await releaseGuide(guide.guideid, 'major')).version);
    const received = await hook.waitFor(
      (all) => all.filter((delivery) => delivery.json?.data?.guideid === guide.guideid).length >= 4,
    );
    const order = received
      .filter((delivery) => delivery.json.data.guideid === guide.guideid)
      .map((delivery) => delivery.json.data.version);
    expect(order).toEqual([versions[0], versions[0], versions[1], versions[2]]);
  });

  it('a dead receiver never fails the request that caused the event', async () => {
    const dead = await receiver();
    dead.respond = () => 'hang';
    await register(dead.url, ['user.created']);
    await register('http://127.0.0.1:9/unreachable', ['user.created']);
    const suffix = uniqueSuffix();
    const response = await api('POST', '/users', {
      token: admin,
      body: {
        email: `dead-${suffix}@example.com`,
        username: `Dead ${suffix}`,
        password: `pw-${suffix}-Secret`,
        unique_username: `dead_${suffix}`,
      },
    });
    expect(response.status).toBe(201);
    await dead.waitFor((all) => all.some((delivery) => delivery.json?.data?.userid === response.body.userid));
  });
});
