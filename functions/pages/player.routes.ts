/**
 * The module player (issue 37, decision 306): the page at a course's module link
 * (`/ExternalTrainingModule/{id}`), the commits its script keeps with the learner's session, and
 * the files it loads (its script and styles, and scorm-again for the runtime host on the content
 * origin). Access is the player API's (shared/training/module-player.ts): an assigned learner
 * plays and keeps an attempt; a module manager who is not assigned previews; anyone else gets
 * the 404 page.
 */
import { gzipSync } from 'node:zlib';
import * as z from 'zod/mini';
import { siteUrl } from '../../shared/config.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../shared/domain/errors.ts';
import { scormNavigation } from '../../shared/domain/scorm-navigation.ts';
import { Sequencer } from '../../shared/domain/scorm-sequencing.ts';
import { tableOfContents } from '../../shared/domain/scorm-structure.ts';
import { RUNTIME_HOST_PATH } from '../../shared/domain/scorm-runtime-host.ts';
import { embeddedScormRuntime } from '../../shared/http/embedded.ts';
import { rawReply, route, type RouteDef } from '../../shared/http/route.ts';
import { formCsrf } from '../../shared/http/session.ts';
import { parseOrThrow } from '../../shared/http/validation.ts';
import { cmi5Player } from '../../shared/training/cmi5-player.ts';
import {
  commitModuleAttempt,
  issueCommitCapability,
  pagePlayer,
  runtimeCaller,
  runtimeCommitPath,
} from '../../shared/training/module-player.ts';
import { commitInputSchema, playerSequencing } from '../../shared/training/scorm-attempts.ts';
import { moduleAttemptSchema } from '../../shared/views/module-attempt-views.ts';
import { html } from './html/html.ts';
import { renderPage, STYLE_HASH } from './html/layout.ts';
import { asPage, htmlReply, pageHeaders } from './html/page-reply.ts';
import { type Cmi5Page, cmi5Content } from './player/cmi5-page.ts';
import { PLAYER_SCRIPT, PLAYER_STYLES } from './player/player-assets.ts';
import { playerContent, scoHref } from './player/player-page.ts';

const idText = z.string().check(z.regex(/^[1-9]\d{0,14}$/));
/** A commit's CMI data: 2004's suspend_data alone may be 64,000 characters, interactions add more. */
const MAX_COMMIT_CHARACTERS = 1_000_000;

/** A commit's answer: the attempt as kept. */
const RESPONSE_EXAMPLE = {
  moduleid: 12,
  userid: 42,
  attempt: 1,
  importid: 31,
  standard: 'scorm12',
  version: 4,
  completion_status: 'completed',
  success_status: 'passed',
  score_raw: 86,
  score_scaled: null,
  total_time: 754.5,
  satisfied: true,
  satisfied_date: 1796000300,
  created_date: 1796000000,
  modified_date: 1796000300,
  scos: [
    {
      identifier: 'intro',
      completion_status: 'completed',
      success_status: 'passed',
      score_raw: 86,
      score_scaled: null,
      total_time: 754.5,
      exit: '',
      terminated: true,
      satisfied: true,
    },
  ],
};

let runtime: { plain: Buffer; gzipped: Buffer; etag: string } | undefined;

function loadRuntime() {
  if (!runtime) {
    const plain = embeddedScormRuntime();
    const gzipped = gzipSync(plain);
    runtime = { plain, gzipped, etag: `"${plain.length.toString(36)}-${gzipped.length.toString(36)}"` };
  }
  return runtime;
}

function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new UnauthenticatedError('Authentication required');
  return caller;
}

/**
 * The player page's CSP: the layout's style plus the player's stylesheet, the player's script
 * only, and frames of the content origin only; nothing may frame the page itself.
 */
function playerSecurityPolicy(contentOrigin: string): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH} 'self'`,
    "script-src 'self'",
    `frame-src ${contentOrigin}`,
    "connect-src 'self'",
    `img-src 'self' ${new URL(siteUrl()).origin}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function staticFile(body: string, type: string) {
  return rawReply(200, body, type, { 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' });
}

async function playerPage(
  caller: Caller | null,
  moduleid: number,
  chosen: string | undefined,
  headers: Record<string, string>,
) {
  const path = `/ExternalTrainingModule/${moduleid}${chosen ? `?sco=${encodeURIComponent(chosen)}` : ''}`;
  return asPage(caller, path, async () => {
    const reader = signedIn(caller);
    const { mode, player, record } = await pagePlayer(reader, moduleid);
    const cmi5 = await cmi5Player(reader.userid, mode, record);
    if (cmi5) return cmi5Page(caller, path, headers, { moduleid, title: player.title, mode, player: cmi5 });
    const model = player.standard;
    if ((model !== 'scorm12' && model !== 'scorm2004') || !player.content_base_url)
      throw new NotFoundError('Only SCORM modules play on this page');
    // SCORM 2004: the sequencing rules with the learner's tracking state (decision 335).
    const sequencing = await playerSequencing(
      reader,
      record,
      mode === 'learner' ? (player.attempt?.attempt ?? 0) : null,
    );
    const sequencer = sequencing ? new Sequencer(sequencing.structure, sequencing.state) : null;
    // The attempt's arrangement (selectCount, reorderChildren) orders and selects the TOC.
    const scos = sequencing
      ? tableOfContents(sequencing.structure).flatMap((item) =>
          player.scos.filter((sco) => sco.identifier === item.identifier),
        )
      : player.scos;
    const launchable = scos.filter((sco) => sco.launch);
    const states = new Map((player.attempt?.scos ?? []).map((sco) => [sco.identifier, sco]));
    // The clusters holding where the learner comes from are still in their attempt (not limited).
    const refusal = (identifier: string) => sequencer?.deliveryRefusal(identifier, sequencing?.current ?? null) ?? null;
    if (chosen && sequencer && launchable.some((sco) => sco.identifier === chosen)) {
      const refused = refusal(chosen);
      if (refused) return refusedPage(caller, path, moduleid, player.title, refused);
    }
    const deliverable = launchable.filter((sco) => refusal(sco.identifier) === null);
    const started = sequencer?.start() ?? null;
    const current =
      launchable.find((sco) => sco.identifier === chosen) ??
      deliverable.find((sco) => states.get(sco.identifier)?.entry === 'resume') ??
      deliverable.find((sco) => sco.identifier === sequencing?.delivery?.deliver) ??
      deliverable.find((sco) => sco.identifier === started) ??
      deliverable[0];
    if (!current) {
      if (launchable.length > 0 && sequencer)
        return refusedPage(caller, path, moduleid, player.title, 'Nothing in this module can be delivered now');
      throw new NotFoundError('The module has no SCO to launch');
    }
    // Where continue / previous lead and what may be chosen: control modes and sequencing rules (decisions 325, 335).
    const structure = sequencing?.structure ?? record.manifest?.scorm;
    const byId = new Map(launchable.map((sco) => [sco.identifier, sco]));
    const navigation = structure
      ? scormNavigation(structure, current.identifier, sequencing?.state)
      : { next: null, end: false, previous: null, choosable: launchable.map((sco) => sco.identifier) };
    const previous = navigation.previous ? byId.get(navigation.previous) : undefined;
    const next = navigation.next ? byId.get(navigation.next) : undefined;
    const choosable = new Set(navigation.choosable.filter((identifier) => byId.has(identifier)));
    const contentOrigin = new URL(player.content_base_url).origin;
    const state = states.get(current.identifier);
    const launch = {
      mode,
      model,
      title: current.title,
      sco: current.identifier,
      sco_url: new URL(current.launch!, player.content_base_url).href,
      cmi: state?.cmi ?? { [model === 'scorm12' ? 'cmi.core.entry' : 'cmi.entry']: 'ab-initio' },
      attempt: player.attempt?.attempt ?? 0,
      version: player.attempt?.version ?? 0,
      content_origin: contentOrigin,
      commit_url: `/ExternalTrainingModule/${moduleid}/commit`,
      csrf: formCsrf(headers).token,
      // The runtime commits synchronously with this (decision 326); a preview keeps nothing and has none.
      runtime_commit:
        mode === 'learner' && player.attempt
          ? {
              url: `${new URL(siteUrl()).origin}${runtimeCommitPath(moduleid, player.attempt.attempt)}`,
              capability: await issueCommitCapability(reader, moduleid, player.attempt.attempt),
              version: player.attempt.version,
              sco: current.identifier,
            }
          : null,
      previous_url: previous ? scoHref(moduleid, previous.identifier) : null,
      next_url: next ? scoHref(moduleid, next.identifier) : null,
      /** continue from this SCO ends the sequencing session. */
      end: navigation.end,
      /** What a choice may reach; a 2004 jump reaches any SCO. */
      sco_urls: Object.fromEntries([...choosable].map((identifier) => [identifier, scoHref(moduleid, identifier)])),
      jump_urls: Object.fromEntries(launchable.map((sco) => [sco.identifier, scoHref(moduleid, sco.identifier)])),
    };
    const body = renderPage({
      title: player.title,
      caller,
      path,
      content: playerContent({
        moduleid,
        title: player.title,
        mode,
        scos,
        current,
        previous,
        next,
        choosable,
        hostUrl: `${contentOrigin}${RUNTIME_HOST_PATH}`,
        launch,
      }),
    });
    return rawReply(200, body, 'text/html; charset=utf-8', {
      ...pageHeaders(caller),
      'content-security-policy': playerSecurityPolicy(contentOrigin),
    });
  });
}

/** A SCO the sequencing rules refuse (disabled, out of attempts): a 409 page that says why. */
function refusedPage(caller: Caller | null, path: string, moduleid: number, title: string, message: string) {
  return htmlReply(409, {
    title,
    caller,
    path,
    content: html`<h1>${title}</h1>
<div class="player-refused" role="alert">
<p><strong>This part of the module cannot be opened now.</strong></p>
<p>${message}.</p>
</div>
<p><a href="/ExternalTrainingModule/${moduleid}">Back to the module</a>: it opens what you may take next.</p>`,
  });
}

/** A cmi5 module's page (player/cmi5-page.ts): its launch forms may go to the AUs' origins (the 303's target). */
function cmi5Page(caller: Caller | null, path: string, headers: Record<string, string>, page: Omit<Cmi5Page, 'csrf'>) {
  const body = renderPage({
    title: page.title,
    caller,
    path,
    content: cmi5Content({ ...page, csrf: formCsrf(headers).token }),
  });
  const policy = [
    "default-src 'none'",
    `style-src ${STYLE_HASH} 'self'`,
    "script-src 'self'",
    `img-src 'self' ${new URL(siteUrl()).origin}`,
    `form-action 'self' ${page.player.origins.join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return rawReply(200, body, 'text/html; charset=utf-8', {
    ...pageHeaders(caller),
    'content-security-policy': policy,
  });
}

export const playerRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/ExternalTrainingModule/{id}',
    site: true,
    page: true,
    auth: 'public',
    summary: "A module's player: its SCOs, the chosen one (`sco`) running on the content origin, progress kept",
    params: z.object({ id: idText }),
    query: z.object({ sco: z.optional(z.string().check(z.maxLength(255))) }),
    queryExample: { sco: 'intro' },
    handler: ({ caller, params, query, headers }) => playerPage(caller, Number(params.id), query.sco, headers),
  }),
  route({
    method: 'POST',
    path: '/ExternalTrainingModule/{id}/commit',
    site: true,
    page: true,
    form: true,
    auth: 'user',
    summary: "The player page's commit of one SCO's CMI data (the runtime's Initialize, Commit, Terminate)",
    description:
      'A form POST of the player page with its CSRF token: `attempt` and `data`, the JSON of the commit ' +
      'route of the API (`{version, sco, cmi, initialize?, terminate?}`), kept by the same rules (decision 271).',
    params: z.object({ id: idText }),
    body: z.object({
      csrf: z.string(),
      attempt: idText,
      data: z.string().check(z.maxLength(MAX_COMMIT_CHARACTERS)),
    }),
    example: {
      csrf: '5d41402abc4b2a76b9719d911017c592ae9f1e0c8a6e6d2b7c4f3e2a1b0c9d8e',
      attempt: '1',
      data: '{"version":1,"sco":"intro","cmi":{"cmi.core.lesson_status":"incomplete"}}',
    },
    response: moduleAttemptSchema,
    responseExample: RESPONSE_EXAMPLE,
    handler: async ({ caller, params, body }) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.data);
      } catch {
        throw ValidationError.field('data', 'invalid_json', 'data must be the JSON of a commit');
      }
      const input = parseOrThrow(commitInputSchema, parsed, 'body');
      return commitModuleAttempt(caller, Number(params.id), Number(body.attempt), input);
    },
  }),
  route({
    method: 'POST',
    path: '/ExternalTrainingModule/{id}/attempts/{attemptid}/runtime_commit',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    selfAuthenticated: true,
    summary: "The SCORM runtime's own synchronous commit, authenticated by its launch's capability",
    description:
      'What the runtime host on the content origin calls for Initialize, Commit and Terminate, so the SCO learns ' +
      'at once whether its data was kept (decision 326). `Authorization: ScormCommit <capability>`: the ' +
      "capability the player page issued at launch for this learner, module and attempt (4 hours); another's, a " +
      'changed or an expired one is 401; a browser request from another origin than the content origin 403. ' +
      "Body and answers as the API's `POST /external_training_modules/{id}/attempts/{attemptid}/commit`, for " +
      'the learner the capability names (409 stale version, 422 limits or `terminated`).',
    params: z.object({ id: idText, attemptid: idText }),
    authorize: async ({ params, headers }) => {
      await runtimeCaller(Number(params.id), Number(params.attemptid), headers);
    },
    body: commitInputSchema,
    example: { version: 1, sco: 'intro', terminate: true, cmi: { 'cmi.core.lesson_status': 'completed' } },
    response: moduleAttemptSchema,
    responseExample: RESPONSE_EXAMPLE,
    handler: async ({ params, body, headers }) => {
      const moduleid = Number(params.id);
      const attempt = Number(params.attemptid);
      return commitModuleAttempt(await runtimeCaller(moduleid, attempt, headers), moduleid, attempt, body);
    },
  }),
  route({
    method: 'GET',
    path: '/player/player.js',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: "The player page's script: frames the runtime host and keeps its commits",
    handler: async () => staticFile(PLAYER_SCRIPT, 'text/javascript; charset=utf-8'),
  }),
  route({
    method: 'GET',
    path: '/player/player.css',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: "The player page's styles",
    handler: async () => staticFile(PLAYER_STYLES, 'text/css; charset=utf-8'),
  }),
  route({
    method: 'GET',
    path: '/player/scorm-again.js',
    site: true,
    auth: 'public',
    openOnPrivateSite: true,
    summary: 'The SCORM runtime (scorm-again, from its npm package) the runtime host on the content origin loads',
    handler: async ({ headers }) => {
      const { plain, gzipped, etag } = loadRuntime();
      const gzip = /\bgzip\b/.test(headers['accept-encoding'] ?? '');
      return rawReply(200, gzip ? gzipped : plain, 'text/javascript; charset=utf-8', {
        'cache-control': 'public, max-age=86400',
        etag,
        vary: 'accept-encoding',
        'x-content-type-options': 'nosniff',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
    },
  }),
];
