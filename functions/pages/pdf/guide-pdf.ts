/**
 * The guide as a PDF, drawn with pdfkit from the same full-guide view the page shows
 * (decision 214): title and facts, the introduction, tools and parts, then every step with its
 * images and lines (bullets and levels), a step kept whole on one page where it fits. Text is
 * set in DejaVu Sans, embedded as a subset of the glyphs used (the 14 standard PDF fonts cover
 * Latin alone). Every page's footer names the release, the date and the page number. The work
 * is bounded (below, decision 255) and runs in a child process with a deadline and a heap limit
 * (pdf-render.ts).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { type DocNode, parseInline, parseWiki, plainText } from '../../../shared/domain/wiki-syntax/index.ts';
import type { CurrentRelease } from '../../../shared/db/entities/release.ts';
import type { FullGuideView, StepView } from '../../../shared/views/guide-views.ts';

/** JPEG or PNG bytes of an image, by the Image object's id (pdf-images.ts converts the rest). */
export type PdfImages = ReadonlyMap<number, Buffer>;

const FONT_FILES = { body: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;

/**
 * The font files of the `dejavu-fonts-ttf` package: beside a deployed bundle (installed there as
 * one of the group's nodeModules, and Lambda's working directory is the bundle's), or the
 * repository's node_modules when the sources run.
 */
function fontPath(file: string): string {
  const from = typeof __dirname === 'string' ? __dirname : process.cwd();
  return createRequire(join(from, 'noop.js')).resolve(`dejavu-fonts-ttf/ttf/${file}`);
}

const MARGIN = 50;
const FOOTER_SPACE = 30;
/**
 * Safety callouts as the page shows them (functions/pages/content/guide-page.ts): a tinted box
 * with a bar, an icon and the word in the callout's colour.
 */
interface Callout {
  word: string;
  ink: string;
  tint: string;
  icon: 'circle' | 'triangle' | 'bell';
}
const CALLOUTS: Record<string, Callout> = {
  icon_note: { word: 'Note: ', ink: '#0b4f94', tint: '#e8f1fb', icon: 'circle' },
  icon_caution: { word: 'Caution: ', ink: '#8a4500', tint: '#fff3e0', icon: 'triangle' },
  icon_reminder: { word: 'Reminder: ', ink: '#5b2480', tint: '#f3ebf8', icon: 'bell' },
};

/**
 * Bounds on the work of one render (decision 255). pdfkit breaks a word wider than the line by
 * trying ever shorter prefixes of it, which is quadratic in the word (a 16k-character word took
 * 24 s): a run longer than LONG_WORD is given a zero-width break opportunity every LONG_WORD
 * characters before pdfkit sees it. The document draws at most TEXT_BUDGET characters and
 * PAGE_BUDGET pages; what is past them is left out with a note naming where to read it whole.
 */
export const LONG_WORD = 40;
export const TEXT_BUDGET = 40_000;
export const PAGE_BUDGET = 40;
/** More characters than an A4 page of 11 pt text holds (about 4,500). */
const PAGE_CHARS = 6_000;
const ZERO_WIDTH_SPACE = '\u200b';
const LONG_RUN = new RegExp(`[^\\s\u200b]{${LONG_WORD}}(?=[^\\s\u200b])`, 'gu');

/** The text with a break opportunity inside every run of more than LONG_WORD non-space characters. */
export function breakLongWords(text: string): string {
  return text.replace(LONG_RUN, (run) => `${run}${ZERO_WIDTH_SPACE}`);
}

/** How much of the document's text budget is left; drawing takes from it. */
interface Budget {
  chars: number;
  cut: boolean;
}

/** The part of `text` the budget still allows (and takes it), long words broken. */
function within(budget: Budget, text: string): string {
  if (budget.cut) return '';
  if (text.length > budget.chars) {
    budget.cut = true;
    const kept = text.slice(0, budget.chars);
    budget.chars = 0;
    return breakLongWords(`${kept}…`);
  }
  budget.chars -= text.length;
  return breakLongWords(text);
}

/** A run of a line's text, bold or not (the PDF keeps inline bold; other marks print plain). */
export interface TextRun {
  text: string;
  bold: boolean;
}

/** A step line's wiki text as runs of plain and bold text, neighbours of one weight merged. */
export function lineRuns(raw: string): TextRun[] {
  const runs: TextRun[] = [];
  const push = (text: string, bold: boolean) => {
    const last = runs.at(-1);
    if (last && last.bold === bold) last.text += text;
    else if (text) runs.push({ text, bold });
  };
  const visit = (node: DocNode, bold: boolean, depth: number): void => {
    if (depth > 64) return;
    const here = bold || (node.marks ?? []).some((mark) => mark.type === 'bold');
    if (node.type === 'text' && typeof node.text === 'string') push(node.text, here);
    else if (node.type === 'hard_break') push('\n', here);
    for (const child of node.content ?? []) visit(child, here, depth + 1);
  };
  for (const node of parseInline(raw)) visit(node, false, 0);
  return runs;
}
const blockText = (raw: string) =>
  plainText(parseWiki(raw))
    .replace(/\n{3,}/g, '\n\n')
    .trim();

function day(seconds: number | null | undefined): string {
  return seconds ? new Date(seconds * 1000).toISOString().slice(0, 10) : '';
}

export function footerText(guide: FullGuideView, release: CurrentRelease | undefined, now: number): string {
  const version = release
    ? `Release ${release.version} of ${day(release.release_date ?? release.date)}`
    : `Revision ${guide.revisionid}, not released`;
  return `${guide.title} · ${version} · Printed ${day(now)}`;
}

type Doc = InstanceType<typeof PDFDocument>;

function heading(doc: Doc, text: string, size: number): void {
  doc.font('bold').fontSize(size).text(text, { paragraphGap: 4 });
  doc.font('body').fontSize(11);
}

/** Roughly how tall a step will be: images in one row, then its lines (already bounded texts). */
function stepHeight(doc: Doc, texts: string[], shown: number, width: number): number {
  // Far more text than a page holds: no need to measure it (measuring is as costly as drawing).
  if (texts.reduce((sum, text) => sum + text.length, 0) > PAGE_CHARS) return Number.POSITIVE_INFINITY;
  doc.font('body').fontSize(11);
  const imageRow = shown > 0 ? 160 : 0;
  const lines = texts.reduce((sum, text) => sum + doc.heightOfString(text, { width: width - 40 }) + 4, 0);
  return 30 + imageRow + lines;
}

/** The runs the budget still allows, the callout's word first. */
function boundedRuns(budget: Budget, runs: TextRun[], callout: Callout | undefined): TextRun[] {
  const all = callout ? [{ text: callout.word, bold: true }, ...runs] : runs;
  return all.map((run) => ({ text: within(budget, run.text), bold: run.bold })).filter((run) => run.text);
}

/** The callout's icon, 12 pt square at (x, y), in its ink. */
function drawIcon(doc: Doc, callout: Callout, x: number, y: number): void {
  doc.save().lineWidth(1.3).strokeColor(callout.ink).fillColor(callout.ink);
  if (callout.icon === 'triangle') {
    doc.polygon([x + 6, y], [x + 12, y + 11], [x, y + 11]).stroke();
    doc.rect(x + 5.4, y + 3.5, 1.2, 4).fill();
    doc.rect(x + 5.4, y + 8.4, 1.2, 1.2).fill();
  } else if (callout.icon === 'circle') {
    doc.circle(x + 6, y + 6, 5.5).stroke();
    doc.rect(x + 5.4, y + 5, 1.2, 4.5).fill();
    doc.rect(x + 5.4, y + 2.8, 1.2, 1.2).fill();
  } else {
    doc.moveTo(x + 2, y + 9).bezierCurveTo(x + 3, y + 7, x + 2, y, x + 6, y);
    doc
      .bezierCurveTo(x + 10, y, x + 9, y + 7, x + 10, y + 9)
      .closePath()
      .stroke();
    doc.circle(x + 6, y + 10.5, 1.3).fill();
  }
  doc.restore();
}

/** A line: a bullet and its runs, or a callout box (tint, bar, icon, the word in bold and colour). */
function drawLine(doc: Doc, runs: TextRun[], callout: Callout | undefined, x: number, width: number): void {
  if (runs.length === 0) return;
  const textX = callout ? x + 24 : x;
  const textWidth = callout ? width - 30 : width;
  if (callout) {
    const height = doc.heightOfString(runs.map((run) => run.text).join(''), { width: textWidth }) + 10;
    const top = doc.y;
    doc.save().rect(x, top, width, height).fill(callout.tint).rect(x, top, 3, height).fill(callout.ink).restore();
    drawIcon(doc, callout, x + 8, top + 5);
    doc.y = top + 5;
  } else {
    const top = doc.y;
    doc.font('body').text('•', x - 12, top, { width: 12, lineBreak: false });
    doc.y = top;
  }
  runs.forEach((run, index) => {
    const last = index === runs.length - 1;
    doc.font(run.bold ? 'bold' : 'body').fillColor(callout && index === 0 ? callout.ink : 'black');
    const options = { width: textWidth, continued: !last, paragraphGap: callout ? 8 : 3 };
    if (index === 0) doc.text(run.text, textX, doc.y, options);
    else doc.text(run.text, options);
  });
  doc.font('body').fillColor('black');
}

function drawStep(doc: Doc, step: StepView, number: number, images: PdfImages, width: number, budget: Budget): void {
  const bottom = doc.page.height - MARGIN - FOOTER_SPACE;
  const lines = step.lines.map((line) => {
    const callout = CALLOUTS[line.bullet];
    return { callout, runs: boundedRuns(budget, lineRuns(line.text_raw), callout) };
  });
  const texts = lines.map((line) => line.runs.map((run) => run.text).join(''));
  const shownCount = step.media.type === 'image' ? step.media.data.filter((image) => images.has(image.id)).length : 0;
  const needed = stepHeight(doc, texts, shownCount, width);
  // A step starts a new page when it would not fit, unless it is longer than a page anyway.
  if (doc.y + needed > bottom && needed < bottom - MARGIN) doc.addPage();
  heading(doc, breakLongWords(step.title ? `Step ${number}: ${step.title}` : `Step ${number}`), 14);
  if (step.media.type === 'image') {
    const shown = step.media.data.filter((image) => images.has(image.id)).slice(0, 3);
    if (shown.length > 0) {
      const boxWidth = (width - 10 * (shown.length - 1)) / shown.length;
      const top = doc.y;
      shown.forEach((image, index) => {
        doc.image(images.get(image.id)!, MARGIN + index * (boxWidth + 10), top, { fit: [boxWidth, 150] });
      });
      doc.x = MARGIN;
      doc.y = top + 158;
    }
  } else if (step.media.type === 'video' && 'filename' in step.media.data) {
    doc.fillColor('#555555').text(`Video: ${step.media.data.filename}`).fillColor('black');
  } else if (step.media.type === 'embed' && 'url' in step.media.data) {
    doc.fillColor('#555555').text(`Embedded: ${step.media.data.title} (${step.media.data.url})`).fillColor('black');
  }
  for (const [index, line] of step.lines.entries()) {
    const indent = 12 + Math.max(0, Math.min(5, line.level)) * 16;
    drawLine(doc, lines[index]!.runs, lines[index]!.callout, MARGIN + indent, width - indent);
  }
  doc.x = MARGIN;
  doc.moveDown(0.8);
}

function itemList(doc: Doc, title: string, list: FullGuideView['tools'], budget: Budget): void {
  if (list.length === 0 || budget.cut) return;
  heading(doc, title, 13);
  for (const item of list) {
    const text = within(
      budget,
      `${item.quantity > 1 ? `${item.quantity} × ` : ''}${item.text}${item.isoptional ? ' (optional)' : ''}`,
    );
    if (text) doc.text(`•  ${text}`);
  }
  doc.moveDown(0.5);
}

/** Whether the document is past its page or text budget (then the rest is left out, with a note). */
const spent = (doc: Doc, budget: Budget) => budget.cut || doc.bufferedPageRange().count >= PAGE_BUDGET;

/** The PDF's bytes. `images`: what could be loaded and embedded; the rest is left out. */
export async function guidePdf(
  guide: FullGuideView,
  release: CurrentRelease | undefined,
  images: PdfImages,
  now: number,
): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    font: fontPath(FONT_FILES.body),
    lang: guide.langid,
    displayTitle: true,
    info: { Title: guide.title, Author: guide.author.username, Subject: guide.summary },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  doc.registerFont('body', fontPath(FONT_FILES.body));
  doc.registerFont('bold', fontPath(FONT_FILES.bold));
  const width = doc.page.width - 2 * MARGIN;
  const budget: Budget = { chars: TEXT_BUDGET, cut: false };

  heading(doc, breakLongWords(guide.title), 20);
  doc
    .fillColor('#555555')
    .text(breakLongWords([guide.category, guide.difficulty, guide.time_required].filter(Boolean).join(' · ')));
  doc.fillColor('black').moveDown(0.5);
  if (guide.summary) doc.text(breakLongWords(guide.summary)).moveDown(0.5);
  if (guide.image && images.has(guide.image.id)) {
    doc.image(images.get(guide.image.id)!, { fit: [width, 220] });
    doc.moveDown(0.5);
  }
  const introduction = within(budget, blockText(guide.introduction_raw));
  if (introduction) {
    heading(doc, 'Introduction', 13);
    doc.text(introduction).moveDown(0.5);
  }
  if (guide.prerequisites.length > 0) {
    heading(doc, 'Before you start', 13);
    for (const prerequisite of guide.prerequisites)
      doc.text(breakLongWords(`•  ${prerequisite.title} (${prerequisite.url})`));
    doc.moveDown(0.5);
  }
  itemList(doc, 'Tools', guide.tools, budget);
  itemList(doc, 'Parts', guide.parts, budget);
  const own = guide.steps.filter((step) => step.guideid === guide.guideid);
  for (const [index, step] of own.entries()) {
    if (spent(doc, budget)) break;
    drawStep(doc, step, index + 1, images, width, budget);
  }
  const conclusion = spent(doc, budget) ? '' : within(budget, blockText(guide.conclusion_raw));
  if (conclusion) {
    heading(doc, 'Conclusion', 13);
    doc.text(conclusion);
  }
  if (spent(doc, budget)) {
    doc.moveDown(1).fillColor('#555555');
    doc.text(`This guide is longer than a PDF holds; the rest is left out. Read it whole at ${guide.url}`);
    doc.fillColor('black');
  }

  // The footer on every page, now that the page count is known.
  const footer = footerText(guide, release, now);
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    doc.switchToPage(index);
    const y = doc.page.height - MARGIN + 10;
    // Inside the bottom margin: lift the margin so pdfkit does not start a new page for it.
    const bottomMargin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('body').fontSize(8).fillColor('#555555');
    doc.text(footer, MARGIN, y, { width: width - 80, lineBreak: false, ellipsis: true });
    doc.text(`Page ${index + 1} of ${range.count}`, MARGIN + width - 80, y, {
      width: 80,
      align: 'right',
      lineBreak: false,
    });
    doc.page.margins.bottom = bottomMargin;
  }
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}
