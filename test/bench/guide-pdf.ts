/**
 * The worst guide PDF the field limits allow (issue 35 item 2, decision 255): one unbroken word
 * in every text at its maximum (title 255, summary 254, introduction and conclusion 50,000, 200
 * tools and 200 parts of 255, 300 steps of 8 lines of 4,000), drawn by the PDF child as a GET
 * draws it. Goal: <= 2 s and <= 256 MB (the child's peak RSS). Alone: `npx tsx test/bench/guide-pdf.ts`.
 */
import { renderPdf } from '../../functions/pages/pdf/pdf-render.ts';
import type { FullGuideView } from '../../shared/views/guide-views.ts';
import { runsAlone } from './alone.ts';

const word = (length: number, letter = 'W') => letter.repeat(length);

/** The largest guide the write schemas accept, every text one word. */
export function worstGuide(): FullGuideView {
  const item = (index: number) => ({
    text: word(255, 'T'),
    notes: null,
    type: 'tool',
    quantity: index + 2,
    url: null,
    thumbnail: null,
    isoptional: index % 2 === 0,
    featured: false,
  });
  return {
    guideid: 1,
    revisionid: 1,
    langid: 'en',
    title: word(255),
    category: word(255, 'C'),
    difficulty: 'Difficult',
    time_required: '1 - 2 hours',
    summary: word(254, 'S'),
    image: null,
    introduction_raw: word(50_000, 'I'),
    conclusion_raw: word(50_000, 'K'),
    prerequisites: [],
    tools: Array.from({ length: 200 }, (_, index) => item(index)),
    parts: Array.from({ length: 200 }, (_, index) => item(index)),
    steps: Array.from({ length: 300 }, (_, index) => ({
      guideid: 1,
      stepid: index + 1,
      title: word(255, 'P'),
      media: { type: 'image', data: [] },
      lines: Array.from({ length: 8 }, (_, line) => ({ text_raw: word(4000, 'L'), bullet: 'black', level: line % 4 })),
    })),
    author: { username: 'Bench' },
    url: 'https://docs.example.com/Guide/Worst/1',
  } as unknown as FullGuideView;
}

export async function guidePdfBench(): Promise<{ ms: number; cpuMs: number; maxRssMb: number; bytes: number }> {
  const guide = worstGuide();
  // The first render also starts the child (and, from source, its TypeScript loader): not a GET's cost.
  await renderPdf({ ...guide, title: 'warm up', steps: [] } as FullGuideView, undefined, new Map(), 0);
  const started = performance.now();
  const result = await renderPdf(guide, undefined, new Map(), Math.floor(Date.now() / 1000));
  const ms = Math.round(performance.now() - started);
  console.log('\nGuide PDF (issue 35): the worst guide the field limits allow, drawn by the PDF child');
  console.log(
    `${'ms'.padStart(7)}${'CPU ms'.padStart(8)}${'child peak MB'.padStart(15)}${'PDF bytes'.padStart(12)}` +
      '   goal <= 2000 ms, <= 256 MB',
  );
  console.log(
    `${String(ms).padStart(7)}${String(result.cpu_ms).padStart(8)}${String(result.max_rss_mb).padStart(15)}` +
      `${String(result.bytes.length).padStart(12)}`,
  );
  return { ms, cpuMs: result.cpu_ms, maxRssMb: result.max_rss_mb, bytes: result.bytes.length };
}

if (runsAlone(import.meta)) {
  await guidePdfBench();
  process.exit(0);
}
