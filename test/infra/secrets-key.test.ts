/**
 * The key sealing identity providers' secrets (decision 240): a Secrets Manager secret the
 * stateful stack generates (or the operator names), its ARN given only to the functions that
 * declare `secretsKey`, which alone may GetSecretValue on it; the value is never in the template.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { RouteGroup } from '../../shared/http/route.ts';
import { route } from '../../shared/http/route.ts';
import {
  actionsOf,
  buildTestApp,
  FIXTURE_GROUPS,
  functionIdByDescription,
  functionStatements,
  resourcesOfType,
} from './support.ts';

const GROUPS: RouteGroup[] = [
  ...FIXTURE_GROUPS,
  {
    name: 'sealers',
    access: { table: 'read', secretsKey: true },
    routes: [
      route({ method: 'GET', path: '/sealers', auth: 'user', summary: 'GET /sealers', handler: async () => ({}) }),
    ],
  },
];

function build(context: Record<string, unknown> = {}) {
  const built = buildTestApp({ groups: GROUPS, context });
  const area = built.apiAreas.find((stack) => 'sealers' in stack.groupFunctions)!;
  const other = built.apiAreas.find((stack) => 'things' in stack.groupFunctions)!;
  return { built, area: Template.fromStack(area), other: Template.fromStack(other) };
}

const secretActions = (template: Template, description: string) =>
  actionsOf(functionStatements(template, functionIdByDescription(template, description))).filter((action) =>
    action.startsWith('secretsmanager:'),
  );

describe('the secrets key', () => {
  it('is a generated Secrets Manager secret, retained, its value never in the template', () => {
    const { built } = build();
    const stateful = Template.fromStack(built.stateful);
    const secrets = Object.values(resourcesOfType(stateful, 'AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(1);
    expect(secrets[0]!.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64, ExcludePunctuation: true });
    expect(secrets[0]!.Properties.SecretString).toBeUndefined();
    stateful.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
  });

  it('reaches only the functions that declare it: the ARN in their environment, GetSecretValue on it alone', () => {
    const { area, other } = build();
    const sealer = resourcesOfType(area, 'AWS::Lambda::Function')[
      functionIdByDescription(area, 'Stepwise sealers endpoints')
    ]!;
    const variables = sealer.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables.STEPWISE_SECRETS_KEY_ARN).toBeDefined();
    expect(variables.STEPWISE_SECRETS_KEY).toBeUndefined();
    expect(secretActions(area, 'Stepwise sealers endpoints')).toEqual(['secretsmanager:GetSecretValue']);
    const statement = functionStatements(area, functionIdByDescription(area, 'Stepwise sealers endpoints')).find(
      (candidate) => actionsOf([candidate]).includes('secretsmanager:GetSecretValue'),
    )!;
    expect(JSON.stringify(statement.Resource)).toMatch(/SecretsKey/);

    for (const [template, description] of [
      [other, 'Stepwise things endpoints'],
      [other, 'Stepwise imports endpoints'],
    ] as const) {
      expect(secretActions(template, description)).toEqual([]);
      const fn = resourcesOfType(template, 'AWS::Lambda::Function')[functionIdByDescription(template, description)]!;
      expect(fn.Properties.Environment.Variables.STEPWISE_SECRETS_KEY_ARN).toBeUndefined();
    }
  });

  it('is the operator’s own secret when stepwise:secretsKeyArn names one (none generated)', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:stepwise-key-AbC123';
    const { built, area } = build({ 'stepwise:secretsKeyArn': arn });
    expect(Object.keys(resourcesOfType(Template.fromStack(built.stateful), 'AWS::SecretsManager::Secret'))).toEqual([]);
    const statement = functionStatements(area, functionIdByDescription(area, 'Stepwise sealers endpoints')).find(
      (candidate) => actionsOf([candidate]).includes('secretsmanager:GetSecretValue'),
    )!;
    expect(statement.Resource).toBe(arn);
  });

  it('refuses a secretsKeyArn that is not a secret’s full ARN', () => {
    expect(() => build({ 'stepwise:secretsKeyArn': 'stepwise-key' })).toThrow(/secretsKeyArn/);
  });
});
