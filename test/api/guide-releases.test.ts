import { describe, expect, it } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix } from '../support/api.ts';
import { createGuide, publish } from './guide-fixtures.ts';

const author = () => createUser({ privileges: ['Author'] });

async function release(token: string, body: Record<string, unknown>) {
  return api('POST', '/guides/releases', { token, body });
}

describe('guide releases', () => {
  it('numbers releases MAJOR.MINOR: major moves MAJOR on and resets MINOR, minor moves MINOR', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const versions: string[] = [];
    for (const release_type of ['minor', 'major', 'minor', 'minor', 'major']) {
      const response = await release(writer.token, {
        guideid: guide.guideid,
        release_type,
        notes: `${release_type} release`,
      });
      expect(response.status).toBe(201);
      versions.push(response.body.version);
    }
    expect(versions).toEqual(['0.1', '1.0', '1.1', '1.2', '2.0']);
    const latest = (await api('GET', `/guides/${guide.guideid}/releases`, { token: writer.token })).body.releases[0];
    expect(latest).toMatchObject({
      doctype: 'guide',
      docid: guide.guideid,
      guideid: guide.guideid,
      revisionid: guide.revisionid,
      version: '2.0',
      major: 2,
      minor: 0,
      release_type: 'major',
      type: 'major',
      title: 'Release V2.0',
      status: 'released',
      notes: 'major release',
      userid: writer.userid,
      user: { userid: writer.userid },
      langid: 'en',
    });
    expect(latest.date).toBeGreaterThan(0);
    expect(latest.release_date).toBe(latest.date);
  });

  it('releases the current revision by default, or an earlier revision of the guide; 422 for another revision', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const edited = await api('PATCH', `/guides/${guide.guideid}`, {
      token: writer.token,
      query: { revisionid: guide.revisionid },
      body: { summary: 'v2' },
    });
    const current = await release(writer.token, { guideid: guide.guideid, release_type: 'major' });
    expect(current.body.revisionid).toBe(edited.body.revisionid);
    const earlier = await release(writer.token, {
      guideid: guide.guideid,
      release_type: 'minor',
      revisionid: guide.revisionid,
    });
    expect(earlier.status).toBe(201);
    expect(earlier.body).toMatchObject({ revisionid: guide.revisionid, version: '1.1' });
    const other = await createGuide(writer.token);
    const foreign = await release(writer.token, {
      guideid: guide.guideid,
      release_type: 'minor',
      revisionid: other.revisionid,
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0].field).toBe('revisionid');
  });

  it('is for whoever may edit the guide: 403 for other Authors, 403 for Users, 404 for an unknown guide, 422 for a bad type', async () => {
    const writer = await author();
    const guide = await publish(writer.token, await createGuide(writer.token));
    expect((await release((await author()).token, { guideid: guide.guideid, release_type: 'major' })).status).toBe(403);
    expect((await release((await createUser()).token, { guideid: guide.guideid, release_type: 'major' })).status).toBe(
      403,
    );
    expect((await release(writer.token, { guideid: 999999999, release_type: 'major' })).status).toBe(404);
    expect((await release(writer.token, { guideid: guide.guideid, release_type: 'patch' })).status).toBe(422);
    expect((await release(writer.token, { guideid: guide.guideid })).body.errors[0]).toMatchObject({
      field: 'release_type',
      code: 'missing_field',
    });
  });

  it('concurrent releases of one guide never share a version', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => release(writer.token, { guideid: guide.guideid, release_type: 'minor' })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill(201));
    expect(responses.map((response) => response.body.version).sort()).toEqual([
      '0.1',
      '0.2',
      '0.3',
      '0.4',
      '0.5',
      '0.6',
    ]);
  });

  it('GET /guides/releases lists releases of readable guides, newest first, in {"releases": [...]}', async () => {
    const writer = await author();
    const shown = await publish(writer.token, await createGuide(writer.token));
    const hidden = await createGuide(writer.token);
    const a = await release(writer.token, { guideid: shown.guideid, release_type: 'major' });
    const b = await release(writer.token, { guideid: hidden.guideid, release_type: 'major' });
    const outsider = await createUser();
    const theirs = await api('GET', '/guides/releases', { token: outsider.token, query: { limit: 200 } });
    expect(theirs.status).toBe(200);
    const ids = theirs.body.releases.map((entry: { releaseid: number }) => entry.releaseid);
    expect(ids).toContain(a.body.releaseid);
    expect(ids).not.toContain(b.body.releaseid);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => y - x));
    // Other files may release guides meanwhile: the writer's two, among what the writer may read, newest first.
    const mine = await api('GET', '/guides/releases', { token: writer.token, query: { limit: 200 } });
    const own = [a.body.releaseid, b.body.releaseid];
    expect(
      mine.body.releases
        .map((entry: { releaseid: number }) => entry.releaseid)
        .filter((id: number) => own.includes(id)),
    ).toEqual([b.body.releaseid, a.body.releaseid]);
    const one = await api('GET', '/guides/releases', { token: writer.token, query: { limit: 1 } });
    expect(one.body.releases).toHaveLength(1);
    expect((await api('GET', '/guides/releases')).status).toBe(401);
    expect((await api('GET', `/guides/${hidden.guideid}/releases`, { token: outsider.token })).status).toBe(403);
    expect((await api('GET', `/guides/${hidden.guideid}/releases`)).status).toBe(401);
    expect((await api('GET', `/guides/${shown.guideid}/releases`)).status).toBe(401);
    expect(
      (await api('GET', `/guides/${shown.guideid}/releases`, { token: outsider.token })).body.releases,
    ).toHaveLength(1);
  });

  it('PATCH changes notes only; DELETE removes (204) and the version is not handed out again', async () => {
    const writer = await author();
    const guide = await createGuide(writer.token);
    const first = await release(writer.token, { guideid: guide.guideid, release_type: 'major', notes: 'draft' });
    const patched = await api('PATCH', `/guides/releases/${first.body.releaseid}`, {
      token: writer.token,
      body: { notes: 'Approved by QA' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ releaseid: first.body.releaseid, notes: 'Approved by QA', version: '1.0' });
    expect(
      (
        await api('PATCH', `/guides/releases/${first.body.releaseid}`, {
          token: (await author()).token,
          body: { notes: 'x' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await api('PATCH', '/guides/releases/999999999', { token: writer.token, body: { notes: 'x' } })).status,
    ).toBe(404);
    const deleted = await api('DELETE', `/guides/releases/${first.body.releaseid}`, { token: writer.token });
    expect(deleted.status).toBe(204);
    expect((await api('DELETE', `/guides/releases/${first.body.releaseid}`, { token: writer.token })).status).toBe(404);
    expect((await api('GET', `/guides/${guide.guideid}/releases`, { token: writer.token })).body.releases).toEqual([]);
    const next = await release(writer.token, { guideid: guide.guideid, release_type: 'major' });
    expect(next.body.version).toBe('2.0');
  });

  it('POST /guides/duplicateReleases applies a release to other guides, all or none', async () => {
    const writer = await author();
    const [source, x, y] = [
      await createGuide(writer.token),
      await createGuide(writer.token),
      await createGuide(writer.token),
    ];
    await release(writer.token, { guideid: x.guideid, release_type: 'major' });
    const original = await release(writer.token, {
      guideid: source.guideid,
      release_type: 'major',
      notes: 'Safety update',
    });
    const duplicated = await api('POST', '/guides/duplicateReleases', {
      token: writer.token,
      body: { releaseid: original.body.releaseid, guideids: [x.guideid, y.guideid] },
    });
    expect(duplicated.status).toBe(201);
    expect(
      duplicated.body.releases.map((entry: { guideid: number; version: string; notes: string; revisionid: number }) => [
        entry.guideid,
        entry.version,
        entry.notes,
        entry.revisionid,
      ]),
    ).toEqual([
      [x.guideid, '2.0', 'Safety update', x.revisionid],
      [y.guideid, '1.0', 'Safety update', y.revisionid],
    ]);
    const foreign = await createGuide((await author()).token);
    const refused = await api('POST', '/guides/duplicateReleases', {
      token: writer.token,
      body: { releaseid: original.body.releaseid, guideids: [y.guideid, foreign.guideid, 999999999] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((error: { code: string }) => error.code)).toEqual(['forbidden', 'not_found']);
    expect((await api('GET', `/guides/${y.guideid}/releases`, { token: writer.token })).body.releases).toHaveLength(1);
    expect(
      (
        await api('POST', '/guides/duplicateReleases', {
          token: writer.token,
          body: { releaseid: 999999999, guideids: [y.guideid] },
        })
      ).status,
    ).toBe(404);
  });
});

describe('wiki releases', () => {
  async function createWiki(token: string) {
    const response = await api('POST', '/wikis', {
      token,
      body: { namespace: 'WIKI', title: `Torque ${uniqueSuffix()}`, contents: 'Use the wrench.' },
    });
    if (response.status !== 201) throw new Error(`createWiki: ${response.status} ${response.text}`);
    return response.body;
  }

  it('POST /wikis/{wikiid}/releases releases the wiki revision (201); DELETE /wikis/releases/{releaseid} removes it', async () => {
    const writer = await author();
    const wiki = await createWiki(writer.token);
    const first = await api('POST', `/wikis/${wiki.wikiid}/releases`, {
      token: writer.token,
      body: { release_type: 'major', notes: 'v1' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      doctype: 'wiki',
      docid: wiki.wikiid,
      wikiid: wiki.wikiid,
      revisionid: wiki.revisionid,
      version: '1.0',
    });
    const second = await api('POST', `/wikis/${wiki.wikiid}/releases`, {
      token: writer.token,
      body: { release_type: 'minor', revisionid: wiki.revisionid },
    });
    expect(second.body.version).toBe('1.1');
    expect(
      (
        await api('POST', `/wikis/${wiki.wikiid}/releases`, {
          token: writer.token,
          body: { release_type: 'minor', revisionid: 1 },
        })
      ).status,
    ).toBe(422);
    expect(
      (await api('POST', '/wikis/999999999/releases', { token: writer.token, body: { release_type: 'major' } })).status,
    ).toBe(404);
    expect(
      (
        await api('POST', `/wikis/${wiki.wikiid}/releases`, {
          token: (await createUser()).token,
          body: { release_type: 'major' },
        })
      ).status,
    ).toBe(403);
    // A wiki release is not a guide release, and the other way round.
    expect((await api('DELETE', `/guides/releases/${first.body.releaseid}`, { token: writer.token })).status).toBe(404);
    expect((await api('DELETE', `/wikis/releases/${first.body.releaseid}`, { token: writer.token })).status).toBe(204);
    expect((await api('DELETE', `/wikis/releases/${first.body.releaseid}`, { token: writer.token })).status).toBe(404);
    const guide = await createGuide(await loginAdmin());
    const guideRelease = await release(await loginAdmin(), { guideid: guide.guideid, release_type: 'major' });
    expect(
      (await api('DELETE', `/wikis/releases/${guideRelease.body.releaseid}`, { token: writer.token })).status,
    ).toBe(404);
  });
});
