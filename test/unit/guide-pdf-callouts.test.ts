/**
 * The PDF's step lines (issue 42 item 4): inline bold stays bold, and a safety callout (note,
 * caution, reminder) prints its word in bold inside a tinted box, as on the page.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { guidePdf, lineRuns } from '../../functions/pages/pdf/guide-pdf.ts';
import type { FullGuideView } from '../../shared/views/guide-views.ts';

describe('lineRuns', () => {
  it('splits a line into plain and bold runs, nested marks included', () => {
    expect(lineRuns("Keep '''hot''' parts ''away '''now'''''")).toEqual([
      { text: 'Keep ', bold: false },
      { text: 'hot', bold: true },
      { text: ' parts away ', bold: false },
      { text: 'now', bold: true },
    ]);
  });
});

function guide(): FullGuideView {
  return {
    guideid: 1,
    revisionid: 1,
    langid: 'en',
    title: 'Callouts',
    category: 'Printers',
    difficulty: 'Easy',
    time_required: '',
    summary: '',
    image: null,
    introduction_raw: '',
    conclusion_raw: '',
    prerequisites: [],
    tools: [],
    parts: [],
    steps: [
      {
        guideid: 1,
        stepid: 1,
        title: 'Cool down',
        media: { type: 'image', data: [] },
        lines: [
          { text_raw: "Unplug the '''mains''' lead.", bullet: 'black', level: 0 },
          { text_raw: 'Wait until the nozzle is cool.', bullet: 'icon_caution', level: 0 },
          { text_raw: 'Keep the manual.', bullet: 'icon_note', level: 1 },
          { text_raw: 'Log the swap.', bullet: 'icon_reminder', level: 0 },
        ],
      },
    ],
    author: { username: 'Unit' },
    url: 'https://docs.example.com/Guide/Callouts/1',
  } as unknown as FullGuideView;
}

describe('guidePdf lines', () => {
  it('keeps inline bold and prints callouts with their word in bold', async () => {
    const bytes = await guidePdf(guide(), undefined, new Map(), 1_800_000_000);
    const pdf = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false }).promise;
    const content = await (await pdf.getPage(1)).getTextContent();
    const items = content.items.flatMap((item) => ('str' in item && item.str.trim() ? [item] : []));
    const font = (text: string) => items.find((item) => item.str.includes(text))?.fontName;
    const plain = font('Unplug the');
    expect(plain).toBeDefined();
    const bold = font('mains');
    expect(bold).toBeDefined();
    expect(bold).not.toBe(plain);
    for (const word of ['Caution:', 'Note:', 'Reminder:']) expect(font(word)).toBe(bold);
    expect(font('Wait until the nozzle is cool.')).toBe(plain);
  });
});
