/**
 * The guide as a PDF, drawn with pdfkit from the same full-guide view the page shows
 * (decision 214): title and facts, the introduction, tools and parts, then every step with its
 * images and lines (bullets and levels), a step kept whole on one page where it fits. Text is
 * set in DejaVu Sans, embedded as a subset of the glyphs used (the 14 standard PDF fonts cover
 * Latin alone). Every page's footer names the release, the date and the page number.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { parseInline, parseWiki, plainText } from '../../../shared/domain/wiki-syntax/index.ts';
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
const BULLET_WORDS: Record<string, string> = {
  icon_note: 'Note: ',
  icon_caution: 'Caution: ',
  icon_reminder: 'Reminder: ',
};

const lineText = (raw: string) => plainText({ type: 'paragraph', content: parseInline(raw) });
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

/** Roughly how tall a step will be: images in one row, then its lines. */
function stepHeight(doc: Doc, step: StepView, images: PdfImages, width: number): number {
  doc.font('body').fontSize(11);
  const shown = step.media.type === 'image' ? step.media.data.filter((image) => images.has(image.id)).length : 0;
  const imageRow = shown > 0 ? 160 : 0;
  const lines = step.lines.reduce(
    (sum, line) => sum + doc.heightOfString(lineText(line.text_raw), { width: width - 40 }) + 4,
    0,
  );
  return 30 + imageRow + lines;
}

function drawStep(doc: Doc, step: StepView, number: number, images: PdfImages, width: number): void {
  const bottom = doc.page.height - MARGIN - FOOTER_SPACE;
  const needed = stepHeight(doc, step, images, width);
  // A step starts a new page when it would not fit, unless it is longer than a page anyway.
  if (doc.y + needed > bottom && needed < bottom - MARGIN) doc.addPage();
  heading(doc, step.title ? `Step ${number}: ${step.title}` : `Step ${number}`, 14);
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
  for (const line of step.lines) {
    const indent = 12 + Math.max(0, Math.min(5, line.level)) * 16;
    const text = `${BULLET_WORDS[line.bullet] ?? ''}${lineText(line.text_raw)}`;
    doc.text(`•  ${text}`, MARGIN + indent, doc.y, { width: width - indent, paragraphGap: 3 });
  }
  doc.x = MARGIN;
  doc.moveDown(0.8);
}

function itemList(doc: Doc, title: string, list: FullGuideView['tools']): void {
  if (list.length === 0) return;
  heading(doc, title, 13);
  for (const item of list)
    doc.text(`•  ${item.quantity > 1 ? `${item.quantity} × ` : ''}${item.text}${item.isoptional ? ' (optional)' : ''}`);
  doc.moveDown(0.5);
}

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

  heading(doc, guide.title, 20);
  doc.fillColor('#555555').text([guide.category, guide.difficulty, guide.time_required].filter(Boolean).join(' · '));
  doc.fillColor('black').moveDown(0.5);
  if (guide.summary) doc.text(guide.summary).moveDown(0.5);
  if (guide.image && images.has(guide.image.id)) {
    doc.image(images.get(guide.image.id)!, { fit: [width, 220] });
    doc.moveDown(0.5);
  }
  const introduction = blockText(guide.introduction_raw);
  if (introduction) {
    heading(doc, 'Introduction', 13);
    doc.text(introduction).moveDown(0.5);
  }
  if (guide.prerequisites.length > 0) {
    heading(doc, 'Before you start', 13);
    for (const prerequisite of guide.prerequisites) doc.text(`•  ${prerequisite.title} (${prerequisite.url})`);
    doc.moveDown(0.5);
  }
  itemList(doc, 'Tools', guide.tools);
  itemList(doc, 'Parts', guide.parts);
  const own = guide.steps.filter((step) => step.guideid === guide.guideid);
  for (const [index, step] of own.entries()) drawStep(doc, step, index + 1, images, width);
  const conclusion = blockText(guide.conclusion_raw);
  if (conclusion) {
    heading(doc, 'Conclusion', 13);
    doc.text(conclusion);
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
