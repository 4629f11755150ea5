/**
 * A small site of content for the content crawler tests, made through the API: an author with
 * images, a video, a document and an embed in their library; a prerequisite guide; and a
 * published, featured guide using all of them, with steps, grants to a user and a team.
 */
import { api, createTeam, createUser, loginAdmin, type TestTeam, type TestUser } from '../../support/api.ts';
import { addStep, createGuide, publish, uploadImage, uploadReadyFile } from '../../api/guide-fixtures.ts';

export interface ContentSite {
  author: TestUser;
  reader: TestUser;
  team: TestTeam;
  images: number[];
  videoid: number;
  documentid: number;
  embedid: number;
  prerequisite: { guideid: number };
  guide: { guideid: number; revisionid: number; steps: Array<{ stepid: number; guideid: number }> };
}

let site: Promise<ContentSite> | undefined;

async function ok<T = any>(response: Promise<{ status: number; body: T; text: string }>, what: string): Promise<T> {
  const answer = await response;
  if (answer.status < 200 || answer.status > 299) throw new Error(`${what}: ${answer.status} ${answer.text}`);
  return answer.body;
}

async function build(): Promise<ContentSite> {
  const admin = await loginAdmin();
  const author = await createUser({ privileges: ['Author'] });
  const reader = await createUser();
  const team = await createTeam();
  const images = [await uploadImage(author.token), await uploadImage(author.token, 300, 300)];
  const videoid = await uploadReadyFile(author.token, 'clip.mp4', Buffer.alloc(256, 7));
  const documentid = await uploadReadyFile(author.token, 'torque table.pdf', Buffer.from('%PDF-1.4\n% torque\n'));
  const embed = await ok(
    api('POST', '/user/media/embeds', {
      token: author.token,
      body: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
    }),
    'embed',
  );
  const prerequisite = await createGuide(author.token, { summary: 'Read first' });
  await addStep(author.token, prerequisite.guideid, { title: 'Safety' });
  const created = await createGuide(author.token, {
    summary: 'Swap a worn nozzle',
    introduction: "You need a '''hex key'''.",
    conclusion: 'Done.',
    difficulty: 'Easy',
    time_required_min: 600,
    time_required_max: 1200,
    image: images[0],
    documents: [documentid],
    prerequisites: [prerequisite.guideid],
    parts: [{ text: 'Nozzle 0.4 mm', quantity: 2 }],
    tools: [{ text: 'Hex key', notes: '2 mm', isoptional: true }],
  });
  await addStep(author.token, created.guideid, { title: 'Unscrew', media: { type: 'image', data: images } });
  await addStep(author.token, created.guideid, { title: 'Watch', media: { type: 'video', data: videoid } });
  await addStep(author.token, created.guideid, { title: 'Explained', media: { type: 'embed', data: embed.embedid } });
  await addStep(author.token, created.guideid, { title: 'Text only' });
  await ok(api('PUT', `/guides/${created.guideid}/users/${reader.userid}`, { token: admin }), 'grant user');
  await ok(api('PUT', `/guides/${created.guideid}/teams/${team.teamid}`, { token: admin }), 'grant team');
  const current = await ok(api('GET', `/guides/${created.guideid}`, { token: admin }), 'read');
  const flagged = await ok(
    api('PATCH', `/guides/${created.guideid}`, {
      token: admin,
      query: { revisionid: current.revisionid },
      body: { flags: ['GUIDE_STARRED'] },
    }),
    'flag',
  );
  const published = await publish(author.token, flagged);
  return {
    author,
    reader,
    team,
    images,
    videoid,
    documentid,
    embedid: embed.embedid,
    prerequisite,
    guide: {
      guideid: published.guideid,
      revisionid: published.revisionid,
      // The guide's own steps (a full guide shows its prerequisites' steps first).
      steps: published.steps.filter((step: { guideid: number }) => step.guideid === published.guideid),
    },
  };
}

/** The site, built once per test file. */
export function contentSite(): Promise<ContentSite> {
  site ??= build();
  return site;
}
