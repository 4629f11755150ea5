/**
 * The 20 routes of the round-trip table (test/bench/round-trips.ts): the reads every client
 * makes on every screen (who am I, users, guides, teams, wikis, lists) and the commonest small
 * write. Their minimums are in shared/db/ACCESS-PATTERNS.md, "Round trips per request".
 */
import type { apiEvent } from './api-event.ts';

export interface Fixtures {
  self: string;
  other: string;
  guide: string;
  team: string;
  wikiNamespace: string;
  wikiTitle: string;
  search: string;
}

type Request = Parameters<typeof apiEvent>[2];

export const ROUND_TRIP_ROUTES: Array<{ key: string; request(f: Fixtures): Request }> = [
  { key: 'GET /user', request: () => ({}) },
  { key: 'GET /users/{userid}', request: (f) => ({ params: { userid: f.other } }) },
  { key: 'GET /users', request: () => ({}) },
  { key: 'GET /users/search/{search}', request: (f) => ({ params: { search: f.search } }) },
  { key: 'GET /user/badges', request: () => ({}) },
  { key: 'GET /guides', request: () => ({}) },
  { key: 'GET /guides/{guideid}', request: (f) => ({ params: { guideid: f.guide } }) },
  { key: 'GET /user/guides', request: () => ({}) },
  { key: 'GET /users/{userid}/guides', request: (f) => ({ params: { userid: f.self } }) },
  { key: 'PUT /user/favorites/guides/{guideid}', request: (f) => ({ params: { guideid: f.guide } }) },
  { key: 'GET /user/favorites/guides', request: () => ({}) },
  { key: 'GET /guides/{guideid}/releases', request: (f) => ({ params: { guideid: f.guide } }) },
  { key: 'GET /teams', request: () => ({}) },
  { key: 'GET /teams/{teamid}', request: (f) => ({ params: { teamid: f.team } }) },
  { key: 'GET /teams/{teamid}/attributes', request: (f) => ({ params: { teamid: f.team } }) },
  {
    key: 'GET /wikis/{namespace}/{title}',
    request: (f) => ({ params: { namespace: f.wikiNamespace, title: f.wikiTitle } }),
  },
  { key: 'GET /tags', request: () => ({}) },
  { key: 'GET /comments', request: () => ({}) },
  { key: 'GET /work_log', request: () => ({}) },
  { key: 'GET /webhooks', request: () => ({}) },
];
