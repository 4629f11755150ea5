/**
 * The crawl's closing report: what was written (counts per entity), what the source holds but
 * API 2.0 does not hand out (`unexposed`), what could not be carried over (`skipped`), retries
 * and duration. Entries are grouped by (what, detail) with a count, so a thousand users without
 * a readable badge list make one line, not a thousand.
 */
import type { CrawlReport } from './crawl.ts';

export interface ReportEntry {
  what: string;
  detail: string;
  count: number;
}

export interface MigrationReport {
  base_url: string;
  output: string;
  crawlers: string[];
  records: number;
  objects: number;
  counts: Record<string, number>;
  counters: Record<string, number>;
  unexposed: ReportEntry[];
  skipped: ReportEntry[];
  requests: number;
  retries: number;
  duration_ms: number;
  resumed: boolean;
}

export class ReportCollector implements CrawlReport {
  private readonly unexposedEntries = new Map<string, ReportEntry>();
  private readonly skippedEntries = new Map<string, ReportEntry>();

  constructor(restored: { unexposed: ReportEntry[]; skipped: ReportEntry[] } = { unexposed: [], skipped: [] }) {
    for (const entry of restored.unexposed) this.unexposedEntries.set(keyOf(entry.what, entry.detail), { ...entry });
    for (const entry of restored.skipped) this.skippedEntries.set(keyOf(entry.what, entry.detail), { ...entry });
  }

  unexposed(what: string, detail = ''): void {
    add(this.unexposedEntries, what, detail);
  }

  skipped(what: string, reason: string): void {
    add(this.skippedEntries, what, reason);
  }

  entries(): { unexposed: ReportEntry[]; skipped: ReportEntry[] } {
    return {
      unexposed: [...this.unexposedEntries.values()].map((entry) => ({ ...entry })),
      skipped: [...this.skippedEntries.values()].map((entry) => ({ ...entry })),
    };
  }
}

function keyOf(what: string, detail: string): string {
  return `${what}\u0000${detail}`;
}

function add(entries: Map<string, ReportEntry>, what: string, detail: string): void {
  const key = keyOf(what, detail);
  const entry = entries.get(key);
  if (entry) entry.count += 1;
  else entries.set(key, { what, detail, count: 1 });
}

/** The report as the closing lines on stdout. */
export function formatReport(report: MigrationReport): string {
  const lines = [
    `Migrated ${report.base_url} into ${report.output}${report.resumed ? ' (resumed)' : ''}`,
    `  ${report.records} records, ${report.objects} objects, ${report.requests} requests, ` +
      `${report.retries} retries, ${(report.duration_ms / 1000).toFixed(1)} s`,
    '  Items per entity:',
    ...Object.entries(report.counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([entity, count]) => `    ${entity}: ${count}`),
  ];
  if (report.unexposed.length > 0) {
    lines.push('  Not exposed by the source API (not migrated):');
    for (const entry of report.unexposed) lines.push(`    ${entry.what}${suffix(entry)}`);
  }
  if (report.skipped.length > 0) {
    lines.push('  Skipped:');
    for (const entry of report.skipped) lines.push(`    ${entry.what}${suffix(entry)}`);
  }
  return lines.join('\n');
}

function suffix(entry: ReportEntry): string {
  const detail = entry.detail ? `: ${entry.detail}` : '';
  return entry.count > 1 ? `${detail} (${entry.count}×)` : detail;
}
