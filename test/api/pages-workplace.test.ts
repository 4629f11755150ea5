/**
 * The browser as a workplace, over HTTP (issue 42 items 2-5): the search page and the search
 * box's suggestions (the API's access rule, matches marked and escaped, filters and paging), the
 * learner's home (/Manage: courses, acknowledgements signed by a form of the session, levels, a
 * team owner's matrix), and the newcomer fixes. One stack; the index is awaited, never slept for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, api, createUser, loginAdmin, site, uniqueSuffix, type TestUser } from '../support/api.ts';
import { assign, assignedTrainee, createCourse, releaseGuide } from '../support/courses.ts';
import { Visitor, csrfIn } from '../support/sessions.ts';
import { XSS } from '../support/pages.ts';
import { createGuide, publish } from './guide-fixtures.ts';

const word = `wq${uniqueSuffix()}`;

/** The search page until `done` holds (the index trails writes by the stream poll and one write). */
async function searchPageUntil(path: string, token: string, done: (text: string) => boolean): Promise<string> {
  const started = Date.now();
  for (;;) {
    const page = await site('GET', path, { token });
    expect(page.status, page.text).toBe(200);
    if (done(page.text) || Date.now() - started > 20_000) return page.text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let admin: string;
let author: TestUser;
let reader: TestUser;
let shown: { guideid: number; title: string };
let second: { guideid: number; title: string };

beforeAll(async () => {
  admin = await loginAdmin();
  [author, reader] = await Promise.all([createUser({ privileges: ['Author'] }), createUser()]);
  shown = await publish(author.token, await createGuide(author.token, { title: `Bleed the ${word} brakes ${XSS}` }));
  second = await publish(author.token, await createGuide(author.token, { title: `Check the ${word} pads` }));
  await createGuide(author.token, { title: `Draft ${word} notes` });
  // Everything above is in the index once the author sees all three.
  await searchPageUntil(`/Search?query=${word}`, author.token, (text) => text.includes('Results 1–3 of 3'));
}, 90_000);

describe('the search page', () => {
  it('lists what the reader may read, marks the words, escapes everything, pages and filters', async () => {
    const text = await searchPageUntil(`/Search?query=${word}`, reader.token, (page) => page.includes('of 2'));
    expect(text).toContain('Results 1–2 of 2');
    expect(text).not.toContain(`Draft <mark>${word}</mark>`);
    expect(text).toContain(`Bleed the <mark>${word}</mark> brakes &lt;script&gt;`);
    expect(text).not.toContain('<script>window.__xss');
    expect(text).toContain(`href="/Guide/`);
    // The header's box carries the words; the page's form keeps the filter.
    expect(text).toMatch(new RegExp(`id="site-search-query"[^>]+value="${word}"`));
    const paged = await site('GET', `/Search?query=${word}&limit=1`, { token: reader.token });
    expect(paged.text).toContain('Results 1–1 of 2');
    expect(paged.text).toContain(`href="/Search?query=${word}&amp;limit=1&amp;offset=1" rel="next"`);
    const wikiOnly = await site('GET', `/Search?query=${word}&filter=wiki`, { token: reader.token });
    expect(wikiOnly.text).toContain('Nothing found');
    expect(wikiOnly.text).toMatch(/<option value="wiki" selected>/);
    // The author, who may read the draft, finds it too.
    const asAuthor = await site('GET', `/Search?query=${word}`, { token: author.token });
    expect(asAuthor.text).toContain(`Draft <mark>${word}</mark> notes`);
    const bad = await site('GET', `/Search?query=${word}&filter=nope`, { token: reader.token });
    expect(bad.status).toBe(422);
  });

  it('suggests titles the reader may read as they type (JSON), none under three characters', async () => {
    const answer = await site('GET', `/Search/suggest?query=${word}`, { token: reader.token });
    expect(answer.status).toBe(200);
    const titles = answer.body.suggestions.map((entry: { title: string }) => entry.title).sort();
    expect(titles).toEqual([second.title, shown.title].sort());
    expect((await site('GET', '/Search/suggest?query=ab', { token: reader.token })).body.suggestions).toEqual([]);
  });
});

describe("the learner's home", () => {
  it('sends an anonymous visitor to the login page; shows courses, levels and acknowledgements', async () => {
    const anonymous = await site('GET', '/Manage');
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/login?returnTo=%2FManage');

    const { guide, course, trainee } = await assignedTrainee({}, { due_within: 7 * 86400 });
    const withStep = await api('POST', `/guides/${guide.guideid}/steps`, {
      token: admin,
      body: { orderby: 1, title: 'Shut the supply', lines: [{ text: 'Open the valve', bullet: 'black', level: 0 }] },
    });
    expect(withStep.status, withStep.text).toBe(201);
    const release = await releaseGuide(guide.guideid, 'major');
    const skill = await api('POST', '/qualifications/skills', {
      token: admin,
      body: { name: `Brakes ${uniqueSuffix()}`, guideids: [guide.guideid], recertification_days: 365 },
    });
    expect(skill.status, skill.text).toBe(201);
    const level = await api('PUT', `/qualifications/skills/${skill.body.skillid}/levels/${trainee.userid}`, {
      token: admin,
      body: { level: 3, password: ADMIN.password },
    });
    expect(level.status, level.text).toBe(200);

    const visitor = new Visitor();
    await visitor.signIn(trainee.email, trainee.password, '/Manage');
    const home = await visitor.get('/Manage');
    expect(home.status).toBe(200);
    expect(home.text).toContain('<h1>My training</h1>');
    expect(home.text).toContain(`href="/Courses/View/${course.wikiid}"`);
    expect(home.text).toMatch(/Not started<\/span> · 0 of 1 stages · Due <time/);
    expect(home.text).toContain(skill.body.name);
    expect(home.text).toContain('3 · Independent');
    expect(home.text).toMatch(/Expires <time datetime="\d{4}/);
    expect(home.text).toContain(`action="/Manage/acknowledgements/${release.releaseid}/sign"`);

    // The acknowledgement opens its page: what changed (all new: nothing signed before) and the sign form.
    expect(home.text).toContain(`href="/Manage/acknowledgements/${release.releaseid}"`);
    const review = await visitor.get(`/Manage/acknowledgements/${release.releaseid}`);
    expect(review.status).toBe(200);
    expect(review.text).toContain(`<h1>Acknowledge: ${guide.title}</h1>`);
    expect(review.text).toContain('all of it is shown as new');
    expect(review.text).toContain('Step 1: Shut the supply (added)');
    expect(review.text).toContain('<span class="diff-word">Added: </span>Open the valve');
    expect(review.text).toContain('<input type="hidden" name="from" value="review">');
    // Its wrong password is said on that page.
    const onReview = await visitor.post(`/Manage/acknowledgements/${release.releaseid}/sign`, {
      password: 'nope',
      csrf: csrfIn(review.text),
      from: 'review',
    });
    expect(onReview.status).toBe(422);
    expect(onReview.text).toContain('<h1>Acknowledge:');
    expect(onReview.text).toContain('That password is not right');
    // Nobody else's.
    expect((await site('GET', `/Manage/acknowledgements/${release.releaseid}`, { token: reader.token })).status).toBe(
      404,
    );

    // A wrong password is said on the form; nothing is signed.
    const csrf = csrfIn(home.text);
    const wrong = await visitor.post(`/Manage/acknowledgements/${release.releaseid}/sign`, { password: 'nope', csrf });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('That password is not right');
    // Without the CSRF token: refused before anything is read.
    const forged = await visitor.post(`/Manage/acknowledgements/${release.releaseid}/sign`, {
      password: trainee.password,
    });
    expect(forged.status).toBe(403);
    const signed = await visitor.post(`/Manage/acknowledgements/${release.releaseid}/sign`, {
      password: trainee.password,
      csrf,
    });
    expect(signed.status).toBe(303);
    expect(signed.headers.get('location')).toBe(`/Manage?signed=${release.releaseid}`);
    const after = await visitor.get(`/Manage?signed=${release.releaseid}`);
    expect(after.text).toContain('Signed. Thank you.');
    expect(after.text).not.toContain(`/Manage/acknowledgements/${release.releaseid}/sign`);
    const acknowledged = await api('GET', `/acknowledgements/${release.releaseid}`, { token: trainee.token });
    expect(acknowledged.body.acknowledgement.state).toBe('signed');

    // The next release shows what changed since the one signed, line by line.
    const step = withStep.body.steps[0];
    const edited = await api('PATCH', `/guides/${guide.guideid}/steps/${step.stepid}`, {
      token: admin,
      query: { revisionid: String(step.revisionid) },
      body: { lines: [{ text: 'Close the valve', bullet: 'black', level: 0 }] },
    });
    expect(edited.status, edited.text).toBe(200);
    const next = await releaseGuide(guide.guideid, 'major');
    const changed = await visitor.get(`/Manage/acknowledgements/${next.releaseid}`);
    expect(changed.text).toContain(`Since release ${release.version}`);
    expect(changed.text).toContain('Step 1: Shut the supply (changed)');
    expect(changed.text).toContain('<span class="diff-word">Removed: </span>Open the valve');
    expect(changed.text).toContain('<span class="diff-word">Added: </span>Close the valve');
    const signedPage = await visitor.get(`/Manage/acknowledgements/${release.releaseid}`);
    expect(signedPage.text).toContain('You signed this release on');
    expect(signedPage.text).not.toContain('name="password"');
  });

  it("shows a team's owner the matrix of members by courses, with what is overdue", async () => {
    const [owner, member] = await Promise.all([createUser(), createUser()]);
    const team = await api('POST', '/teams', {
      token: admin,
      body: { name: `Crew ${uniqueSuffix()}`, owner: owner.userid, members: [owner.userid, member.userid] },
    });
    expect(team.status, team.text).toBe(201);
    const course = await createCourse({ title: `Lockout ${uniqueSuffix()}` });
    await assign({ wikiid: course.wikiid, userid: member.userid });
    const home = await site('GET', '/Manage', { token: owner.token });
    expect(home.status).toBe(200);
    expect(home.text).toContain('<caption>Members by course</caption>');
    expect(home.text).toContain(`<th scope="col">${course.title}</th>`);
    expect(home.text).toMatch(/<td>Not started<\/td>/);
    expect(home.text).toContain('<th scope="col">Acknowledgements</th>');
    expect(home.text).toContain('None overdue');
    // A member who owns nothing sees no team, nor opens one.
    expect((await site('GET', '/Manage', { token: member.token })).text).not.toContain('Members by course');
    expect((await site('GET', `/Manage?team=${team.body.teamid}`, { token: member.token })).status).toBe(404);
    // An Admin manages every team: a picker, and the chosen team's matrix.
    const adminHome = await site('GET', `/Manage?team=${team.body.teamid}`, { token: admin });
    expect(adminHome.status).toBe(200);
    expect(adminHome.text).toContain('<select id="team-choice" name="team">');
    expect(adminHome.text).toContain(`<option value="${team.body.teamid}" selected>`);
    expect(adminHome.text).toContain(`<th scope="col">${course.title}</th>`);
  });
});

describe('newcomer fixes', () => {
  it('404s name the API reference; a bare or Bearer user token is told the form that works', async () => {
    const unknown = await api('GET', '/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('link')).toBe('</api/2.0/doc>; rel="service-doc"');
    const bare = await api('GET', '/user', { headers: { authorization: reader.token } });
    expect(bare.status).toBe(401);
    expect(bare.body.message).toBe('Invalid login: send the token as "Authorization: api <token>"');
    const bearer = await api('GET', '/user', { headers: { authorization: `Bearer ${reader.token}` } });
    expect(bearer.body.message).toContain('Authorization: api <token>');
  });

  it('serves a favicon every page links; the login page is in the pages\' frame and says "Log in"', async () => {
    const icon = await site('GET', '/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect((await site('GET', '/favicon.ico')).headers.get('location')).toBe('/favicon.svg');
    const login = await site('GET', '/login');
    expect(login.text).toContain('<link rel="icon" href="/favicon.svg"');
    expect(login.text).toContain('<h1>Log in</h1>');
    expect(login.text).toContain('<button type="submit">Log in</button>');
    expect(login.text).toContain('class="site-header"');
    expect(login.text).not.toMatch(/Sign in</);
  });
});
