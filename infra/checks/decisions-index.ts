/**
 * The index of the decision records (docs/decisions/README.md), generated from the records
 * themselves: each record's number and title (its first line), status and area. `npm run
 * decisions:index` rewrites it; test/unit/decisions-index.test.ts fails while it is stale.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../repo-paths.ts';

export const DECISIONS_DIR = join(REPO_ROOT, 'docs/decisions');
export const DECISIONS_INDEX = join(DECISIONS_DIR, 'README.md');
const RECORD_FILE = /^(\d{3})-[a-z0-9-]+\.md$/;

/** Numbers never given to a decision on main, and why (a reader meets the gap in the list). */
export const UNUSED_NUMBERS: Record<number, string> = {
  148: 'taken by work that did not land; never given to a decision on main',
  149: 'taken by work that did not land; never given to a decision on main',
  156: 'taken by work that did not land; never given to a decision on main',
  157: 'taken by work that did not land; never given to a decision on main',
  204: 'reserved for the entity migration (issue 24), which needed one record (203)',
  226: 'reserved for the offline work (issue 30), which needed three records (223-225)',
  230: 'reserved for API tokens and SCIM (issue 28), which needed three records (227-229)',
  257: 'reserved for the hardening round three site file and PDF work (issue 35), which needed three records (254-256)',
  258: 'reserved for the hardening round three site file and PDF work (issue 35), which needed three records (254-256)',
  265: 'reserved for the quick loop (issue 36), which needed one record (264)',
  266: 'reserved for the quick loop (issue 36), which needed one record (264)',
  267: 'reserved for the quick loop (issue 36), which needed one record (264)',
  268: 'reserved for the quick loop (issue 36), which needed one record (264)',
  272: 'reserved for the SCORM player (issue 37), which needed three records (269-271)',
  273: 'reserved for the SCORM player (issue 37), which needed three records (269-271)',
  277: 'reserved for the LRS and cmi5 (issue 38), which needed three records (274-276)',
  278: 'reserved for the LRS and cmi5 (issue 38), which needed three records (274-276)',
  288: 'reserved for company sign-in round two (issue 40), which needed four records (284-287)',
  307: 'reserved for the SCORM player round two (issue 37), which needed one record (306)',
  308: 'reserved for the SCORM player round two (issue 37), which needed one record (306)',
  311: 'reserved for the LRS round two (issue 38), which needed two records (309-310)',
  314: 'reserved for search at every size round two (issue 41), which needed two records (292-293)',
  320: 'reserved for the two test lanes (issue 36), which needed one record (319)',
  322: 'reserved for entities declared once (issue 36), which needed one record (321)',
  324: 'reserved for the cold-start work (issue 36 item 6), which needed one record (323)',
  334: 'reserved for things stated twice (issue 36), which needed one record (333)',
  336: 'reserved for the SCORM sequencing rules (issue 37), which needed one record (335)',
  340: 'reserved for the request-path work (issue 36 item 6), which needed one record (339)',
  341: 'reserved for things stated twice, round two (issue 36), which needed no record',
  342: 'reserved for things stated twice, round two (issue 36), which needed no record',
  344: 'reserved for search at size, round three (issue 41), which needed one record (343)',
  348: 'taken by work that did not land; never given to a decision on main',
  350: 'taken by work that did not land; never given to a decision on main',
  356: 'reserved for the tidy-up of the bench work of issue 36, which needed no record',
};

export interface DecisionRecord {
  number: number;
  title: string;
  status: string;
  area: string;
  file: string;
}

export function parseRecord(file: string, text: string): DecisionRecord {
  const number = Number(RECORD_FILE.exec(file)?.[1]);
  const heading = /^# (\d+)\. (.+)$/m.exec(text);
  const status = /^- Status: (.+)$/m.exec(text)?.[1];
  const area = /^- Area: (.+)$/m.exec(text)?.[1];
  if (!heading || Number(heading[1]) !== number || !status || !area)
    throw new Error(`${file}: a record starts "# N. Title" (N its file's number), then "- Status:" and "- Area:"`);
  return { number, title: heading[2], status, area, file };
}

export function readRecords(dir = DECISIONS_DIR): DecisionRecord[] {
  return readdirSync(dir)
    .filter((file) => RECORD_FILE.test(file))
    .map((file) => parseRecord(file, readFileSync(join(dir, file), 'utf8')))
    .sort((a, b) => a.number - b.number);
}

export function renderIndex(records: DecisionRecord[]): string {
  const areas = [...new Set(records.map((record) => record.area))];
  // Numbers listed unused were given out once: the next free one is above them too.
  const highest = Math.max(...records.map((record) => record.number), ...Object.keys(UNUSED_NUMBERS).map(Number));
  const lines = [
    '# Decisions',
    '',
    'One record per decision a later engineer must know, with its reason. Numbers are stable: docs and',
    'code cite "decision N", so a record keeps its number and file. A new decision takes the next free',
    `number (${highest + 1}), a file \`NNN-short-title.md\` in this folder, and this shape:`,
    '',
    '```md',
    '# NNN. The decision in one line',
    '',
    '- Status: Accepted (or: Superseded by [NNN](NNN-....md); Accepted, amended YYYY-MM-DD)',
    '- Area: one of the areas below',
    '',
    '## Context',
    '## Decision',
    '## Consequences',
    '```',
    '',
    "A decision that replaces another says so, and the old record's status names its successor. Records",
    'up to 200 were written as one paragraph, context, decision and consequences together; they keep',
    'their text. This index is generated (`npm run decisions:index`; a unit test fails while it is stale).',
    '',
  ];
  for (const area of areas) {
    lines.push(`## ${area}`, '');
    for (const record of records.filter((candidate) => candidate.area === area)) {
      const status = record.status === 'Accepted' ? '' : ` (${record.status.replace(/\]\(/g, '](')})`;
      lines.push(`- [${record.number}](${record.file}) ${record.title}${status}`);
    }
    lines.push('');
  }
  lines.push('## Numbers not used', '');
  for (const [number, why] of Object.entries(UNUSED_NUMBERS)) lines.push(`- ${number}: ${why}`);
  lines.push('');
  return lines.join('\n');
}

export function currentDecisionsIndex(): string {
  return renderIndex(readRecords());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(DECISIONS_INDEX, currentDecisionsIndex());
  console.log(`wrote ${relative(REPO_ROOT, DECISIONS_INDEX)}`);
}
