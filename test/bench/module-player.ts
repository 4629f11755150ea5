/**
 * Bench section: the module player (issue 37, decision 306) against its goals on the local stack:
 * a commit (`POST …/attempts/{n}/commit`, the API's) answers in ≤ 50 ms median, and the player
 * page shows the SCO (its frame's document loaded, under the runtime host) in ≤ 1 s after the
 * page opens, the package's own load aside (a one-file SCO). Commits one at a time, through the
 * gateway; the page in Debian's Chromium when installed (skipped otherwise).
 */
import { chromiumInstalled, launchChromium } from '../support/chromium.ts';
import type { RunningStack } from '../support/local-stack-process.ts';
import { scorm12Manifest, zip } from '../support/module-packages.ts';
import { adminToken, apiCaller, median, onStackOfItsOwn, runsAlone } from './alone.ts';

const COMMITS = Number(process.env.STEPWISE_BENCH_PLAYER_COMMITS ?? 200);
const PAGE_OPENS = 10;

const call = apiCaller('player');

/** A one-SCO SCORM 1.2 module, current, in a course assigned to a new learner: their token and the module. */
async function assignedModule(stack: RunningStack, admin: string) {
  const pkg = await zip({
    'imsmanifest.xml': scorm12Manifest('Player bench', 'index.html'),
    'index.html': '<!doctype html><html><head><title>SCO</title></head><body><p id="sco">SCO</p></body></html>',
  });
  const created = await call(stack, admin, 'POST', '/external_training_modules/imports', {});
  const started = await call(
    stack,
    admin,
    'POST',
    `/external_training_modules/imports/${created.importid}/start/byUpload`,
  );
  const form = new FormData();
  for (const [name, value] of Object.entries(started.upload.fields as Record<string, string>)) form.append(name, value);
  form.append('file', new Blob([pkg], { type: 'application/zip' }), 'package.zip');
  await fetch(started.upload.url, { method: 'POST', body: form });
  for (let status = 'running'; status === 'running' || status === 'created'; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await call(stack, admin, 'GET', `/external_training_modules/imports/${created.importid}/progress`))
      .status;
  }
  await call(stack, admin, 'PUT', `/external_training_modules/${created.moduleid}/current`, {
    importid: created.importid,
  });
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const email = `player.bench.${suffix}@example.com`;
  const password = `pw-${suffix}-Secret`;
  const user = await call(stack, admin, 'POST', '/users', {
    email,
    password,
    username: `Player Bench ${suffix}`,
    unique_username: `pb_${suffix}`,
  });
  const course = await call(stack, admin, 'POST', '/courses', {
    title: `Player bench ${suffix}`,
    contents: 'Bench',
    stages: [{ doctype: 'external_training_module', docid: created.moduleid }],
  });
  await call(stack, admin, 'POST', '/course_assignments', { wikiid: course.wikiid, userid: user.userid });
  const { authToken } = await call(stack, null, 'POST', '/user/token', { email, password });
  return { moduleid: created.moduleid as number, token: authToken as string };
}

export async function modulePlayerBench(stack: RunningStack, adminToken: string): Promise<void> {
  const { moduleid, token } = await assignedModule(stack, adminToken);
  const player = await call(stack, token, 'GET', `/external_training_modules/${moduleid}/player`);
  const commitPath = `/external_training_modules/${moduleid}/attempts/${player.attempt.attempt}/commit`;
  let version = player.attempt.version as number;
  const times: number[] = [];
  for (let n = 0; n < COMMITS; n++) {
    const started = performance.now();
    const attempt = await call(stack, token, 'POST', commitPath, {
      version,
      sco: 'item1',
      initialize: n === 0,
      cmi: { 'cmi.core.lesson_status': 'incomplete', 'cmi.core.lesson_location': `page-${n}`, 'cmi.suspend_data': 'x' },
    });
    times.push(performance.now() - started);
    version = attempt.version;
  }
  console.log(`\nModule player (issue 37): ${COMMITS} commits, one at a time`);
  console.log(
    `  commit median ${median(times).toFixed(1)} ms (goal ≤ 50 ms), p90 ${[...times]
      .sort((a, b) => a - b)
      [Math.floor(times.length * 0.9)]!.toFixed(1)} ms`,
  );

  if (!chromiumInstalled()) {
    console.log('  player page: skipped (no Chromium: infra/ops/install-chromium.sh)');
    return;
  }
  const site = stack.url.replace(/\/api\/2\.0$/, '');
  const { browser, close } = await launchChromium();
  try {
    const shown: number[] = [];
    for (let n = 0; n < PAGE_OPENS; n++) {
      const page = await browser.newPage();
      await page.setCookie({ name: 'stepwise_session', value: token, url: site });
      const started = performance.now();
      await page.goto(`${site}/ExternalTrainingModule/${moduleid}`, { waitUntil: 'domcontentloaded' });
      for (;;) {
        const frame = page.frames().find((candidate) => candidate.url().includes('/index.html'));
        if (frame && (await frame.$('#sco').catch(() => null))) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      shown.push(performance.now() - started);
      await page.close();
    }
    console.log(
      `  player page shows the SCO: median ${median(shown).toFixed(0)} ms over ${PAGE_OPENS} opens (goal ≤ 1,000 ms; ` +
        `the first ${shown[0]!.toFixed(0)} ms, with scorm-again not yet cached)`,
    );
  } finally {
    await close();
  }
}

if (runsAlone(import.meta)) await onStackOfItsOwn(async (stack) => modulePlayerBench(stack, await adminToken(stack)));
