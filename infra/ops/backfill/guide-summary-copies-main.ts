/**
 * `npm run guides:summary-backfill -- [--after <guideid>] [--table <name>] [--region <region>]`:
 * fills the guide summaries' `tags` and `attachedQuiz` copies (decision 283) for guides tagged or
 * given a quiz before them (guide-summary-copies.ts). Safe to run again; `--after` resumes after
 * the last guideid a run printed.
 */
import { parseStoreArgs } from '../store-args.ts';

const USAGE =
  'Usage: npm run guides:summary-backfill -- [--after <guideid>] [--table <table name>] [--region <region>]';
const values = parseStoreArgs<{ after?: string }>(USAGE, { after: { type: 'string' } });
const after = Number(values.after ?? 0);
if (!Number.isSafeInteger(after) || after < 0) {
  console.error(`--after must be a guideid\n${USAGE}`);
  process.exit(2);
}

const { backfillGuideSummaryCopies } = await import('./guide-summary-copies.ts');
const totals = await backfillGuideSummaryCopies({
  afterGuideid: after,
  onProgress: (sofar) =>
    console.error(
      `${sofar.guides} guides read, tags written on ${sofar.tagsWritten}, quizzes on ${sofar.quizzesWritten}; ` +
        `resume: --after ${sofar.lastGuideid}`,
    ),
}).catch((error: Error) => {
  console.error(`The backfill stopped: ${error.name}: ${error.message}. Run it again with the last --after printed.`);
  process.exit(1);
});
console.log(
  `Done: ${totals.guides} guides read; tags copied onto ${totals.tagsWritten}, quizzes onto ${totals.quizzesWritten}.`,
);
