/**
 * `[image|<id>]` in wiki text shows the library image at its stable /igi/<guid>.<size> URL
 * (decision 210) wherever wiki text is rendered: wiki and category pages, category
 * identification, courses, guide introductions and conclusions, step lines and their preview.
 * Each URL is fetched as the apps fetch it, without a token.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { IMAGE_SIZES } from '../../shared/domain/media.ts';
import { api, createUser, loginAdmin, siteUrl, uniqueSuffix } from '../support/api.ts';
import { createCourse } from '../support/courses.ts';
import { createWiki, wikiPath } from '../support/wikis.ts';
import { addStep, createGuide, ownSteps, uploadImage } from './guide-fixtures.ts';

/** The src of every <img> in the HTML, in order. */
const imageSources = (html: string): string[] => [...html.matchAll(/<img src="([^"]+)"/g)].map((match) => match[1]!);

async function guidOf(imageid: number, token: string): Promise<string> {
  return (await api('GET', `/media/images/${imageid}`, { token })).body.image.guid;
}

/** Fetches without a token and checks the bytes are an image of that size's dimensions. */
async function expectServedAtSize(url: string, size: string): Promise<void> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^image\//);
  const { width } = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
  expect(width).toBe(IMAGE_SIZES.find((known) => known.name === size)!.width);
}

describe('library images named in wiki text', () => {
  it('renders [image|id] on a wiki page as an <img> at /igi/<guid>.<size> that answers with the image', async () => {
    const admin = await loginAdmin();
    const imageid = await uploadImage(admin, 800, 600);
    const guid = await guidOf(imageid, admin);
    const wiki = await createWiki({ contents: `Before.\n\n[image|${imageid}|size=medium|The board]\n\nAfter.` });
    expect(imageSources(wiki.contents_rendered as string)).toEqual([`${siteUrl()}/igi/${guid}.medium`]);

    const read = await api('GET', wikiPath(wiki), { token: admin });
    expect(read.status).toBe(200);
    const [src] = imageSources(read.body.contents_rendered);
    expect(src).toBe(`${siteUrl()}/igi/${guid}.medium`);
    await expectServedAtSize(src!, 'medium');
  });

  it('leaves an image out once it is deleted, and keeps the rest of the text', async () => {
    const admin = await loginAdmin();
    const imageid = await uploadImage(admin);
    const wiki = await createWiki({ contents: `Kept text. [image|${imageid}]` });
    expect(imageSources(wiki.contents_rendered as string)).toHaveLength(1);
    expect((await api('DELETE', `/user/media/images/${imageid}`, { token: admin })).status).toBe(204);
    const read = await api('GET', wikiPath(wiki), { token: admin });
    expect(read.body.contents_rendered).toContain('Kept text.');
    expect(imageSources(read.body.contents_rendered)).toEqual([]);
  });

  it("refuses (422) text naming an image outside the writer's library, which would reveal its guid", async () => {
    const [owner, other] = await Promise.all([
      createUser({ privileges: ['Author'] }),
      createUser({ privileges: ['Author'] }),
    ]);
    const imageid = await uploadImage(owner.token);
    for (const contents of [`[image|${imageid}]`, '[image|999999999]']) {
      const wiki = await api('POST', '/wikis', {
        token: other.token,
        body: { namespace: 'WIKI', title: `Page ${uniqueSuffix()}`, contents },
      });
      expect(wiki.status, contents).toBe(422);
      expect(wiki.text).toContain('contents');
    }
    const lines = [{ text: `[image|${imageid}]`, bullet: 'black', level: 0 }];
    const preview = await api('POST', '/guides/steps/lines/preview', { token: other.token, body: { lines } });
    expect(preview.status).toBe(422);
    expect(preview.text).not.toContain('/igi/');

    // What the page already names stays: another editor changes the text around it.
    const page = await createWiki({ contents: `[image|${imageid}]` }, owner.token);
    const edited = await api('PATCH', wikiPath(page), {
      token: other.token,
      query: { revisionid: page.revisionid },
      body: { contents: `Edited. [image|${imageid}]` },
    });
    expect(edited.status).toBe(200);
    expect(imageSources(edited.body.contents_rendered)).toHaveLength(1);
  });

  it('renders them on category pages, in category identification and on courses', async () => {
    const admin = await loginAdmin();
    const imageid = await uploadImage(admin);
    const guid = await guidOf(imageid, admin);
    const category = await createWiki({
      namespace: 'CATEGORY',
      title: `Boards ${uniqueSuffix()}`,
      contents: `[image|${imageid}|size=thumbnail]`,
      identification: `Look for this: [image|${imageid}|size=standard]`,
    });
    const page = await api('GET', `/categories/${encodeURIComponent(category.title)}`, { token: admin });
    expect(imageSources(page.body.contents_rendered)).toEqual([`${siteUrl()}/igi/${guid}.thumbnail`]);
    const identified = await api('GET', wikiPath(category, '/identification'), { token: admin });
    expect(imageSources(identified.body.identification_rendered)).toEqual([`${siteUrl()}/igi/${guid}.standard`]);
    await expectServedAtSize(`${siteUrl()}/igi/${guid}.standard`, 'standard');

    const course = await createCourse({ contents: `[image|${imageid}|size=large]` });
    const read = await api('GET', `/courses/${course.wikiid}`, { token: admin });
    expect(imageSources(read.body.contents_rendered)).toEqual([`${siteUrl()}/igi/${guid}.large`]);
  });

  it('renders them in guide introductions, conclusions, step lines and the line preview', async () => {
    const writer = await createUser({ privileges: ['Author'] });
    const imageid = await uploadImage(writer.token);
    const guid = await guidOf(imageid, writer.token);
    const guide = await createGuide(writer.token, {
      introduction: `[image|${imageid}|size=medium]`,
      conclusion: `Done [image|${imageid}|size=thumbnail]`,
    });
    expect(imageSources(guide.introduction_rendered)).toEqual([`${siteUrl()}/igi/${guid}.medium`]);
    expect(imageSources(guide.conclusion_rendered)).toEqual([`${siteUrl()}/igi/${guid}.thumbnail`]);

    const lines = [{ text: `See [image|${imageid}|size=standard]`, bullet: 'black', level: 0 }];
    const withStep = await addStep(writer.token, guide.guideid, { lines });
    const [step] = ownSteps(withStep);
    expect(imageSources(step.lines[0].text_rendered)).toEqual([`${siteUrl()}/igi/${guid}.standard`]);
    const preview = await api('POST', '/guides/steps/lines/preview', { token: writer.token, body: { lines } });
    expect(preview.status).toBe(200);
    expect(imageSources(preview.body.lines[0].text_rendered)).toEqual([`${siteUrl()}/igi/${guid}.standard`]);
  });
});
