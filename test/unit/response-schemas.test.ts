/**
 * Every route declares the schema of its success body (`response`), so the OpenAPI document
 * describes every answer and the API tests check every JSON body they receive against it
 * (test/support/api.ts). Exempt: routes that answer 204 without a body (declared `status: 204`)
 * and routes that answer raw text/HTML or no body, listed below with the reason.
 */
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { checkResponseSchema, type ApiResponse } from '../support/api.ts';

/**
 * Routes whose success is not a JSON body (raw text/HTML, or no body with a 2xx other than 204): "METHOD /path" -> why.
 */
const ANSWERS_WITHOUT_JSON: Record<string, string> = {
  'GET /doc': 'the interactive reference page, HTML (rawReply)',
  'GET /doc/static': 'a readable HTML page rendered from the OpenAPI document (rawReply)',
  'GET /doc/renderer.js': "the reference page's script (rawReply)",
  'PUT /work_log/{entryid}/stepData': 'the real service answers exactly 200 with no body',
  'GET /robots.txt': 'crawler rules as text/plain (rawReply), a site path outside the API',
  'GET /assets/{asset}': 'the default avatar, image/png bytes (rawReply), a site path outside the API',
  'GET /Category/{title}': 'a 301 to the category url /c/<name>, no body; a site path outside the API',
  'GET /igi/{file}': "an image's bytes (rawReply), a site path outside the API (decision 197)",
  'GET /Document/{guid}/{filename}': 'a 302 to a presigned download of the document, no body; a site path',
  'GET /': "the site's home page, HTML (docs/pages.md)",
  'GET /Guide/{title}/{guideid}': "a guide's page, HTML, or with `.pdf` its PDF (docs/pages.md)",
  'GET /Guide/{guideid}': "a 301 to the guide's url, no body",
  'GET /Wiki/{title}': 'a wiki page, HTML (docs/pages.md)',
  'GET /c/{title}': 'a category page, HTML (docs/pages.md)',
  'GET /Info/{title}': 'an INFO page, HTML (docs/pages.md)',
  'GET /Item/{title}': 'an ITEM page, HTML (docs/pages.md)',
  'GET /Course/{title}': "a 302 to the course's page, no body",
  'GET /Courses/View/{wikiid}': "a course's page, HTML (docs/pages.md)",
  'GET /Courses/Edit/{wikiid}': "a 302 to the course's page, no body",
  'GET /User/{userid}/{name}': "a user's plain page, HTML (docs/pages.md)",
  'GET /Team/Contributions/{teamid}/{name}': "a team's plain page, HTML (docs/pages.md)",
  'GET /login': 'the login page, HTML (docs/sessions.md)',
  'POST /login': 'a 303 back to returnTo with the session cookie, or the form again, HTML',
  'GET /logout': 'the sign-out page, HTML (docs/sessions.md)',
  'POST /logout': 'a 303 to the login page, the cookie cleared; no body',
  'GET /reset_password': 'the new-password form (or the ask-for-a-link form), HTML',
  'POST /reset_password': 'a 303 to the login page, or the form again with the problem, HTML',
  'POST /reset_password/request': 'the link-sent page, HTML',
  'GET /Guide/User/remote_login': 'a 302 into the site with a session, or to the login URL; no body (decision 231)',
  'GET /Guide/User/login': "a 302 to the customer's login URL (Dozuki's redirect), no body",
  'GET /Guide/User/register': "a 302 to the customer's login URL with `register`, no body",
  'GET /Guide/User/logged_out': "a 302 to the customer's login URL with `logout`, no body",
  'GET /sso/{providerid}/login': "a 302 to the identity provider's sign-in, no body",
  'GET /sso/{providerid}/callback': 'a 303 into the site with a session, or an HTML error page',
  'POST /sso/{providerid}/acs': 'a 303 into the site with a session, or an HTML error page (SAML POST binding)',
  'GET /sso/step_up': "a 302 to the identity provider's forced re-login, no body",
  'GET /sso/sign_for': "a 302 to the identity provider's forced fresh sign-in, no body",
  'GET /sso/{providerid}/metadata': 'SAML SP metadata, XML for the identity provider to import (decision 285)',
  'GET /favicon.svg': "the site's icon, SVG",
  'GET /favicon.ico': 'a 301 to /favicon.svg, no body',
  'GET /client/{file}': "the pages' client script or stylesheet, by content hash (decision 294)",
  'GET /igi/{guid}/{filename}': "a video's or document's bytes (ranges), or a 302 to a short-lived copy (decision 312)",
  'GET /Edit/Wiki/{namespace}/{title}': 'the wiki editor page, HTML',
  'GET /Edit/Guide/{guideid}': 'the guide editor page, HTML',
  'GET /ExternalTrainingModule/{id}': 'the module player page, HTML (decision 306)',
  'GET /player/player.js': "the player page's script",
  'GET /player/player.css': "the player page's stylesheet",
  'GET /player/scorm-again.js': "scorm-again's browser build, for the runtime host on the content origin",
  'GET /Search': 'the search results page, HTML (decision 298)',
  'GET /Manage': "the learner's home page, HTML (decision 299)",
  'GET /Manage/acknowledgements/{releaseid}':
    'an acknowledgement with what changed and the sign form, HTML (decision 331)',
  'POST /Manage/acknowledgements/{releaseid}/sign':
    'a 303 back to the home page, or the page the form was on with the problem, HTML',
};

/**
 * Groups whose answers are not the API's JSON: SCIM answers application/scim+json in RFC 7643's
 * shapes (decision 228), checked field by field by test/api/scim.test.ts; the LRS answers xAPI's
 * shapes and documents as they were stored (docs/lrs.md), checked by test/api/lrs.test.ts.
 */
const GROUPS_WITHOUT_API_JSON = new Set(['scim', 'xapi']);

const routes = routeGroups.flatMap((group) =>
  group.routes.map((route) => ({ group: group.name, route, key: `${route.method} ${route.path}` })),
);

describe('response schemas', () => {
  it('every route declares its response, unless it answers 204 or raw text', () => {
    const missing = routes
      .filter(
        ({ group, route, key }) =>
          !route.response &&
          route.status !== 204 &&
          !(key in ANSWERS_WITHOUT_JSON) &&
          !GROUPS_WITHOUT_API_JSON.has(group),
      )
      .map(({ group, key }) => `${group}: ${key}`);
    expect(missing).toEqual([]);
  });

  it('a 204 route declares no response body', () => {
    const contradictory = routes.filter(({ route }) => route.status === 204 && route.response).map(({ key }) => key);
    expect(contradictory).toEqual([]);
  });

  it('the exemption list names routes that exist', () => {
    const keys = new Set(routes.map(({ key }) => key));
    expect(Object.keys(ANSWERS_WITHOUT_JSON).filter((key) => !keys.has(key))).toEqual([]);
  });
});

describe("the API tests' response check", () => {
  const base = 'http://localhost:1/api/2.0';
  const answer = (status: number, body: unknown, contentType = 'application/json; charset=utf-8'): ApiResponse => ({
    status,
    body,
    text: JSON.stringify(body),
    headers: new Headers({ 'content-type': contentType }),
  });
  const check = (path: string, response: ApiResponse) => checkResponseSchema('GET', new URL(base + path), response);

  it("throws on a 2xx JSON body that does not match the route's schema, naming the route and the field", async () => {
    await expect(
      check('/quizzes/sessions?limit=5', answer(200, { quizSessions: [{ quiz_sessionid: 'one' }] })),
    ).rejects.toThrow(/GET \/quizzes\/sessions \(200\)[\s\S]*quizSessions\.0\.quiz_sessionid/);
  });

  it('passes a matching body, error answers and non-JSON answers', async () => {
    await expect(check('/quizzes/sessions', answer(200, { quizSessions: [] }))).resolves.toBeUndefined();
    await expect(check('/quizzes/sessions', answer(404, { message: 'nope' }))).resolves.toBeUndefined();
    await expect(check('/quizzes/sessions', answer(200, '<xml/>', 'application/xml'))).resolves.toBeUndefined();
  });
});
