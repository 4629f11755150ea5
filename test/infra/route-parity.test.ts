/**
 * The synthesized HTTP API routes exactly the route table: every (method, path) to its
 * group's function, `$default` to the fallback and nothing else. Read from the cloud assembly
 * with the same reader `npm run verify:deploy` uses (infra/verify/template.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { routeParityProblems } from '../../infra/verify/route-parity.ts';
import { readAssembly } from '../../infra/verify/template.ts';
import { buildTestApp } from './support.ts';

let routes: Map<string, string>;
beforeAll(() => {
  const outdir = mkdtempSync(join(tmpdir(), 'stepwise-parity-'));
  buildTestApp({ groups: routeGroups, entryFor: undefined, outdir }).app.synth();
  const assembly = readAssembly(outdir, {
    TABLE_NAME: 'stepwise',
    MEDIA_BUCKET: 'stepwise-media',
    MODULES_BUCKET: 'stepwise-modules',
    MODULE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
  });
  routes = new Map(
    assembly.routes.map((route) => [route.routeKey, assembly.functions.get(route.functionId)!.description]),
  );
});

describe('route parity: synthesized HTTP API vs the route table', () => {
  it('routes every table entry to its group function, $default to the fallback, and nothing else', () => {
    expect(routes.size).toBeGreaterThan(routeGroups.length);
    expect(routeParityProblems(routes, routeGroups)).toEqual([]);
  });

  it('names a route missing from the API, one on the wrong function and one the table lacks', () => {
    const broken = new Map(routes);
    const [first, second] = routeGroups[0].routes;
    broken.delete(`${first.method} /api/2.0${first.path}`);
    broken.set(`${second.method} /api/2.0${second.path}`, 'Stepwise fallback router ($default route)');
    broken.set('ANY /api/2.0/{proxy+}', 'Stepwise fallback router ($default route)');
    const problems = routeParityProblems(broken, routeGroups);
    expect(problems).toEqual([
      `${first.method} /api/2.0${first.path}: in the route table, not in the HTTP API`,
      `${second.method} /api/2.0${second.path}: invokes "Stepwise fallback router ($default route)", the ` +
        `route table says "Stepwise ${routeGroups[0].name} endpoints"`,
      'ANY /api/2.0/{proxy+}: in the HTTP API (on "Stepwise fallback router ($default route)"), not in the route table',
    ]);
  });
});
