/**
 * Bench section: the lists the apps read in one answer (decision 194). The Android offline
 * syncer reads GET /user/favorites/guides without a limit; other screens send
 * GET /user/guides?limit=10000. With 10,000 favorites and 10,000 authored guides: the time of
 * the one request, and its size plain and gzip (Lambda's synchronous answer stops at 6 MB, and
 * API Gateway receives gzip as base64, a third larger).
 */
import { gzipSync } from 'node:zlib';
import { authoredLinkPut, guideToItem } from '../../shared/db/entities/guide.ts';
import { guideMarkItem } from '../../shared/db/entities/guide-mark.ts';
import { benchGuide } from './guide-list-latency.ts';
import { writeItems } from './seed-table.ts';

/** Lambda's limit on a synchronous answer (the base64 text of a gzip body counts). */
export const LAMBDA_ANSWER_LIMIT_BYTES = 6 * 1024 * 1024;

/**
 * For guides `from` .. `from + count - 1`: the guide itself (unless it exists already), its
 * authored link to `userid`, and `userid`'s favorite of it, as the entity files build them.
 */
export function* wholeListItems(
  userid: number,
  from: number,
  count: number,
  options: { guides: boolean },
): Generator<Record<string, unknown>> {
  const date = Math.floor(Date.now() / 1000);
  for (let guideid = from; guideid < from + count; guideid++) {
    const guide = benchGuide(guideid, userid);
    if (options.guides) yield guideToItem(guide);
    yield authoredLinkPut(guide).item.Put!.Item as Record<string, unknown>;
    yield guideMarkItem('FAVORITE', { userid, guideid, date });
  }
}

async function timed(url: string, token: string, encoding: 'identity' | 'gzip') {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `api ${token}`, 'accept-encoding': encoding } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  const gzip = response.headers.get('content-encoding') === 'gzip';
  return { status: response.status, ms, bytes, gzip };
}

export async function wholeListBench(
  stack: { url: string; ddbEndpoint: string },
  token: string,
  userid: number,
  firstGuideid: number,
  guidesExist: boolean,
): Promise<void> {
  const seedStarted = Date.now();
  await writeItems(stack.ddbEndpoint, wholeListItems(userid, firstGuideid, 10_000, { guides: !guidesExist }));
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  const rows = [];
  for (const path of ['/user/favorites/guides', '/user/guides?limit=10000']) {
    const url = `${stack.url}${path}`;
    await timed(url, token, 'gzip'); // warm
    const plain = await timed(url, token, 'identity');
    const gzip = await timed(url, token, 'gzip');
    const items = (JSON.parse(plain.bytes.toString('utf8')) as unknown[]).length;
    const wire = wireGzipBytes(plain.bytes);
    rows.push({
      request: `GET ${path}`,
      items,
      'ms plain': plain.ms.toFixed(0),
      'ms gzip': gzip.ms.toFixed(0),
      'JSON MB': (plain.bytes.length / 1e6).toFixed(2),
      'gzip MB': (wire / 1e6).toFixed(2),
      'base64 MB (Lambda)': ((Math.ceil(wire / 3) * 4) / 1e6).toFixed(2),
      'answered gzip': gzip.gzip,
    });
  }
  console.log(
    `\nWhole lists in one answer (10,000 favorites and authored guides; seeded in ${seedSeconds.toFixed(1)} s)`,
  );
  console.table(rows);
}

/** The gzip size of a body as the router compresses it (default level); fetch hides the wire size. */
const wireGzipBytes = (plain: Buffer): number => gzipSync(plain).length;
