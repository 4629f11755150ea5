import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { routeManifest } from '../../infra/cdk/route-manifest.ts';
import { API_AREAS, MAX_STACK_RESOURCES, UNPLACED_AREA } from '../../infra/cdk/stacks/api-areas.ts';
import { API_BASE_PATH, type RouteGroup } from '../../shared/http/route.ts';
import {
  actionsOf,
  buildTestApp,
  FIXTURE_GROUPS,
  functionIdByDescription,
  functionStatements,
  getAttId,
  resourcesOfType,
} from './support.ts';

const describeGroup = (name: string) => `Stepwise ${name} endpoints`;
const FALLBACK = 'Stepwise fallback router ($default route)';

/** The fixture groups are in no area, so they share one area stack ("Other"). */
let apiTemplate: Template;
let template: Template;
let fallbackTemplate: Template;
beforeAll(() => {
  const app = buildTestApp({ context: { 'stepwise:throttleRateLimit': 25 } });
  apiTemplate = Template.fromStack(app.api);
  expect(app.apiAreas.map((stack) => stack.stackName)).toEqual([`Stepwise-Api-${UNPLACED_AREA}`]);
  template = Template.fromStack(app.apiAreas[0]);
  fallbackTemplate = Template.fromStack(app.apiFallback);
});

/** Route key -> id of the function its integration invokes, over the given stacks. */
function routeTargets(...templates: Template[]): Map<string, string> {
  const targets = new Map<string, string>();
  for (const stackTemplate of templates) {
    const integrations = resourcesOfType(stackTemplate, 'AWS::ApiGatewayV2::Integration');
    for (const route of Object.values(resourcesOfType(stackTemplate, 'AWS::ApiGatewayV2::Route'))) {
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref;
      targets.set(route.Properties.RouteKey, getAttId(integrations[integrationId].Properties.IntegrationUri)!);
    }
  }
  return targets;
}

describe('api stack: routes from the route table', () => {
  it('has exactly one route per table entry plus $default, each on its group function', () => {
    const targets = routeTargets(template);
    const manifest = routeManifest(FIXTURE_GROUPS);
    expect(targets.size).toBe(manifest.length);
    for (const entry of manifest) {
      expect(targets.get(`${entry.method} ${API_BASE_PATH}${entry.path}`), `${entry.method} ${entry.path}`).toBe(
        functionIdByDescription(template, describeGroup(entry.group)),
      );
    }
    expect([...routeTargets(fallbackTemplate)]).toEqual([
      ['$default', functionIdByDescription(fallbackTemplate, FALLBACK)],
    ]);
    // The API stack holds the API and no route or function: it depends on none of the others.
    apiTemplate.resourceCountIs('AWS::ApiGatewayV2::Route', 0);
    apiTemplate.resourceCountIs('AWS::Lambda::Function', 0);
  });

  it('does the same for the real route table, one stack per area, each under the resource ceiling', () => {
    const { api, apiAreas, apiFallback } = buildTestApp({ groups: routeGroups, entryFor: undefined });
    const areaTemplates = apiAreas.map((stack) => Template.fromStack(stack));
    const targets = routeTargets(...areaTemplates, Template.fromStack(apiFallback));
    expect(targets.size).toBe(routeManifest(routeGroups).length + 1);
    expect(targets.has('$default')).toBe(true);
    const functions = areaTemplates.reduce(
      (count, area) => count + Object.keys(resourcesOfType(area, 'AWS::Lambda::Function')).length,
      0,
    );
    expect(functions).toBe(routeGroups.length);
    // Every real group is placed in an area on purpose; none lands in the catch-all.
    expect(apiAreas.map((stack) => stack.stackName).sort()).toEqual(
      Object.keys(API_AREAS)
        .map((area) => `Stepwise-Api-${area}`)
        .sort(),
    );
    for (const stack of [api, ...apiAreas, apiFallback]) {
      const resources = Object.keys(Template.fromStack(stack).toJSON().Resources).length;
      expect(resources, stack.stackName).toBeLessThanOrEqual(MAX_STACK_RESOURCES);
    }
  });

  it('invokes each function through one integration and one API-scoped permission', () => {
    const functions = Object.keys(resourcesOfType(template, 'AWS::Lambda::Function'));
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', functions.length);
    const permissions = Object.values(resourcesOfType(template, 'AWS::Lambda::Permission'));
    expect(permissions.map((p) => getAttId(p.Properties.FunctionName)).sort()).toEqual(functions.sort());
    for (const permission of permissions) expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
  });

  it('answers CORS preflights for the API headers and every method in use', () => {
    apiTemplate.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: {
        AllowHeaders: [
          'Authorization',
          'Content-Type',
          'X-App-Id',
          'Idempotency-Key',
          'X-Experience-API-Version',
          'If-Match',
          'If-None-Match',
        ],
        AllowMethods: ['DELETE', 'GET', 'PATCH', 'POST'],
        AllowOrigins: ['*'],
        MaxAge: 3600,
        ExposeHeaders: [
          'X-Request-Id',
          'Idempotent-Replayed',
          'X-Stepwise-Current-Revisionid',
          'X-Stepwise-Ignored-Fields',
          'X-Experience-API-Version',
          'X-Experience-API-Consistent-Through',
          'ETag',
          'Last-Modified',
        ],
      },
    });
  });

  it('throttles the default stage and writes JSON access logs', () => {
    const stage = Object.values(resourcesOfType(apiTemplate, 'AWS::ApiGatewayV2::Stage'));
    expect(stage).toHaveLength(1);
    const { StageName, AutoDeploy, DefaultRouteSettings, AccessLogSettings } = stage[0].Properties;
    expect({ StageName, AutoDeploy, DefaultRouteSettings }).toEqual({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 25, ThrottlingBurstLimit: 100 },
    });
    expect(JSON.parse(AccessLogSettings.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
    expect(getAttId(AccessLogSettings.DestinationArn)).toMatch(/^AccessLogs/);
  });

  it('refuses a route table API Gateway would reject', () => {
    const clash: RouteGroup = { ...FIXTURE_GROUPS[3], name: 'clash' };
    expect(() => buildTestApp({ groups: [...FIXTURE_GROUPS, clash] })).toThrow(/GET \/status is declared by both/);
    const slow: RouteGroup = { ...FIXTURE_GROUPS[3], timeoutSeconds: 60 };
    expect(() => buildTestApp({ groups: [slow] })).toThrow(/timeoutSeconds 60/);
  });
});

describe('api stack: functions', () => {
  it('has one Node 22 arm64 function per group plus the fallback', () => {
    template.resourceCountIs('AWS::Lambda::Function', FIXTURE_GROUPS.length);
    fallbackTemplate.resourceCountIs('AWS::Lambda::Function', 1);
    for (const stackTemplate of [template, fallbackTemplate]) {
      stackTemplate.allResourcesProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO', LogGroup: {} },
      });
    }
  });

  it('names the metrics namespace after the site (its stack prefix)', () => {
    const environments = Object.values(resourcesOfType(template, 'AWS::Lambda::Function'))
      .map(
        (fn) =>
          (fn as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties.Environment
            ?.Variables ?? {},
      )
      .filter((variables) => 'TABLE_NAME' in variables);
    expect(environments.length).toBeGreaterThan(0);
    for (const variables of environments) expect(variables.POWERTOOLS_METRICS_NAMESPACE).toBe('Stepwise');
  });

  it('takes memory and timeout from the group, with defaults', () => {
    const props = (name: string) =>
      resourcesOfType(template, 'AWS::Lambda::Function')[functionIdByDescription(template, describeGroup(name))]
        .Properties;
    expect([props('imports').MemorySize, props('imports').Timeout]).toEqual([1024, 20]);
    expect([props('status').MemorySize, props('status').Timeout]).toEqual([512, 10]);
  });

  it('gives every function the site settings and resource names', () => {
    const functions = [template, fallbackTemplate].flatMap((stackTemplate) =>
      Object.values(resourcesOfType(stackTemplate, 'AWS::Lambda::Function')),
    );
    for (const fn of functions) {
      const variables = fn.Properties.Environment.Variables;
      expect(variables).toMatchObject({
        STEPWISE_RUNTIME: 'aws',
        STEPWISE_SITE_URL: 'http://127.0.0.1:3000',
      });
      // Node 22 prints no SDK support warning to switch off (decision 185).
      expect(variables.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBeUndefined();
      // Source maps are not parsed at every cold start (decision 145).
      expect(variables.NODE_OPTIONS).toBeUndefined();
      for (const name of ['TABLE_NAME', 'MEDIA_BUCKET', 'MODULES_BUCKET', 'MODULE_IMPORT_STATE_MACHINE_ARN']) {
        expect(variables[name], name).toHaveProperty('Fn::ImportValue');
      }
    }
  });

  it("alarms on every function's errors and throttles, and on API 5xx", () => {
    for (const stackTemplate of [template, fallbackTemplate]) {
      const alarms = Object.values(resourcesOfType(stackTemplate, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);
      const functions = Object.keys(resourcesOfType(stackTemplate, 'AWS::Lambda::Function'));
      for (const metric of ['Errors', 'Throttles']) {
        const watched = alarms.filter((a) => a.MetricName === metric).map((a) => a.Dimensions[0].Value.Ref);
        expect(watched.sort(), metric).toEqual(functions.sort());
      }
      for (const alarm of alarms)
        expect(alarm.AlarmActions).toEqual([{ 'Fn::ImportValue': expect.stringMatching(/AlarmTopic/) }]);
    }
    const alarms = Object.values(resourcesOfType(apiTemplate, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    expect(alarms.filter((a) => a.MetricName === '5xx' && a.Namespace === 'AWS/ApiGateway')).toHaveLength(1);
    for (const alarm of alarms)
      expect(alarm.AlarmActions).toEqual([{ 'Fn::ImportValue': expect.stringMatching(/AlarmTopic/) }]);
  });
});

describe('api stack: least privilege by intent', () => {
  it('grants no function dynamodb:Scan (no request path may scan)', () => {
    const { apiAreas, apiFallback } = buildTestApp({ groups: routeGroups, entryFor: undefined });
    for (const stack of [...apiAreas, apiFallback])
      expect(JSON.stringify(Template.fromStack(stack).toJSON()), stack.stackName).not.toContain('dynamodb:Scan');
  });

  const statementsOf = (name: string) =>
    functionStatements(template, functionIdByDescription(template, describeGroup(name)));
  const WRITES = /^(dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)|s3:(PutObject.*|DeleteObject.*|Abort.*))$/;

  it('read-only groups get read actions and no write action', () => {
    const actions = actionsOf(statementsOf('catalog-entries'));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 's3:GetObject']));
    expect(actions.filter((action) => WRITES.test(action))).toEqual([]);
  });

  it('lets every group with a write route keep Idempotency-Key records, in their partitions only', () => {
    const scoped = (statement: { Condition?: unknown }) =>
      JSON.stringify(statement.Condition ?? {}).includes('"dynamodb:LeadingKeys":["IDEMPOTENCY#*"]');
    let writers = 0;
    for (const group of FIXTURE_GROUPS) {
      const grants = statementsOf(group.name).filter(scoped);
      const writes = group.routes.some((route) => route.method !== 'GET' && !route.mintsCredentials);
      if (!writes) {
        expect(grants, group.name).toEqual([]);
        continue;
      }
      writers++;
      expect(grants, group.name).toHaveLength(1);
      expect([grants[0].Action].flat().sort()).toEqual(
        ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'].sort(),
      );
    }
    expect(writers).toBeGreaterThan(0);
  });

  it('puts item actions on the table only and Query alone on its indexes; no DescribeTable, no Scan', () => {
    for (const group of FIXTURE_GROUPS) {
      for (const statement of statementsOf(group.name)) {
        const indexes = JSON.stringify(statement.Resource).includes('/index/*');
        if (indexes) expect(statement.Action, group.name).toBe('dynamodb:Query');
      }
      const actions = actionsOf(statementsOf(group.name));
      expect(actions).not.toContain('dynamodb:DescribeTable');
      expect(actions).not.toContain('dynamodb:Scan');
      // Only where declared (conditionChecks, batchWrite): no fixture group declares them.
      expect(actions).not.toContain('dynamodb:BatchWriteItem');
      expect(actions).not.toContain('dynamodb:ConditionCheckItem');
    }
  });

  it('scopes object grants to the prefixes a group declares', () => {
    const uploader: RouteGroup = {
      ...FIXTURE_GROUPS[3],
      name: 'uploader',
      access: { table: 'none', modulesBucket: { read: ['content/'], write: ['imports/'], delete: ['content/'] } },
    };
    const { apiAreas } = buildTestApp({ groups: [uploader] });
    const scoped = Template.fromStack(apiAreas[0]);
    const statements = functionStatements(scoped, functionIdByDescription(scoped, describeGroup('uploader')));
    const resourceOf = (action: string) =>
      JSON.stringify(statements.filter((statement) => actionsOf([statement]).includes(action)).map((s) => s.Resource));
    expect(resourceOf('s3:GetObject')).toMatch(/\/content\/\*/);
    expect(resourceOf('s3:GetObject')).not.toMatch(/imports/);
    expect(resourceOf('s3:PutObject')).toMatch(/\/imports\/\*/);
    expect(resourceOf('s3:PutObject')).not.toMatch(/content/);
    const list = statements.find((statement) => actionsOf([statement]).includes('s3:ListBucket'));
    expect(list?.Condition).toEqual({ StringLike: { 's3:prefix': ['content/*'] } });
  });

  it('read-write groups can write the table and their bucket', () => {
    expect(actionsOf(statementsOf('things'))).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 's3:PutObject']),
    );
  });

  it('groups without access get nothing beyond logs and tracing', () => {
    const services = new Set(actionsOf(statementsOf('status')).map((action) => action.split(':')[0]));
    expect([...services].sort()).toEqual(['logs', 'xray']);
  });

  it('only startImport groups may start, describe and stop imports', () => {
    for (const group of FIXTURE_GROUPS) {
      const states = actionsOf(statementsOf(group.name)).filter((action) => action.startsWith('states:'));
      expect(states.sort(), group.name).toEqual(
        group.access.startImport ? ['states:DescribeExecution', 'states:StartExecution', 'states:StopExecution'] : [],
      );
    }
  });

  it('sendMail groups may send through SES as the configured sender only', () => {
    const mailer: RouteGroup = { ...FIXTURE_GROUPS[3], name: 'mailer', access: { table: 'none', sendMail: true } };
    const { apiAreas } = buildTestApp({
      groups: [mailer],
      context: { 'stepwise:mailFrom': 'training@mail.example.com' },
    });
    const mailTemplate = Template.fromStack(apiAreas[0]);
    const ses = functionStatements(mailTemplate, functionIdByDescription(mailTemplate, describeGroup('mailer'))).filter(
      (statement) => statement.Action === 'ses:SendEmail',
    );
    expect(ses).toHaveLength(1);
    const identities = JSON.stringify(ses[0].Resource);
    expect(identities).toContain(':identity/training@mail.example.com');
    expect(identities).toContain(':identity/mail.example.com');
    expect(actionsOf(statementsOf('things'))).not.toContain('ses:SendEmail');
  });

  it('the fallback may invoke exactly the group functions, and nothing else may invoke', () => {
    const invokes = [template, fallbackTemplate].flatMap((stackTemplate) =>
      Object.values(resourcesOfType(stackTemplate, 'AWS::IAM::Policy')).flatMap((policy) =>
        (policy.Properties.PolicyDocument.Statement as Array<{ Action: unknown; Resource: unknown[] }>).filter((s) =>
          [s.Action].flat().includes('lambda:InvokeFunction'),
        ),
      ),
    );
    expect(invokes).toHaveLength(1);
    const fallbackActions = actionsOf(
      functionStatements(fallbackTemplate, functionIdByDescription(fallbackTemplate, FALLBACK)),
    );
    expect(fallbackActions).toContain('lambda:InvokeFunction');
    // Cross-stack: each ARN is an import of the area stack's export of that function's Arn.
    const groupFunctions = FIXTURE_GROUPS.map((group) => functionIdByDescription(template, describeGroup(group.name)));
    expect(invokes[0].Resource.map(importedGetAttId).sort()).toEqual(groupFunctions.sort());
  });

  it("tells the fallback each group's function name in GROUP_FUNCTIONS", () => {
    const fallback = resourcesOfType(fallbackTemplate, 'AWS::Lambda::Function')[
      functionIdByDescription(fallbackTemplate, FALLBACK)
    ];
    // Fn::Join of literal JSON and imports of each function's Ref: put the logical ids in to read it back.
    const [, parts] = fallback.Properties.Environment.Variables.GROUP_FUNCTIONS['Fn::Join'];
    const json = (parts as Array<string | { 'Fn::ImportValue': string }>)
      .map((part) => (typeof part === 'string' ? part : importedRefId(part)))
      .join('');
    expect(JSON.parse(json)).toEqual(
      Object.fromEntries(
        FIXTURE_GROUPS.map((group) => [group.name, functionIdByDescription(template, describeGroup(group.name))]),
      ),
    );
  });
});

/** The export names CDK gives a cross-stack reference embed the logical id and the attribute. */
function importedGetAttId(value: unknown): string | undefined {
  const name = (value as { 'Fn::ImportValue'?: string })['Fn::ImportValue'];
  return name ? /:ExportsOutputFnGetAtt(Groups[A-Za-z0-9]+?)Arn[A-F0-9]{8}$/.exec(name)?.[1] : undefined;
}

function importedRefId(value: { 'Fn::ImportValue': string }): string | undefined {
  return /:ExportsOutputRef(Groups[A-Za-z0-9]+?)[A-F0-9]{8}$/.exec(value['Fn::ImportValue'])?.[1];
}
