/** Fixtures for the compliance API tests: teams of signers, documents, processes. */
import { expect } from 'vitest';
import { api, createUser, loginAdmin, uniqueSuffix, type TestUser, createTeam as createTeamWith } from './api.ts';

/** A private team of signers owned by `owner`; its teamid. */
export async function createTeam(owner: TestUser, members: TestUser[]): Promise<number> {
  const team = await createTeamWith({
    name: `Signers ${uniqueSuffix()}`,
    owner: owner.userid,
    members: members.map((member) => member.userid),
    privacy: 'private',
  });
  return team.teamid;
}

export async function createUsers(count: number): Promise<TestUser[]> {
  return Promise.all(Array.from({ length: count }, () => createUser()));
}

export async function createCategory(parent?: string): Promise<{ wikiid: number; title: string }> {
  const response = await api('POST', '/wikis', {
    token: await loginAdmin(),
    body: {
      namespace: 'CATEGORY',
      title: `Devices ${uniqueSuffix()}`,
      contents: 'Devices we service.',
      ...(parent ? { parent } : {}),
    },
  });
  if (response.status !== 201) throw new Error(`createCategory: ${response.status} ${response.text}`);
  return response.body;
}

/** A public guide unless `body` says otherwise. */
export async function createGuide(
  token: string,
  category: string,
  body: Record<string, unknown> = {},
): Promise<{ guideid: number; revisionid: number; title: string }> {
  const response = await api('POST', '/guides', {
    token,
    body: { category, type: 'how-to', title: `Calibrate the scale ${uniqueSuffix()}`, public: true, ...body },
  });
  if (response.status !== 201) throw new Error(`createGuide: ${response.status} ${response.text}`);
  return response.body;
}

/** Edits a guide (a new revision); returns the new revisionid. */
export async function editGuide(token: string, guide: { guideid: number; revisionid: number }): Promise<number> {
  const response = await api('PATCH', `/guides/${guide.guideid}`, {
    token,
    query: { revisionid: guide.revisionid },
    body: { summary: `Edited ${uniqueSuffix()}` },
  });
  expect(response.status).toBe(200);
  expect(response.body.revisionid).not.toBe(guide.revisionid);
  return response.body.revisionid;
}

export async function createProcess(
  stages: Array<{ teamid: number; quorum: number; name?: string }>,
  name = `SOP release ${uniqueSuffix()}`,
) {
  const response = await api('POST', '/approvals/process', { token: await loginAdmin(), body: { name, stages } });
  if (response.status !== 201) throw new Error(`createProcess: ${response.status} ${response.text}`);
  return response.body as {
    approval_processid: number;
    name: string;
    stages: Array<{ stage: number; teamid: number; quorum: number; team_name: string }>;
  };
}

export async function attach(wikiid: number, processid: number) {
  const response = await api('PUT', `/approvals/${wikiid}/${processid}`, { token: await loginAdmin() });
  if (response.status !== 200) throw new Error(`attach: ${response.status} ${response.text}`);
  return response.body;
}
