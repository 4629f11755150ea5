/**
 * The image pool's bounds over HTTP (decision 162), on a stack of its own with one image slot,
 * a 100 ms wait for it, and a 100 ms processing deadline: a decode past its deadline is killed
 * (its process is gone, the item fails with the reason), and requests beyond the slot get 503
 * with nothing stored. The request deadline itself is tested on the pool
 * (test/local/image-pool.test.ts): on a shared stack it would have to be tiny for every test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAt, uniqueSuffix } from '../support/api.ts';
import { type RunningStack, startStackProcess } from '../support/local-stack-process.ts';
import { solidPng } from '../support/image-bombs.ts';

/** 49 million 8-bit pixels: a few hundred ms to decode, well within the bounds. */
const SLOW = solidPng(7000, 7000, 8);

let stack: RunningStack;
let token: string;

function call(method: string, path: string, options: Parameters<typeof apiAt>[3] = {}) {
  return apiAt(stack.url, method, path, { token, ...options });
}

/** The stack's image children (processes it forked running image-child), from /proc. */
function imageChildren(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === stack.child.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('image-child');
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

beforeAll(async () => {
  stack = await startStackProcess({
    STEPWISE_ADMIN_EMAIL: 'admin@example.com',
    STEPWISE_ADMIN_PASSWORD: 'stepwise-admin',
    STEPWISE_IMAGE_CONCURRENCY: '1',
    STEPWISE_IMAGE_QUEUE_MS: '100',
    STEPWISE_IMAGE_PROCESSING_DEADLINE_MS: '100',
  });
  const admin = (
    await apiAt(stack.url, 'POST', '/user/token', { body: { email: 'admin@example.com', password: 'stepwise-admin' } })
  ).body.authToken as string;
  const suffix = uniqueSuffix();
  const [email, password] = [`limits.${suffix}@example.com`, `pw-${suffix}-Secret`];
  await apiAt(stack.url, 'POST', '/users', {
    token: admin,
    body: { email, username: `Limits ${suffix}`, password, unique_username: `l_${suffix}` },
  });
  token = (await apiAt(stack.url, 'POST', '/user/token', { body: { email, password } })).body.authToken;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('image work bounds (one slot, 100 ms wait, 100 ms processing deadline)', () => {
  it('kills a processing decode past its deadline: the item fails, saying why; no image child remains', async () => {
    const upload = await call('POST', '/user/media/uploads', {
      query: { file: 'slow.png' },
      rawBody: SLOW,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(upload.status).toBe(200);
    let item: { status: string; failure: string | null } | undefined;
    for (let attempt = 0; attempt < 400 && !['ready', 'failed'].includes(item?.status ?? ''); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      item = (await call('GET', `/user/media/GuideImage/${upload.body.id}`)).body;
    }
    expect(item).toMatchObject({
      status: 'failed',
      failure: expect.stringMatching(/longer than 100 ms; it was stopped/),
    });
    // The child that decoded was the only one (one slot): killed, and nothing took its place.
    expect(imageChildren()).toEqual([]);
  });

  it('answers 503 to image requests beyond the slot after the wait, storing nothing for them', async () => {
    const before = (await call('GET', '/user/media/images')).body.length;
    const answers = await Promise.all(
      [0, 1, 2].map(() =>
        call('POST', '/user/media/images', {
          query: { file: 'slow.png' },
          rawBody: SLOW,
          headers: { 'content-type': 'application/octet-stream' },
        }),
      ),
    );
    // The first decodes (a few hundred ms); the others wait 100 ms for its slot.
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503, 503]);
    expect(answers.find((answer) => answer.status === 503)!.body.message).toMatch(/busy/);
    const after = (await call('GET', '/user/media/images')).body;
    expect(after).toHaveLength(before + 1);
    expect(after[0].imageid).toBe(answers.find((answer) => answer.status === 200)!.body.imageid);
  });
});
