/**
 * Fixtures for the site's pages (issue 27): a guide with everything its page shows (cover and
 * step images, lines at several levels and bullets, tools and parts, a prerequisite, a
 * release), made through the API; and a payload that must show as text wherever it is stored.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { api, uniqueSuffix } from './api.ts';
import { addStep, category, createGuide, publish, uploadImage } from '../api/guide-fixtures.ts';
import { releaseGuide } from './courses.ts';

/** Markup that runs code if any page lets it through unescaped (it sets a global the tests read). */
export const XSS = `<script>window.__xss=1</script><img src=x onerror="window.__xss=1">"'&`;

export interface RichGuide {
  guideid: number;
  title: string;
  url: string;
  stepTitles: string[];
  category: string;
}

/** A published guide with a cover, two steps with images and lines, tools and parts, released as 1.0. */
export async function richGuide(token: string, options: { text?: string } = {}): Promise<RichGuide> {
  const text = options.text ?? '';
  const [cover, first, second] = await Promise.all([
    uploadImage(token, 640, 480),
    uploadImage(token, 400, 300),
    uploadImage(token, 400, 300),
  ]);
  const prerequisite = await createGuide(token, { title: `Prepare the bench ${uniqueSuffix()}` });
  await publish(token, prerequisite);
  const guide = await createGuide(token, {
    title: `Replace the nozzle ${uniqueSuffix()}${text}`,
    summary: `Swap a worn nozzle${text}`,
    introduction: `You need a '''hex key'''.${text}`,
    image: cover,
    prerequisites: [prerequisite.guideid],
    tools: [
      {
        text: `Hex key 2 mm${text}`,
        notes: `metric${text}`,
        url: 'javascript:alert(1)',
        quantity: 1,
        isoptional: false,
      },
    ],
    parts: [
      { text: `Nozzle 0.4${text}`, notes: null, url: 'https://example.com/nozzle', quantity: 2, isoptional: true },
    ],
  });
  const stepTitles = [`Open the cover${text}`, `Сменить сопло ${uniqueSuffix()}`];
  await addStep(token, guide.guideid, {
    title: stepTitles[0],
    media: { type: 'image', data: [first] },
    lines: [
      { text: `Unplug the printer.${text}`, bullet: 'black', level: 0 },
      { text: 'Wait until the nozzle is cool.', bullet: 'icon_caution', level: 1 },
    ],
  });
  await addStep(token, guide.guideid, {
    title: stepTitles[1],
    media: { type: 'image', data: [second] },
    lines: [{ text: 'Ελληνικά: βγάλτε το ακροφύσιο.', bullet: 'red', level: 0 }],
  });
  const current = (await api('GET', `/guides/${guide.guideid}`, { token })).body;
  const published = await publish(token, current);
  await releaseGuide(guide.guideid, 'major');
  return { guideid: guide.guideid, title: published.title, url: published.url, stepTitles, category: await category() };
}

/** The text of a PDF, page by page (pdf.js takes the buffer over: read anything else first). */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocument({ data: bytes, useSystemFonts: false }).promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number++) {
    const content = await (await pdf.getPage(number)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  return pages.join('\n');
}
