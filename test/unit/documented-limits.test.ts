/**
 * What the OpenAPI document says matches the code (issue 43): POST /user/sync answers 422 past
 * 500 actions (the body schema) and 413 past 1 MB (the handler), and documents both; GET
 * /acknowledgements has no `state` filter, declares none and does not describe one.
 */
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { MAX_JOURNAL_ACTIONS, syncBody } from '../../functions/work-log/sync.schemas.ts';
import { pendingQuery } from '../../functions/acknowledgements/acknowledgements.schemas.ts';

type Operation = { description: string; parameters?: Array<{ name: string; in: string }>; responses: object };
const document = buildOpenApiDocument(routeGroups) as { paths: Record<string, Record<string, Operation>> };

describe('documented limits and filters', () => {
  it('POST /user/sync: 422 past the actions (the schema refuses them), 413 past the bytes, both declared', () => {
    const operation = document.paths['/user/sync'].post;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['413', '422']));
    expect(operation.description).toMatch(/500 actions \(422 past it\) and 1,000,000 bytes \(413 past it\)/);
    const action = {
      client_guid: '4f1c2a9e-8d3b-4c7a-9e21-5b6d7f8a9c02',
      type: 'work_log.pause',
      device_time: 1,
      entry: 1,
    };
    expect(syncBody.safeParse({ actions: Array(MAX_JOURNAL_ACTIONS).fill(action) }).success).toBe(true);
    expect(syncBody.safeParse({ actions: Array(MAX_JOURNAL_ACTIONS + 1).fill(action) }).success).toBe(false);
  });

  it('GET /acknowledgements declares no `state` filter and describes none', () => {
    const operation = document.paths['/acknowledgements'].get;
    const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((p) => p.name);
    expect(query).not.toContain('state');
    expect(Object.keys(pendingQuery.def.shape)).not.toContain('state');
    expect(operation.description).toContain('There is no filter by state');
  });
});
