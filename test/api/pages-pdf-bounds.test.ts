/**
 * A guide PDF is bounded and kept (issue 35 item 2, decision 255), over HTTP: one word of 50,000
 * characters (the field's maximum; it took the stack down) answers quickly while health stays up,
 * and a GET of the same guide under another title reads the kept PDF instead of drawing again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createUser } from '../support/api.ts';
import { pdfText } from '../support/pages.ts';
import { createGuide } from './guide-fixtures.ts';

let author: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  author = await createUser({ privileges: ['Author'] });
}, 120_000);

describe('a guide PDF is bounded and kept (issue 35 item 2, decision 255)', () => {
  it('a 50,000-character word in the conclusion answers quickly; health stays up; the next GET is kept', async () => {
    const word = 'Ab'.repeat(25_000);
    const long = await createGuide(author.token, { conclusion: word, introduction: `${'x'.repeat(20_000)} end` });
    const started = Date.now();
    let healthy = 0;
    let done = false;
    const probing = (async () => {
      while (Date.now() - started < 60_000) {
        const health = await api('GET', '/health');
        if (health.status === 200) healthy += 1;
        if (done) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const first = await fetch(`${long.url}.pdf`, { headers: { authorization: `api ${author.token}` } });
    done = true;
    await probing;
    const tookMs = Date.now() - started;
    expect(first.status).toBe(200);
    expect(first.headers.get('x-stepwise-pdf')).toBe('rendered');
    const bytes = new Uint8Array(await first.arrayBuffer());
    // Copied before pdf.js takes the buffer over.
    const kept = Buffer.from(bytes);
    // Broken into lines by the renderer, not by pdfkit's quadratic search; past the text budget, a note.
    const text = (await pdfText(bytes)).replace(/[\s\u200b]+/g, '');
    expect(text).toContain('Ab'.repeat(800));
    expect(text).toContain('ThisguideislongerthanaPDFholds;therestisleftout.');
    expect(tookMs).toBeLessThan(20_000);
    expect(healthy).toBeGreaterThan(0);
    // Another title in the URL is the same guide: the kept PDF answers, nothing is drawn again.
    const again = await fetch(`${long.url.replace(/\/[^/]+\/(\d+)$/, '/Another-title/$1')}.pdf`, {
      headers: { authorization: `api ${author.token}` },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-stepwise-pdf')).toBe('kept');
    expect(Buffer.from(await again.arrayBuffer()).equals(kept)).toBe(true);
  }, 90_000);
});
