/**
 * Bench section: GET /guides page latency with 100 vs 10,000 guides stored. A page is a Query
 * on the public-guides index plus one BatchGet of authors, so its cost should not grow with the
 * table: aim for a latency ratio <= 1.5. Guides are seeded straight into DynamoDB (BatchWrite),
 * built with the entity's own item builder so they are exactly what the API stores.
 */
import { guideToItem, type GuideRecord } from '../../shared/db/entities/guide.ts';
import { guideRecord } from '../support/guide-record.ts';
import { pageLatency } from './alone.ts';
import { writeItems } from './seed-table.ts';

const FIRST_GUIDEID = 1_000_000;

export function benchGuide(guideid: number, authorid: number): GuideRecord {
  const now = Math.floor(Date.now() / 1000);
  return guideRecord({
    guideid,
    userid: authorid,
    category: 'Bench printers',
    subject: 'Nozzle',
    title: `Replace the nozzle ${guideid}`,
    summary: 'Swap a worn nozzle for a new one.',
    introduction_raw: 'You need a hex key.',
    introduction_rendered: '<p>You need a hex key.</p>',
    difficulty: 'Easy',
    time_required_min: 600,
    time_required_max: 1800,
    created_date: now,
    published_date: now,
    revisionid: guideid,
  });
}

/** Guides `from` .. `from + count - 1`, as the guide entity stores them. */
function* benchGuideItems(from: number, count: number, authorid: number): Generator<Record<string, unknown>> {
  for (let guideid = from; guideid < from + count; guideid++) yield guideToItem(benchGuide(guideid, authorid));
}

export async function guideListLatency(
  stack: { url: string; ddbEndpoint: string },
  token: string,
  authorid: number,
  seconds: number,
): Promise<void> {
  const pages = { first: `${stack.url}/guides?limit=20`, newest: `${stack.url}/guides?limit=20&order=DESC` };
  await writeItems(stack.ddbEndpoint, benchGuideItems(FIRST_GUIDEID, 100, authorid));
  const small = {
    first: await pageLatency(pages.first, token, seconds),
    newest: await pageLatency(pages.newest, token, seconds),
  };
  const seedStarted = Date.now();
  await writeItems(stack.ddbEndpoint, benchGuideItems(FIRST_GUIDEID + 100, 9_900, authorid));
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  const large = {
    first: await pageLatency(pages.first, token, seconds),
    newest: await pageLatency(pages.newest, token, seconds),
  };

  console.log(
    '\nGET /guides page latency (limit 20, 4 concurrent clients, %d s each) with 100 vs 10,000 guides stored',
    seconds,
  );
  console.log(`(9,900 guides seeded with BatchWrite in ${seedSeconds.toFixed(1)} s)`);
  console.table(
    (['first', 'newest'] as const).map((page) => ({
      page: page === 'first' ? 'GET /guides?limit=20' : 'GET /guides?limit=20&order=DESC',
      'mean ms @100': small[page].mean.toFixed(2),
      'mean ms @10,000': large[page].mean.toFixed(2),
      'p99 ms @100': small[page].p99,
      'p99 ms @10,000': large[page].p99,
      ratio: (large[page].mean / small[page].mean).toFixed(2),
      errors: small[page].errors + large[page].errors,
    })),
  );
  const worst = Math.max(...(['first', 'newest'] as const).map((page) => large[page].mean / small[page].mean));
  console.log(
    `Worst latency ratio 10,000 / 100 guides: ${worst.toFixed(2)}  (aim <= 1.5: a page costs O(page), not O(table))`,
  );
}
