/**
 * The module player's handlers (player.routes.ts declares their routes), evaluated with the
 * attempts' logic, SCORM sequencing and the cmi5 launch when a player route is first called in
 * a container (`lazyService`, decisions 349 and 355). Access is the player API's
 * (shared/training/module-player.ts): an assigned learner plays and keeps an attempt; a module
 * manager who is not assigned previews; anyone else gets the 404 page.
 */
import { siteUrl } from '../../shared/config.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../shared/domain/errors.ts';
import { scormNavigation } from '../../shared/domain/scorm-navigation.ts';
import { Sequencer } from '../../shared/domain/scorm-sequencing.ts';
import { tableOfContents } from '../../shared/domain/scorm-structure.ts';
import { RUNTIME_HOST_PATH } from '../../shared/domain/scorm-runtime-host.ts';
import { rawReply } from '../../shared/http/route.ts';
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
import { playerSequencing } from '../../shared/training/scorm-attempts.ts';
import { type CommitInput, commitInputSchema } from '../../shared/training/scorm-commit-input.ts';
import { html } from './html/html.ts';
import { renderPage, STYLE_HASH } from './html/layout.ts';
import { asPage, htmlReply, pageHeaders } from './html/page-reply.ts';
import { type Cmi5Page, cmi5Content } from './player/cmi5-page.ts';
import { playerContent, scoHref } from './player/player-page.ts';

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

export async function playerPage(
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

/** The player page's form commit: `data` is the JSON of the API's commit body. */
export async function pageCommit(caller: Caller, moduleid: number, attempt: number, data: string) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw ValidationError.field('data', 'invalid_json', 'data must be the JSON of a commit');
  }
  return commitModuleAttempt(caller, moduleid, attempt, parseOrThrow(commitInputSchema, parsed, 'body'));
}

/** The runtime's own commit: the learner is the one its launch capability names. */
export async function authorizeRuntimeCommit(moduleid: number, attempt: number, headers: Record<string, string>) {
  await runtimeCaller(moduleid, attempt, headers);
}

export async function runtimeCommit(
  moduleid: number,
  attempt: number,
  headers: Record<string, string>,
  input: CommitInput,
) {
  return commitModuleAttempt(await runtimeCaller(moduleid, attempt, headers), moduleid, attempt, input);
}
