/**
 * The module player in a real browser (issue 37, decision 306): an assigned learner opens
 * `/ExternalTrainingModule/{id}`; the SCO runs on the content origin under the runtime host,
 * finds the SCORM API (scorm-again) in its parent chain, and what it reports is kept through the
 * page's commits: a SCORM 1.2 pass completes the course stage, a 2004 suspend resumes on a second
 * launch, a multi-SCO TOC chooses, the page's unload keeps uncommitted data, and a package script
 * can neither read the site's session cookie nor call the API as the learner. One browser; the
 * learner's session cookie holds their API token (docs/sessions.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { api, createUser, loginAdmin, site, siteUrl, type TestUser } from '../support/api.ts';
import { launchChromium } from '../support/chromium.ts';
import { assignedModule, entryOf, getAssignment } from '../support/courses.ts';
import { scorm12Manifest, scorm2004Manifest, zip } from '../support/module-packages.ts';
import { scorm12MultiPackage, sequenced2004Manifest } from '../support/scorm-packages.ts';

// Functions run in the page: `globalThis.document` there; this project compiles without DOM types.
type PageGlobal = any;

let browser: Browser;
let close: () => Promise<void>;
let admin: string;

beforeAll(async () => {
  [{ browser, close }, admin] = await Promise.all([launchChromium(), loginAdmin()]);
}, 90_000);
afterAll(async () => close?.());

/** A SCO page whose script runs `body` with `api` found in the parent chain (1.2 `API`, 2004 `API_1484_11`). */
function sco(name: 'API' | 'API_1484_11', body: string): string {
  return `<!doctype html><html><head><title>SCO</title></head><body><p>SCO</p><script>
var api = null;
for (var w = window.parent; w; w = w.parent) { if (w.${name}) { api = w.${name}; break; } if (w === w.parent) break; }
function mark(name, value) { document.body.setAttribute('data-' + name, String(value)); }
${body}
</script></body></html>`;
}

/** Opens the player as the learner, signed in by the session cookie as a browser is; expects `status`. */
async function openPlayer(
  learner: TestUser,
  moduleid: number,
  query = '',
  width?: number,
  status = 200,
): Promise<Page> {
  const page = await browser.newPage();
  if (width) await page.setViewport({ width, height: 844, isMobile: true, hasTouch: true });
  await page.setCookie({ name: 'stepwise_session', value: learner.token, url: siteUrl() });
  const response = await page.goto(`${siteUrl()}/ExternalTrainingModule/${moduleid}${query}`, { waitUntil: 'load' });
  expect(response?.status()).toBe(status);
  return page;
}

/** Waits until the player moved to the SCO `identifier` (the page follows the sequencer's delivery). */
async function deliveredSco(page: Page, identifier: string) {
  await page.waitForFunction(
    (expected) => new URLSearchParams((globalThis as PageGlobal).location.search).get('sco') === expected,
    { timeout: 15_000 },
    identifier,
  );
}

/** Waits until the sequencing session ended (the runtime's frame is gone) and the page says so. */
async function moduleEnded(page: Page) {
  await page.waitForFunction(() => !(globalThis as PageGlobal).document.getElementById('player-runtime'), {
    timeout: 15_000,
  });
  expect(await page.$eval('#player-status', (status: PageGlobal) => status.textContent)).toContain('end of the module');
}

/** The page's layout: nothing wider than the viewport, and where `selector` sits. */
const layoutOf = (page: Page, selector: string) =>
  page.evaluate((chosen) => {
    const doc = (globalThis as PageGlobal).document;
    const box = doc.querySelector(chosen)?.getBoundingClientRect();
    return {
      scroll: doc.documentElement.scrollWidth,
      client: doc.documentElement.clientWidth,
      width: box?.width ?? 0,
      height: box?.height ?? 0,
      right: box?.right ?? Number.POSITIVE_INFINITY,
    };
  }, selector);

/** The SCO's frame (the runtime host's child) once its script marked `attribute`. */
async function scoFrame(page: Page, attribute: string): Promise<Frame> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame.parentFrame()?.url().includes('/runtime/host.html')) {
        const marked = await frame
          .evaluate((name) => (globalThis as PageGlobal).document.body?.hasAttribute(`data-${name}`), attribute)
          .catch(() => false);
        if (marked) return frame;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no SCO frame marked ${attribute}`);
}

const marks = (frame: Frame) =>
  frame.evaluate(() =>
    Object.fromEntries(
      [...(globalThis as PageGlobal).document.body.attributes].map((a: PageGlobal) => [a.name, a.value]),
    ),
  );

/** Waits until the page's player shows `attribute` = `value` (set by player.js after a kept commit). */
async function playerShows(page: Page, attribute: string, value: string) {
  await page.waitForFunction(
    (name, expected) => (globalThis as PageGlobal).document.getElementById('player')?.getAttribute(name) === expected,
    { timeout: 15_000 },
    attribute,
    value,
  );
}

describe('the module player', () => {
  it('SCORM 1.2: the SCO finds the API, reports a pass, and the course stage completes', async () => {
    const pkg = await zip({
      'imsmanifest.xml': scorm12Manifest('Player 1.2', 'index.html'),
      'index.html': sco(
        'API',
        `mark('init', api.LMSInitialize(''));
mark('entry', api.LMSGetValue('cmi.core.entry'));
mark('student', api.LMSGetValue('cmi.core.student_id'));
api.LMSSetValue('cmi.core.score.raw', '90');
api.LMSSetValue('cmi.core.lesson_status', 'passed');
mark('commit', api.LMSCommit(''));
mark('finish', api.LMSFinish(''));
mark('late', api.LMSCommit(''));
mark('done', 1);`,
      ),
    });
    const { moduleid, learner, assignment } = await assignedModule(admin, pkg);
    const page = await openPlayer(learner, moduleid);
    const frame = await scoFrame(page, 'done');
    expect(await marks(frame)).toMatchObject({
      'data-init': 'true',
      'data-entry': 'ab-initio',
      'data-student': String(learner.userid),
      'data-commit': 'true',
      'data-finish': 'true',
      // A commit after LMSFinish is refused by the runtime.
      'data-late': 'false',
    });
    await playerShows(page, 'data-completion', 'completed');
    const record = await getAssignment(assignment.course_assignmentid);
    expect(entryOf(record.body, learner.userid).stage_status.status).toBe('completed');
    await page.close();
  });

  it('SCORM 2004 4th: a suspend resumes on the second launch with its suspend_data', async () => {
    const pkg = await zip({
      'imsmanifest.xml': scorm2004Manifest('Player 2004', 'content/start.html'),
      'content/start.html': sco(
        'API_1484_11',
        `api.Initialize('');
var entry = api.GetValue('cmi.entry');
mark('entry', entry);
if (entry === 'resume') {
  mark('suspend', api.GetValue('cmi.suspend_data'));
  mark('location', api.GetValue('cmi.location'));
  api.SetValue('cmi.completion_status', 'completed');
  api.SetValue('cmi.success_status', 'passed');
  api.SetValue('cmi.exit', 'normal');
} else {
  api.SetValue('cmi.suspend_data', 'page=7;answers=b,c');
  api.SetValue('cmi.location', 'page-7');
  api.SetValue('cmi.completion_status', 'incomplete');
  api.SetValue('cmi.exit', 'suspend');
}
api.Commit('');
api.Terminate('');
mark('done', 1);`,
      ),
    });
    const { moduleid, learner } = await assignedModule(admin, pkg);
    const first = await openPlayer(learner, moduleid);
    expect(await marks(await scoFrame(first, 'done'))).toMatchObject({ 'data-entry': 'ab-initio' });
    await playerShows(first, 'data-completion', 'incomplete');
    await first.close();

    const second = await openPlayer(learner, moduleid);
    expect(await marks(await scoFrame(second, 'done'))).toMatchObject({
      'data-entry': 'resume',
      'data-suspend': 'page=7;answers=b,c',
      'data-location': 'page-7',
    });
    await playerShows(second, 'data-completion', 'completed');
    await second.close();
  });

  it('multi-SCO: the TOC lists the SCOs, and choosing one opens it', async () => {
    const { moduleid, learner } = await assignedModule(admin, await scorm12MultiPackage('Player multi'));
    const page = await openPlayer(learner, moduleid);
    const toc = await page.$$eval('.player-toc a', (links: PageGlobal[]) => links.map((link) => link.textContent));
    expect(toc).toEqual(['Introduction', 'Rules']);
    expect(await page.$eval('.player-toc a[aria-current="page"]', (link: PageGlobal) => link.textContent)).toBe(
      'Introduction',
    );
    await Promise.all([page.waitForNavigation(), page.click('a[rel="next"]')]);
    expect(page.url()).toContain('sco=rules');
    // The frame attaching is the event (a loaded machine may take long: no clock of our own).
    const rules = await page.waitForFrame((frame) => frame.url().includes('/sco/rules.html'), { timeout: 30_000 });
    expect(rules.url()).toContain('/sco/rules.html?x=1&chapter=2');
    await page.close();

    // Over HTTP: a user not assigned gets the 404 page, an Admin a preview, a commit without the CSRF token 403.
    const stranger = await createUser();
    expect((await site('GET', `/ExternalTrainingModule/${moduleid}`, { token: stranger.token })).status).toBe(404);
    const preview = await site('GET', `/ExternalTrainingModule/${moduleid}`, { token: admin });
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('Preview: nothing you do here is kept.');
    const forged = await site('POST', `/ExternalTrainingModule/${moduleid}/commit`, {
      headers: { cookie: `stepwise_session=${learner.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({ attempt: '1', data: '{"version":0,"sco":"intro","cmi":{}}' }).toString(),
    });
    expect(forged.status).toBe(403);
  });

  it('SCORM 2004 sequencing on a phone: control modes drive continue, request_valid and the TOC; the tree rolls up', async () => {
    // one, two, and a cluster that flows but cannot be chosen (choice="false") holding three.
    const manifest = sequenced2004Manifest(
      'Flow',
      `
    <item identifier="one" identifierref="R-one"><title>One</title></item>
    <item identifier="two" identifierref="R-two"><title>Two</title></item>
    <item identifier="extra"><title>Extra</title>
      <item identifier="three" identifierref="R-three"><title>Three</title></item>
      <imsss:sequencing><imsss:controlMode choice="false" flow="true"/></imsss:sequencing>
    </item>`,
    );
    // Each SCO reports what the runtime says is valid, completes, and asks to continue.
    const step = (name: string) =>
      sco(
        'API_1484_11',
        `mark('entry', api.Initialize('') && api.GetValue('cmi.entry'));
mark('continue', api.GetValue('adl.nav.request_valid.continue'));
mark('previous', api.GetValue('adl.nav.request_valid.previous'));
mark('choose-three', api.GetValue('adl.nav.request_valid.choice.{target=three}'));
api.SetValue('cmi.completion_status', 'completed');
api.SetValue('adl.nav.request', 'continue');
mark('${name}', 1);
window.goOn = function () { api.Terminate(''); };
if ('${name}' !== 'two') api.Terminate('');`,
      );
    const pkg = await zip({
      'imsmanifest.xml': manifest,
      'one.html': step('one'),
      'two.html': step('two'),
      'three.html': step('three'),
    });
    const { moduleid, learner, assignment } = await assignedModule(admin, pkg);
    const page = await openPlayer(learner, moduleid, '', 390);
    await deliveredSco(page, 'two');
    const two = await scoFrame(page, 'two');
    expect(await marks(two)).toMatchObject({
      'data-entry': 'ab-initio',
      'data-continue': 'true',
      'data-previous': 'true',
      'data-choose-three': 'false',
    });
    // The TOC links what may be chosen; Three (in a cluster without choice) is listed without a link.
    const toc = await page.$$eval('.player-toc li > *', (items: PageGlobal[]) =>
      items.map((item) => `${item.tagName}:${item.textContent}`),
    );
    expect(toc).toEqual(['A:One', 'A:Two', 'SPAN:Extra', 'SPAN:Three']);
    // 390 px: no horizontal scroll, the frame takes the width, the TOC is on screen.
    const layout = await layoutOf(page, '#player-runtime');
    expect(layout.scroll).toBeLessThanOrEqual(layout.client);
    expect(layout.client).toBeLessThanOrEqual(390);
    expect(layout.width).toBeGreaterThan(300);
    expect((await layoutOf(page, '.player-toc')).height).toBeGreaterThan(0);
    // Continue from two flows into the cluster; continue from three ends the module, which the tree completed.
    await Promise.all([page.waitForNavigation(), two.evaluate(() => (globalThis as PageGlobal).goOn())]);
    expect(page.url()).toContain('sco=three');
    await moduleEnded(page);
    const record = await getAssignment(assignment.course_assignmentid);
    expect(entryOf(record.body, learner.userid).stage_status.status).toBe('completed');
    await page.close();
  });

  it("a post-condition retry: the page delivers what the server's sequencing rules decide (decision 335)", async () => {
    // root (flow) > [quiz: retried while not satisfied]; the quiz fails its first round and passes its second.
    const manifest = sequenced2004Manifest(
      'Retry',
      `
    <item identifier="quiz" identifierref="R-quiz"><title>Quiz</title>
      <imsss:sequencing><imsss:sequencingRules><imsss:postConditionRule>
        <imsss:ruleConditions><imsss:ruleCondition condition="satisfied" operator="not"/></imsss:ruleConditions>
        <imsss:ruleAction action="retry"/>
      </imsss:postConditionRule></imsss:sequencingRules></imsss:sequencing>
    </item>`,
    );
    const key = `quiz-${Date.now()}-${Math.random()}`;
    const pkg = await zip({
      'imsmanifest.xml': manifest,
      'quiz.html': sco(
        'API_1484_11',
        `api.Initialize('');
var round = Number(localStorage.getItem('${key}') || '0') + 1;
localStorage.setItem('${key}', String(round));
api.SetValue('cmi.completion_status', 'completed');
api.SetValue('cmi.success_status', round === 1 ? 'failed' : 'passed');
api.SetValue('adl.nav.request', 'continue');
mark('round' + round, 1);
api.Terminate('');`,
      ),
    });
    const { moduleid, learner, assignment } = await assignedModule(admin, pkg);
    const page = await openPlayer(learner, moduleid);
    // Failed: the retry delivers the quiz again (the page moves to it); passed: continue ends the module,
    // and only the second round's pass completes the stage.
    await deliveredSco(page, 'quiz');
    await moduleEnded(page);
    const record = await getAssignment(assignment.course_assignmentid);
    expect(entryOf(record.body, learner.userid).stage_status.status).toBe('completed');
    await page.close();
  });

  it('a SCO the sequencing refuses (disabled, out of attempts) gets a clear 409 page, on a desktop and a phone', async () => {
    // root (choice, flow) > [once (one attempt), a disabled SCO with a long unbroken title]
    const long = 'Final_assessment_for_certification_part_two_of_three_(locked_until_the_unit_is_passed)';
    const manifest = sequenced2004Manifest(
      'Refused',
      `
    <item identifier="once" identifierref="R-once"><title>Once</title>
      <imsss:sequencing><imsss:limitConditions attemptLimit="1"/></imsss:sequencing></item>
    <item identifier="locked" identifierref="R-locked"><title>${long}</title>
      <imsss:sequencing><imsss:sequencingRules><imsss:preConditionRule>
        <imsss:ruleConditions><imsss:ruleCondition condition="always"/></imsss:ruleConditions>
        <imsss:ruleAction action="disabled"/>
      </imsss:preConditionRule></imsss:sequencingRules></imsss:sequencing></item>`,
    );
    const pkg = await zip({
      'imsmanifest.xml': manifest,
      'once.html': sco('API_1484_11', "mark('done', 1);"),
      'locked.html': sco('API_1484_11', "mark('done', 1);"),
    });
    const { moduleid, learner } = await assignedModule(admin, pkg);
    // The one attempt on "once", taken and ended.
    const commit = (version: number, body: Record<string, unknown>) =>
      api('POST', `/external_training_modules/${moduleid}/attempts/1/commit`, {
        token: learner.token,
        body: { version, sco: 'once', cmi: { 'cmi.completion_status': 'incomplete' }, ...body },
      });
    expect((await commit(0, { initialize: true })).status).toBe(200);
    expect((await commit(1, { terminate: true })).status).toBe(200);

    for (const [query, width, said] of [
      ['?sco=locked', undefined, `"${long}" is disabled by the module's sequencing rules.`],
      ['?sco=locked', 390, 'is disabled'],
      ['?sco=once', 390, '"Once" has reached its limit of attempts.'],
    ] as const) {
      const page = await openPlayer(learner, moduleid, query, width, 409);
      const alert = await page.$eval('[role="alert"]', (node: PageGlobal) => ({
        text: node.textContent,
        shown: node.checkVisibility(),
      }));
      expect(alert.shown).toBe(true);
      expect(alert.text).toContain('This part of the module cannot be opened now');
      expect(alert.text).toContain(said);
      // A way on: back to the module, which delivers what may be delivered.
      expect(
        await page.$eval(`main a[href$="/ExternalTrainingModule/${moduleid}"]`, (a: PageGlobal) => a.textContent),
      ).toBeTruthy();
      // Nothing scrolls sideways; the message fits the viewport.
      const layout = await layoutOf(page, '[role="alert"]');
      expect(layout.scroll).toBeLessThanOrEqual(layout.client);
      expect(layout.right).toBeLessThanOrEqual(layout.client);
      if (width) expect(layout.client).toBeLessThanOrEqual(width);
      await page.close();
    }
  });

  it('Commit answers false with 391 when the server refuses the save (a stale version), true when it keeps it', async () => {
    const pkg = await zip({
      'imsmanifest.xml': scorm2004Manifest('Player refused', 'content/start.html'),
      'content/start.html': sco(
        'API_1484_11',
        `api.Initialize('');
api.SetValue('cmi.location', 'one');
mark('kept', api.Commit(''));
mark('ready', 1);
window.goOn = function () {
  api.SetValue('cmi.location', 'two');
  mark('commit', api.Commit(''));
  mark('error', api.GetLastError());
};`,
      ),
    });
    const { moduleid, learner } = await assignedModule(admin, pkg);
    const page = await openPlayer(learner, moduleid);
    const frame = await scoFrame(page, 'ready');
    expect(await marks(frame)).toMatchObject({ 'data-kept': 'true' });
    await playerShows(page, 'data-version', '2');
    // Another tab commits meanwhile: the runtime's next commit names a stale version (409).
    const other = await api('POST', `/external_training_modules/${moduleid}/attempts/1/commit`, {
      token: learner.token,
      body: { version: 2, sco: 'sco1', cmi: { 'cmi.location': 'elsewhere' } },
    });
    expect(other.status).toBe(200);
    await frame.evaluate(() => (globalThis as PageGlobal).goOn());
    expect(await marks(frame)).toMatchObject({ 'data-commit': 'false', 'data-error': '391' });
    expect(await page.$eval('#player-status', (status: PageGlobal) => status.textContent)).toContain(
      'could not be saved',
    );
    await page.close();
  });

  it('keeps what the SCO set when the page goes away before a commit', async () => {
    const pkg = await zip({
      'imsmanifest.xml': scorm12Manifest('Player unload', 'index.html'),
      'index.html': sco(
        'API',
        `api.LMSInitialize('');
api.LMSSetValue('cmi.core.lesson_status', 'incomplete');
api.LMSSetValue('cmi.core.lesson_location', 'slide-3');
mark('done', 1);`,
      ),
    });
    const { moduleid, learner } = await assignedModule(admin, pkg);
    const page = await openPlayer(learner, moduleid);
    await scoFrame(page, 'done');
    await playerShows(page, 'data-version', '1');
    // The SetValue data reached the page (the Initialize commit is kept before it arrives).
    await playerShows(page, 'data-pending', 'true');
    // No event reaches the test from a page that is gone (the keepalive commit is not reported to
    // it): the attempt is read until the commit shows. A loaded machine may take long; the loop ends
    // as soon as it shows.
    await page.goto('about:blank');
    await page.close();
    const deadline = Date.now() + 30_000;
    let attempts: PageGlobal;
    do {
      attempts = await api('GET', `/external_training_modules/${moduleid}/attempts`, { token: learner.token });
      if (attempts.body.attempts[0]?.version === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    expect(attempts.body.attempts[0]).toMatchObject({ version: 2, completion_status: 'incomplete' });
  });

  it("a package's script cannot read the site's session or call the API as the learner", async () => {
    const site = siteUrl();
    const pkg = await zip({
      'imsmanifest.xml': scorm12Manifest('Player hostile', 'index.html'),
      'index.html': sco(
        'API',
        `mark('cookie', document.cookie);
try { mark('top', window.top.document.cookie); } catch (e) { mark('top', 'blocked'); }
fetch(${JSON.stringify(`${site}/api/2.0/user`)}, { credentials: 'include' })
  .then(function (r) { mark('api', r.status); }, function () { mark('api', 'blocked'); })
  .then(function () {
    return fetch(${JSON.stringify(`${site}/ExternalTrainingModule/`)} + 'x', { credentials: 'include' });
  })
  .then(function (r) { mark('page', r.type); }, function () { mark('page', 'blocked'); })
  .then(function () { mark('done', 1); });`,
      ),
    });
    const { moduleid, learner } = await assignedModule(admin, pkg);
    const page = await openPlayer(learner, moduleid);
    const found = await marks(await scoFrame(page, 'done'));
    expect(found['data-cookie']).not.toContain(learner.token);
    expect(found['data-top']).toBe('blocked');
    expect(found['data-api']).toBe('blocked');
    expect(found['data-page']).toBe('blocked');
    await page.close();
  });
});
