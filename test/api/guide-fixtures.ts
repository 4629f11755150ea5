/** Fixtures for the guide API tests: categories, guides and steps made through the API. */
import sharp from 'sharp';
import { api, loginAdmin, uniqueSuffix } from '../support/api.ts';

export const LINES = [
  { text: 'Unplug the printer.', bullet: 'black', level: 0 },
  { text: 'Wait until the nozzle is cool.', bullet: 'icon_caution', level: 1 },
];

/** A CATEGORY wiki (guides need an existing category); returns its title. */
export async function createCategory(): Promise<string> {
  const title = `Printers ${uniqueSuffix()}`;
  const response = await api('POST', '/wikis', {
    token: await loginAdmin(),
    body: { namespace: 'CATEGORY', title, contents: 'Desktop printers.' },
  });
  if (response.status !== 201) throw new Error(`createCategory: ${response.status} ${response.text}`);
  return title;
}

let sharedCategory: Promise<string> | undefined;

/** One category for a test file's guides. */
export function category(): Promise<string> {
  sharedCategory ??= createCategory();
  return sharedCategory;
}

export async function createGuide(token: string, body: Record<string, unknown> = {}) {
  const response = await api('POST', '/guides', {
    token,
    body: { category: await category(), type: 'how-to', title: `Replace the nozzle ${uniqueSuffix()}`, ...body },
  });
  if (response.status !== 201) throw new Error(`createGuide: ${response.status} ${response.text}`);
  return response.body;
}

export async function addStep(token: string, guideid: number, body: Record<string, unknown> = {}) {
  const current = await api('GET', `/guides/${guideid}`, { token });
  const response = await api('POST', `/guides/${guideid}/steps`, {
    token,
    body: {
      orderby: current.body.steps.filter((step: { guideid: number }) => step.guideid === guideid).length + 1,
      lines: LINES,
      ...body,
    },
  });
  if (response.status !== 201) throw new Error(`addStep: ${response.status} ${response.text}`);
  return response.body;
}

export async function publish(token: string, guide: { guideid: number; revisionid: number }) {
  const response = await api('PUT', `/guides/${guide.guideid}/public`, {
    token,
    query: { revisionid: guide.revisionid },
    body: {},
  });
  if (response.status !== 200) throw new Error(`publish: ${response.status} ${response.text}`);
  return response.body;
}

/** A new periodic-review schedule (reviewed by `reviewerUserid`) holding the guides; its prsid and name. */
export async function scheduleGuides(
  adminToken: string,
  reviewerUserid: number,
  guideids: number[],
): Promise<{ prsid: number; name: string }> {
  const schedule = await api('POST', '/periodic_review', {
    token: adminToken,
    body: {
      name: `Yearly check ${uniqueSuffix()}`,
      frequency_quantity: 1,
      frequency_unit: 'year',
      reviewer_userid: reviewerUserid,
    },
  });
  if (schedule.status !== 201) throw new Error(`schedule: ${schedule.status} ${schedule.text}`);
  const added = await api('POST', '/periodic_review/documents', {
    token: adminToken,
    body: { prsid: schedule.body.prsid, documents: guideids.map((docid) => ({ doctype: 'guide', docid })) },
  });
  if (added.status !== 201) throw new Error(`schedule documents: ${added.status} ${added.text}`);
  return { prsid: schedule.body.prsid, name: schedule.body.name };
}

/** The guide's own steps (without inlined prerequisite steps). */
export const ownSteps = (guide: { guideid: number; steps: any[] }): any[] =>
  guide.steps.filter((step) => step.guideid === guide.guideid);

/**
 * Uploads a PNG to the user's media library (raw body) and waits until processing has made its
 * sizes; returns the GuideImage id. Small images keep it fast.
 */
export async function uploadImage(token: string, width = 400, height = 300): Promise<number> {
  const png = await sharp({ create: { width, height, channels: 3, background: '#cc6633' } })
    .png()
    .toBuffer();
  const upload = await api('POST', '/user/media/uploads', {
    token,
    query: { file: `photo-${uniqueSuffix()}.png` },
    rawBody: png,
    headers: { 'content-type': 'application/octet-stream' },
  });
  if (upload.status !== 200) throw new Error(`uploadImage: ${upload.status} ${upload.text}`);
  for (let attempt = 0; attempt < 400; attempt++) {
    const item = await api('GET', `/user/media/GuideImage/${upload.body.id}`, { token });
    if (item.body.status === 'ready') return upload.body.id;
    if (item.body.status === 'failed') throw new Error(`uploadImage: processing failed: ${item.text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`uploadImage: image ${upload.body.id} still processing`);
}

/** Uploads any file (raw body) and waits until it is processed; returns its media item id. */
export async function uploadReadyFile(token: string, filename: string, bytes: Buffer): Promise<number> {
  const upload = await api('POST', '/user/media/uploads', {
    token,
    query: { file: filename },
    rawBody: bytes,
    headers: { 'content-type': 'application/octet-stream' },
  });
  if (upload.status !== 200) throw new Error(`uploadReadyFile: ${upload.status} ${upload.text}`);
  for (let attempt = 0; attempt < 400; attempt++) {
    const item = await api('GET', `/user/media/${upload.body.type}/${upload.body.id}`, { token });
    if (item.body.status === 'ready') return upload.body.id;
    if (item.body.status === 'failed') throw new Error(`uploadReadyFile: processing failed: ${item.text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`uploadReadyFile: ${filename} still processing`);
}
