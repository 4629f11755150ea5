/**
 * Bench section: the lists the apps read in one answer (decision 194). The Android offline
 * syncer reads GET /user/favorites/guides without a limit; other screens send
 * GET /user/guides?limit=10000. With 10,000 favorites and 10,000 authored guides: the time of
 * the one request, and its size plain and gzip (Lambda's synchronous answer stops at 6 MB, and
 * API Gateway receives gzip as base64, a third larger). The items and sizes come from the gzip
 * answer (fetch unpacks it): a plain answer past 6 MB is the router's 500 saying to page or accept
 * gzip (10,000 summaries are past it since they grew, 6.5 MB), whose status the table shows.
 */
import { gzipSync } from 'node:zlib';
import { guideToItem } from '../../shared/db/entities/guide.ts';
import { authoredLinkPut } from '../../shared/db/entities/guide-link.ts';
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
    const list = gzip.status === 200 ? (JSON.parse(gzip.bytes.toString('utf8')) as unknown) : undefined;
    if (!Array.isArray(list)) {
      throw new Error(`whole list: GET ${path} (gzip) answered ${gzip.status}: ${gzip.bytes.toString('utf8', 0, 300)}`);
    }
    const wire = wireGzipBytes(gzip.bytes);
    rows.push({
      request: `GET ${path}`,
      items: list.length,
      // 500 past 6 MB of JSON (Lambda's limit, which the router applies first): the time is building it.
      'plain status': plain.status,
      'ms plain': plain.ms.toFixed(0),
      'ms gzip': gzip.ms.toFixed(0),
      'JSON MB': (gzip.bytes.length / 1e6).toFixed(2),
      'gzip MB': (wire / 1e6).toFixed(2),
      'base64 MB (Lambda)': ((Math.ceil(wire / 3) * 4) / 1e6).toFixed(2),
      'answered gzip': gzip.gzip,
    });
  }
  console.log(
    `\nWhole lists in one answer (10,000 favorites and authored guides; seeded in ${seedSeconds.toFixed(1)} s)`,
  );
  console.table(rows);
  console.log('\nWhole favorites answers built in process, with a ready image per guide or none (decision 194)');
  console.table([await wholeListSizes(10_000, false), await wholeListSizes(10_000, true)]);
}

/** The gzip size of a body as the router compresses it (default level); fetch hides the wire size. */
const wireGzipBytes = (plain: Buffer): number => gzipSync(plain).length;

/**
 * The size of a whole favorites answer of `count` guide summaries, built in process by the
 * views the route uses, each with a ready image of every size (its `/igi/` URLs under a
 * realistic site URL; decision 197) or none: JSON, gzip, and the base64 Lambda answers.
 * Also how many such summaries fit LAMBDA_ANSWER_LIMIT_BYTES.
 */
export async function wholeListSizes(count: number, withImages: boolean) {
  const siteUrl = 'https://docs.example-company.com';
  const before = process.env.STEPWISE_SITE_URL;
  process.env.STEPWISE_SITE_URL = siteUrl;
  const { reloadConfig } = await import('../../shared/config.ts');
  reloadConfig();
  try {
    return await measure(count, withImages, siteUrl);
  } finally {
    if (before === undefined) delete process.env.STEPWISE_SITE_URL;
    else process.env.STEPWISE_SITE_URL = before;
    reloadConfig();
  }
}

async function measure(count: number, withImages: boolean, siteUrl: string) {
  const { guideSummary } = await import('../../shared/views/guide-views.ts');
  const { imageObject } = await import('../../shared/views/media-views.ts');
  const { IMAGE_SIZES } = await import('../../shared/domain/media.ts');
  const { randomUUID } = await import('node:crypto');
  const date = Math.floor(Date.now() / 1000);
  const author = { userid: 5, username: 'Bench author' } as Parameters<typeof guideSummary>[1];
  const entries = [];
  for (let guideid = 1; guideid <= count; guideid++) {
    const guide = { ...benchGuide(guideid, 5), image: withImages ? guideid : null };
    const images = new Map();
    if (withImages) {
      // Ready: imageObject names the size URLs of a ready (or processing) image only (decision 280).
      const item = {
        itemid: guideid,
        guid: randomUUID().replace(/-/g, ''),
        status: 'ready',
        sizes: IMAGE_SIZES.map((size) => size.name),
      } as Parameters<typeof imageObject>[0];
      images.set(guideid, await imageObject(item));
    }
    const media = { images, videos: new Map(), documents: new Map(), embeds: new Map() };
    entries.push({ guide: guideSummary(guide, author, siteUrl, media, { periodicReviewSchedule: null }), date });
  }
  const json = Buffer.from(JSON.stringify(entries));
  const gzip = wireGzipBytes(json);
  const base64 = Math.ceil(gzip / 3) * 4;
  return {
    summaries: count,
    images: withImages,
    'JSON MB': (json.length / 1e6).toFixed(2),
    'gzip MB': (gzip / 1e6).toFixed(2),
    'base64 MB (Lambda)': (base64 / 1e6).toFixed(2),
    'fit in 6 MB': Math.floor((count * LAMBDA_ANSWER_LIMIT_BYTES) / base64),
  };
}
