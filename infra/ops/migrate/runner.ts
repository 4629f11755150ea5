/**
 * The migration runner: runs the resource crawlers in `after` order against the source and
 * writes what they produce as a site file, with a checkpoint a `--resume` continues from, then
 * the id counters, the `end` record and the closing report.
 */
import { writeFile } from 'node:fs/promises';
import { SITE_FORMAT, SITE_FORMAT_VERSION } from '../../../shared/site-archive/records.ts';
import { checkpointPathOf, readCheckpoint, removeCheckpoint, writeCheckpoint, type Checkpoint } from './checkpoint.ts';
import type { CrawlContext, KnownIds, ResourceCrawler, SiteSink, SourceApi } from './crawl.ts';
import { ReportCollector, type MigrationReport } from './crawl-report.ts';
import { SiteFileWriter } from './site-file-writer.ts';
import type { SourceStats } from './source-client.ts';

export interface MigrationOptions {
  api: SourceApi & { stats?: SourceStats };
  /** The source's API root, recorded in the header and checked on resume. */
  baseUrl: string;
  crawlers: ResourceCrawler[];
  /** Crawler names to run (their `after` crawlers come along); all when absent. */
  only?: string[];
  out: string;
  resume?: boolean;
  /** The checkpoint is rewritten at most this often (and after every crawler). */
  checkpointEveryMs?: number;
  /** Told which crawler runs now. */
  onCrawler?: (name: string) => void;
}

/** The running crawl's numbers, for the progress display. */
export interface MigrationProgress {
  crawler: string;
  records: number;
  bytes: number;
}

export class MigrationRun {
  readonly progress: MigrationProgress = { crawler: '', records: 0, bytes: 0 };
  private writer: SiteFileWriter | undefined;

  constructor(private readonly options: MigrationOptions) {}

  async run(): Promise<MigrationReport> {
    const { options } = this;
    const crawlers = orderCrawlers(options.crawlers, options.only);
    const only = options.only ? [...options.only].sort() : null;
    const checkpointPath = checkpointPathOf(options.out);
    const started = Date.now();
    const restored = options.resume ? await this.restore(checkpointPath, only) : undefined;
    if (!restored && (await readCheckpoint(checkpointPath))) {
      // Hours of crawling are not thrown away by a forgotten flag.
      throw new Error(`${checkpointPath} holds an interrupted crawl: add --resume, or delete it to start over`);
    }
    const writer = restored
      ? await SiteFileWriter.resume(options.out, restored.length)
      : await SiteFileWriter.create(options.out, {
          type: 'header',
          format: SITE_FORMAT,
          format_version: SITE_FORMAT_VERSION,
          created_at: new Date().toISOString(),
          source: { kind: 'migration', base_url: options.baseUrl },
        });
    this.writer = writer;
    const done = new Set(restored?.done ?? []);
    const known = new KnownIdSets(restored?.known ?? {});
    const counters = new Map(Object.entries(restored?.counters ?? {}));
    const report = new ReportCollector(restored ?? undefined);
    const earlier = {
      requests: restored?.requests ?? 0,
      retries: restored?.retries ?? 0,
      ms: restored?.elapsed_ms ?? 0,
    };
    const stats = () => options.api.stats ?? { requests: 0, retries: 0, bytes: 0 };
    const interval = options.checkpointEveryMs ?? 1000;
    let lastSaved = Date.now();

    /** Runs inside the writer's queue, so the output's length is a record boundary. */
    const saveCheckpoint = async () => {
      lastSaved = Date.now();
      await writeCheckpoint(checkpointPath, {
        version: 1,
        base_url: options.baseUrl,
        only,
        length: writer.length,
        done: [...done],
        known: known.toJson(),
        counters: Object.fromEntries(counters),
        ...report.entries(),
        requests: earlier.requests + stats().requests,
        retries: earlier.retries + stats().retries,
        elapsed_ms: earlier.ms + (Date.now() - started),
      });
    };
    const markDone = (unit: string, force: boolean) =>
      writer.enqueue(async () => {
        done.add(unit);
        if (force || Date.now() - lastSaved >= interval) await saveCheckpoint();
      });

    const sink: SiteSink = {
      items: (items) => writer.items(items).then(() => this.tally()),
      object: (bucket, key, contentType, bytes) =>
        writer.object(bucket, key, contentType, bytes).then(() => this.tally()),
      idSeen: (counterType, id) => {
        if (id > (counters.get(counterType) ?? 0)) counters.set(counterType, id);
      },
    };
    const context: CrawlContext = {
      api: options.api,
      sink,
      report,
      known,
      isDone: (unit) => done.has(unit),
      completed: (unit) => markDone(unit, false),
    };

    if (!restored) await writer.enqueue(saveCheckpoint);
    try {
      for (const crawler of crawlers) {
        const unit = `crawler:${crawler.name}`;
        if (done.has(unit)) continue;
        this.progress.crawler = crawler.name;
        options.onCrawler?.(crawler.name);
        await crawler.crawl(context);
        await markDone(unit, true);
      }
    } catch (error) {
      // Whatever finished stays finished: the next `--resume` starts from here.
      await writer.enqueue(saveCheckpoint).catch(() => undefined);
      await writer.close();
      throw error;
    }

    await writer.items(
      [...counters].map(([counterType, value]) => ({ pk: `COUNTER#${counterType}`, sk: 'COUNTER', value })),
    );
    await writer.finish();
    this.tally();
    const result: MigrationReport = {
      base_url: options.baseUrl,
      output: options.out,
      crawlers: crawlers.map((crawler) => crawler.name),
      records: writer.records,
      objects: writer.objects,
      counts: writer.counts,
      counters: Object.fromEntries(counters),
      ...report.entries(),
      requests: earlier.requests + stats().requests,
      retries: earlier.retries + stats().retries,
      duration_ms: earlier.ms + (Date.now() - started),
      resumed: restored !== undefined,
    };
    await writeFile(`${options.out}.report.json`, `${JSON.stringify(result, null, 2)}\n`);
    await removeCheckpoint(checkpointPath);
    return result;
  }

  private async restore(checkpointPath: string, only: string[] | null): Promise<Checkpoint> {
    const checkpoint = await readCheckpoint(checkpointPath);
    if (!checkpoint) throw new Error(`Nothing to resume: ${checkpointPath} does not exist (run without --resume)`);
    if (checkpoint.base_url !== this.options.baseUrl) {
      throw new Error(`${checkpointPath} belongs to a crawl of ${checkpoint.base_url}, not ${this.options.baseUrl}`);
    }
    if (JSON.stringify(checkpoint.only) !== JSON.stringify(only)) {
      throw new Error(
        `${checkpointPath} was made with --only ${checkpoint.only?.join(',') ?? '(all)'}: resume with the same`,
      );
    }
    return checkpoint;
  }

  private tally(): void {
    if (!this.writer) return;
    this.progress.records = this.writer.records;
    this.progress.bytes = this.writer.length;
  }
}

class KnownIdSets implements KnownIds {
  private readonly sets = new Map<string, Set<number>>();

  constructor(restored: Record<string, number[]>) {
    for (const [kind, ids] of Object.entries(restored)) this.sets.set(kind, new Set(ids));
  }

  add(kind: string, id: number): void {
    const set = this.sets.get(kind) ?? new Set<number>();
    set.add(id);
    this.sets.set(kind, set);
  }

  all(kind: string): number[] {
    return [...(this.sets.get(kind) ?? [])].sort((a, b) => a - b);
  }

  toJson(): Record<string, number[]> {
    return Object.fromEntries([...this.sets].map(([kind, ids]) => [kind, [...ids]]));
  }
}

/**
 * The crawlers to run, each after the crawlers it names in `after`. `only` picks some by name
 * and brings their `after` crawlers along (they find the ids the picked ones walk).
 */
export function orderCrawlers(crawlers: ResourceCrawler[], only?: string[]): ResourceCrawler[] {
  const byName = new Map<string, ResourceCrawler>();
  for (const crawler of crawlers) {
    if (byName.has(crawler.name)) throw new Error(`Two resource crawlers are named ${crawler.name}`);
    byName.set(crawler.name, crawler);
  }
  const ordered: ResourceCrawler[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, neededBy?: string) => {
    const crawler = byName.get(name);
    if (!crawler) {
      const known = [...byName.keys()].join(', ') || '(none)';
      throw new Error(
        neededBy ? `${neededBy} runs after ${name}, which is not registered` : `No crawler ${name} (${known})`,
      );
    }
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`Crawlers wait for each other in a cycle through ${name}`);
    state.set(name, 'visiting');
    for (const before of crawler.after ?? []) visit(before, name);
    state.set(name, 'done');
    ordered.push(crawler);
  };
  for (const name of only ?? [...byName.keys()]) visit(name);
  return ordered;
}
