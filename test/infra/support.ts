/** Shared by the infra tests: a fixture route table and helpers to read synthesized templates. */
import { fileURLToPath } from 'node:url';
import type { Template } from 'aws-cdk-lib/assertions';
import { type HttpMethod, type RouteGroup, route } from '../../shared/http/route.ts';
import { buildStepwiseApp, type StepwiseAppOptions } from '../../infra/cdk/stepwise-app.ts';

export const FIXTURE_HANDLER = fileURLToPath(new URL('./fixtures/handler.ts', import.meta.url));

const fixtureRoute = (method: HttpMethod, path: string) =>
  route({ method, path, auth: 'user', summary: `${method} ${path}`, handler: async () => ({}) });

/** One group per kind of access, so every grant path is exercised whatever the real table holds. */
export const FIXTURE_GROUPS: RouteGroup[] = [
  {
    name: 'things',
    access: { table: 'readwrite', mediaBucket: 'readwrite' },
    routes: [
      fixtureRoute('GET', '/things'),
      fixtureRoute('POST', '/things'),
      fixtureRoute('GET', '/things/{thingid}'),
      fixtureRoute('PATCH', '/things/{thingid}'),
      fixtureRoute('DELETE', '/things/{thingid}'),
    ],
  },
  {
    name: 'catalog-entries',
    access: { table: 'read', mediaBucket: 'read', modulesBucket: 'read' },
    routes: [fixtureRoute('GET', '/catalog'), fixtureRoute('GET', '/catalog/{entryid}')],
    embeds: ['openApi'],
  },
  {
    name: 'imports',
    access: { table: 'readwrite', modulesBucket: 'readwrite', startImport: true },
    routes: [fixtureRoute('POST', '/imports'), fixtureRoute('GET', '/imports/{importid}')],
    memoryMb: 1024,
    timeoutSeconds: 20,
  },
  {
    name: 'status',
    access: { table: 'none' },
    routes: [fixtureRoute('GET', '/status')],
  },
];

/**
 * The app as `cdk synth` builds it, minus the slow parts a test does not look at: esbuild,
 * and, unless asked for, cdk-nag and CloudFormation validation (nag.test.ts runs both).
 */
export function buildTestApp(options: Partial<StepwiseAppOptions> = {}) {
  return buildStepwiseApp({
    groups: FIXTURE_GROUPS,
    entryFor: () => FIXTURE_HANDLER,
    bundling: false,
    nag: false,
    cloudFormationValidation: false,
    ...options,
  });
}

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

export function resourcesOfType(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** The logical id of the function with this description (ProjectFunction sets one per function). */
export function functionIdByDescription(template: Template, description: string): string {
  const ids = Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))
    .filter(([, fn]) => fn.Properties.Description === description)
    .map(([id]) => id);
  if (ids.length !== 1) throw new Error(`expected one function described "${description}", found ${ids.length}`);
  return ids[0];
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every statement of every policy attached to the function's role. */
export function functionStatements(template: Template, functionId: string): Statement[] {
  const fn = resourcesOfType(template, 'AWS::Lambda::Function')[functionId];
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((role: { Ref?: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

export function actionsOf(statements: Statement[]): string[] {
  return statements.flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]));
}

/** `{"Fn::GetAtt": [id, "Arn"]}` -> id; anything else -> undefined. */
export function getAttId(value: unknown): string | undefined {
  const getAtt = (value as { 'Fn::GetAtt'?: [string, string] })?.['Fn::GetAtt'];
  return getAtt?.[1] === 'Arn' ? getAtt[0] : undefined;
}
