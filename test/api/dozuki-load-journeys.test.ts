/**
 * Dozuki's load-test harness against the stack, once per journey (the bench runs them under load:
 * test/bench/dozuki-load.ts): its seed through the API (login with the session cookie on the
 * answer, a category, guides, a course), then each journey's request and check. The guide page is
 * opened as the harness opens it, `/Guide/<guideid>/x` with `Cookie: PHPSESSID=<authToken>`: a 301
 * to the guide's url, then the page (not the login form); the same path without a session is sent
 * to log in, and a path naming no guide id is 404.
 */
import { describe, expect, it } from 'vitest';
import { siteUrl } from '../support/api.ts';
import { JOURNEYS, journey, seedDozukiLoad } from '../bench/dozuki-load.ts';

describe("Dozuki's load-test journeys", () => {
  it('seeds through the API and passes every journey check; /Guide/<id>/x redirects to the guide page', async () => {
    const site = siteUrl();
    const pool = await seedDozukiLoad({ site, vus: 1, rampSeconds: 0, holdSeconds: 0, guides: 2, courses: 1 });
    expect(pool.guides).toHaveLength(2);
    expect(pool.courses).toEqual([expect.any(Number)]);
    for (const kind of JOURNEYS) expect(await journey(site, pool, kind), kind).toBe(true);

    const guideid = pool.guides[0]!;
    const first = await fetch(`${site}/Guide/${guideid}/x`, {
      headers: { cookie: `PHPSESSID=${pool.token}` },
      redirect: 'manual',
    });
    expect(first.status).toBe(301);
    expect(new URL(first.headers.get('location')!).pathname).toMatch(new RegExp(`^/Guide/[^/]+/${guideid}$`));
    const page = await fetch(`${site}/Guide/${guideid}/x`, { headers: { cookie: `PHPSESSID=${pool.token}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('LoadTest Guide 0');
    // The seeded guides are drafts: without the session the reader is sent to log in.
    const anonymous = await fetch(`${site}/Guide/${guideid}/x`, { redirect: 'manual' });
    expect(anonymous.headers.get('location') ?? '').toContain('/login');
    const unknown = await fetch(`${site}/Guide/x/y`, {
      headers: { cookie: `PHPSESSID=${pool.token}` },
      redirect: 'manual',
    });
    expect([unknown.status, unknown.headers.get('location')]).toEqual([404, null]);
  });
});
