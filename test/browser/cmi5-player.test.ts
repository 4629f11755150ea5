/**
 * A cmi5 AU launched from the course page (docs/lrs.md, "From the course page"), in a real
 * browser: the learner opens the module link `/ExternalTrainingModule/{id}`, which lists the AUs
 * with their state; Start posts the page's launch form, the site answers 303 to the AU's launch
 * URL on the content origin (an OwnWindow AU replaces the page). The AU, built by this test,
 * reads endpoint/fetch/actor/registration/activityId from its URL, fetches its auth-token once
 * (a second fetch is refused), reads LMS.LaunchData, sends initialized, completed, passed and
 * terminated across origins, and goes back by returnURL: the page shows the AU satisfied and the
 * course stage is complete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'puppeteer-core';
import { api, createUser, loginAdmin, site, siteUrl } from '../support/api.ts';
import { launchChromium } from '../support/chromium.ts';
import { assign, createCourse, entryOf, getAssignment } from '../support/courses.ts';
import { zip } from '../support/module-packages.ts';
import { importPackage } from '../support/modules.ts';

// Functions run in the page: `globalThis.document` there; this project compiles without DOM types.
type PageGlobal = any;

const COURSE = 'https://example.com/cmi5/player-course';
const AU1 = 'https://example.com/cmi5/player-au1';
const AU2 = 'https://example.com/cmi5/player-au2';

let browser: Browser;
let close: () => Promise<void>;
let admin: string;

beforeAll(async () => {
  [{ browser, close }, admin] = await Promise.all([launchChromium(), loginAdmin()]);
}, 90_000);
afterAll(async () => close?.());

const title = (text: string) => `<title><langstring lang="en-US">${text}</langstring></title>`;

/** The AU: the cmi5 conversation of a well-behaved AU, then back to the LMS by returnURL. */
const AU_PAGE = `<!doctype html><html><head><title>AU</title></head><body><p>AU</p><script>
(async function () {
  var q = new URLSearchParams(location.search);
  try {
    var token = (await (await fetch(q.get('fetch'), { method: 'POST' })).json())['auth-token'];
    var again = await (await fetch(q.get('fetch'), { method: 'POST' })).json();
    if (again['error-code'] !== '1') throw new Error('a second fetch gave ' + JSON.stringify(again));
    var endpoint = q.get('endpoint');
    var actor = JSON.parse(q.get('actor'));
    var au = q.get('activityId');
    var headers = { Authorization: 'Basic ' + token, 'X-Experience-API-Version': '1.0.3' };
    var state = new URLSearchParams({
      activityId: au, agent: JSON.stringify(actor), registration: q.get('registration'), stateId: 'LMS.LaunchData',
    });
    var launchData = await (await fetch(endpoint + 'activities/state?' + state, { headers: headers })).json();
    var send = async function (verb, result, moveOn) {
      var context = JSON.parse(JSON.stringify(launchData.contextTemplate));
      var moveOnCategory = { id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' };
      if (moveOn) context.contextActivities.category.push(moveOnCategory);
      var statement = { actor: actor, verb: { id: 'http://adlnet.gov/expapi/verbs/' + verb },
        object: { objectType: 'Activity', id: au }, context: context };
      if (result) statement.result = result;
      var sent = await fetch(endpoint + 'statements', { method: 'POST', body: JSON.stringify(statement),
        headers: Object.assign({ 'Content-Type': 'application/json' }, headers) });
      if (sent.status !== 200) throw new Error(verb + ': ' + sent.status + ' ' + (await sent.text()));
    };
    await send('initialized');
    await send('completed', { completion: true, duration: 'PT5S' }, true);
    await send('passed', { success: true, score: { scaled: 0.9 }, duration: 'PT5S' }, true);
    await send('terminated', { duration: 'PT6S' });
    location.href = launchData.returnURL;
  } catch (error) {
    document.title = 'AU failed: ' + error.message;
  }
})();
</script></body></html>`;

describe('cmi5 from the course page', () => {
  it('lists the AUs, launches one for the learner, and its statements satisfy the course and complete the stage', async () => {
    const xml =
      '<?xml version="1.0"?><courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">' +
      `<course id="${COURSE}">${title('Player course')}</course>` +
      `<block id="${COURSE}/block">${title('Part one')}` +
      `<au id="${AU1}" moveOn="CompletedAndPassed" masteryScore="0.8" launchMethod="OwnWindow">${title('Lesson')}` +
      '<url>au/index.html</url></au></block>' +
      `<au id="${AU2}" moveOn="NotApplicable">${title('Extra reading')}<url>au/index.html?extra=1</url></au>` +
      '</courseStructure>';
    const { moduleid, importid, result } = await importPackage(
      admin,
      await zip({ 'cmi5.xml': xml, 'au/index.html': AU_PAGE }),
    );
    expect(result.status, JSON.stringify(result)).toBe('complete');
    await api('PUT', `/external_training_modules/${moduleid}/current`, { token: admin, body: { importid } });
    const course = await createCourse({ stages: [{ doctype: 'external_training_module', docid: moduleid }] });
    const learner = await createUser();
    const assignment = await assign({ wikiid: course.wikiid, userid: learner.userid });

    const page = await browser.newPage();
    await page.setCookie({ name: 'stepwise_session', value: learner.token, url: siteUrl() });
    const playerUrl = `${siteUrl()}/ExternalTrainingModule/${moduleid}`;
    expect((await page.goto(playerUrl, { waitUntil: 'load' }))?.status()).toBe(200);
    const listed = () =>
      page.$$eval('.cmi5-au', (items: PageGlobal[]) =>
        items.map((item) => ({
          title: item.querySelector('.cmi5-au-title').textContent,
          state: item.querySelector('.cmi5-au-state').textContent,
          target: item.querySelector('form')?.getAttribute('target') ?? null,
        })),
      );
    expect(await listed()).toEqual([
      { title: 'Part one: Lesson', state: 'Not started', target: '_self' },
      // AnyWindow (the default): a window of its own, the page stays.
      { title: 'Extra reading', state: 'Not started', target: '_blank' },
    ]);

    // OwnWindow: the AU replaces the page, talks to the LRS, and comes back by returnURL.
    const back = page.waitForResponse(
      (response) => response.url() === playerUrl && response.request().method() === 'GET',
      { timeout: 30_000 },
    );
    await page.click(`.cmi5-au[data-au="${AU1}"] button[type=submit]`);
    try {
      await back;
    } catch (error) {
      throw new Error(`the AU did not come back (${await page.title().catch(() => '?')} at ${page.url()}): ${error}`);
    }
    await page.waitForSelector('#cmi5-player[data-course-satisfied="true"]', { timeout: 10_000 });
    expect((await listed()).map((au) => au.state)).toEqual(['Satisfied', 'Not started']);
    const record = await getAssignment(assignment.course_assignmentid);
    expect(entryOf(record.body, learner.userid).stage_status.status).toBe('completed');
    await page.close();

    // The launch is the assigned learner's own, and only from a page of this site (its CSRF token).
    const stranger = await createUser();
    const notAssigned = await site('GET', `/ExternalTrainingModule/${moduleid}`, { token: stranger.token });
    expect(notAssigned.status).toBe(404);
    const forged = await site('POST', `/ExternalTrainingModule/${moduleid}/cmi5`, {
      headers: { cookie: `stepwise_session=${learner.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({ au: AU1 }).toString(),
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
