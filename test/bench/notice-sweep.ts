/**
 * Bench section: the notice sweep (docs/notices.md, issue 43) over many open acknowledgements.
 * Seeds `count` pending acknowledgements (STEPWISE_BENCH_NOTICE_ACKS; 100,000 with --all) spread
 * over 20 people, each with its queued notices, built with the entity files' own builders: 1 % are
 * past due (their overdue notice is due now; the escalation later), the rest due in the weeks
 * ahead (their reminder, overdue and escalation queued in the future). Then one
 * `POST /notices/sweep` at the real clock. Goals: ≤ 30 s, and it handles exactly the due items
 * (what it reads is what is due: the queue's shards are Queried up to the clock, no Scan).
 * Alone: `npx tsx test/bench/notice-sweep.ts` (starts a stack of its own).
 */
import { ackItem, type AcknowledgementRecord } from '../../shared/db/entities/acknowledgement.ts';
import { noticeDueWrites } from '../../shared/db/entities/notice.ts';
import { acknowledgementNotices, NOTICE_SETTING_DEFAULTS } from '../../shared/domain/notices.ts';
import { writeItems } from './seed-table.ts';
import { adminToken, onStackOfItsOwn, runsAlone } from './alone.ts';

const DAY = 86400;
const PEOPLE = 20;
const FIRST_RELEASEID = 5_000_000;

interface Stack {
  url: string;
  ddbEndpoint: string;
}

function* seeded(count: number, userids: number[], now: number): Generator<Record<string, unknown>> {
  for (let index = 0; index < count; index++) {
    const due = index % 100 === 0;
    const userid = userids[index % userids.length]!;
    const ack: AcknowledgementRecord = {
      releaseid: FIRST_RELEASEID + Math.floor(index / userids.length),
      doctype: 'guide',
      docid: 1,
      userid,
      version: '2.0',
      major: 2,
      minor: 0,
      revisionid: 1,
      base_version: '1.0',
      base_revisionid: 1,
      reasons: ['audience'],
      created_date: due ? now - 20 * DAY : now - DAY,
      due_date: due ? now - 3600 : now + (1 + (index % 28)) * DAY,
      status: 'pending',
      signed_date: null,
      signature: null,
    };
    yield ackItem(ack);
    // What a sweep left: the notices whose instant passed were sent and removed.
    const queued = acknowledgementNotices(ack, NOTICE_SETTING_DEFAULTS).filter((notice) =>
      due ? notice.kind === 'acknowledgement_overdue' || notice.fire_at > now : notice.fire_at > now,
    );
    for (const write of noticeDueWrites(
      { subject: `ACK#${ack.releaseid}#${userid}`, userid, releaseid: ack.releaseid },
      queued,
    )) {
      yield (write.item.Put as { Item: Record<string, unknown> }).Item;
    }
  }
}

export async function noticeSweepBench(stack: Stack, adminToken: string, count: number): Promise<void> {
  const headers = { authorization: `api ${adminToken}`, 'content-type': 'application/json' };
  const userids: number[] = [];
  for (let n = 0; n < PEOPLE; n++) {
    const suffix = `${Date.now().toString(36)}${n}`;
    const made = await fetch(`${stack.url}/users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        email: `bench.${suffix}@example.com`,
        username: `Bench ${suffix}`,
        password: 'bench-pass-1',
      }),
    });
    if (made.status !== 201) throw new Error(`notice bench: user ${made.status} ${await made.text()}`);
    userids.push(((await made.json()) as { userid: number }).userid);
  }
  const now = Math.floor(Date.now() / 1000);
  const seedStarted = performance.now();
  const items = await writeItems(stack.ddbEndpoint, seeded(count, userids, now));
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const dueCount = Math.ceil(count / 100);

  const started = performance.now();
  const swept = await fetch(`${stack.url}/notices/sweep`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ as_of: now, budget: 20_000 }),
  });
  const seconds = (performance.now() - started) / 1000;
  if (swept.status !== 200) throw new Error(`notice bench: sweep ${swept.status} ${await swept.text()}`);
  const result = (await swept.json()) as { handled: number; events: number; mails: number; more: boolean };

  console.log(
    `\n## Notice sweep: ${count.toLocaleString('en')} open acknowledgements ` +
      `(${items.toLocaleString('en')} items seeded in ${seedSeconds.toFixed(0)} s)`,
  );
  console.log('| due now | handled | events | mails | sweep | goal |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| ${dueCount} | ${result.handled} | ${result.events} | ${result.mails} | ${seconds.toFixed(1)} s ` +
      `| ≤ 30 s, handled = due: ${seconds <= 30 && result.handled === dueCount && !result.more ? 'met' : 'NOT met'} |`,
  );
}

if (runsAlone(import.meta))
  await onStackOfItsOwn(
    async (stack) =>
      noticeSweepBench(stack, await adminToken(stack), Number(process.env.STEPWISE_BENCH_NOTICE_ACKS ?? 100_000)),
    { STEPWISE_NOTICE_SWEEP_MS: '0' },
  );
