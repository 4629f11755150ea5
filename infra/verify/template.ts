/**
 * Reads a synthesized cloud assembly (cdk.out) the way CloudFormation would deploy it, with
 * one fake account and region: intrinsics (Ref, Fn::GetAtt, Fn::ImportValue, Fn::Join,
 * Fn::Sub, Fn::Select, Fn::Split) resolve to local names and fake ARNs. The table, the buckets
 * and the state machine resolve to the names the local stack uses, so what the template hands
 * a function is what the local engines serve.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PolicyStatement } from './iam-policy.ts';
import type { ArnContext } from './sdk-actions.ts';

export const FAKE_ARN_CONTEXT: ArnContext = { partition: 'aws', region: 'us-east-1', account: '000000000000' };

type Json = any;
interface Resource {
  Type: string;
  Properties?: Record<string, Json>;
  Metadata?: Record<string, Json>;
}
interface StackTemplate {
  name: string;
  resources: Record<string, Resource>;
  outputs: Record<string, { Value: Json; Export?: { Name: Json } }>;
}

/** Local names of the resources the functions find through these variables. */
export interface LocalResourceNames {
  TABLE_NAME: string;
  MEDIA_BUCKET: string;
  MODULES_BUCKET: string;
  MODULE_IMPORT_STATE_MACHINE_ARN: string;
  /** Optional: left out, the site transfer state machines keep generated names. */
  SITE_EXPORT_STATE_MACHINE_ARN?: string;
  SITE_IMPORT_STATE_MACHINE_ARN?: string;
}

/** The names `npm start` gives them (infra/local/environment.ts): for hosts that only load bundles. */
export const LOCAL_RESOURCE_NAMES: LocalResourceNames = {
  TABLE_NAME: 'stepwise',
  MEDIA_BUCKET: 'stepwise-media',
  MODULES_BUCKET: 'stepwise-modules',
  MODULE_IMPORT_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:stepwise-module-import',
};

export interface SynthesizedFunction {
  /** `<stack>/<logical id>`: unique in the assembly. */
  id: string;
  stack: string;
  logicalId: string;
  /** What the template names it (its Ref); fake ARNs use this. */
  functionName: string;
  arn: string;
  description: string;
  /** Absolute path of the cdk.out asset folder holding the bundle; empty when not bundled. */
  assetDir: string;
  /** `index.handler` -> file `index`, export `handler`. */
  handlerFile: string;
  handlerExport: string;
  /** Absolute path of the bundle Lambda loads for `handlerFile` (index.js, .mjs or .cjs); empty when not bundled. */
  bundleFile: string;
  environment: Record<string, string>;
  /** Every statement of every policy attached to the function's role. */
  statements: PolicyStatement[];
}

export interface SynthesizedRoute {
  routeKey: string;
  /** The function the route's integration invokes. */
  functionId: string;
}

export interface SynthesizedStateMachine {
  arn: string;
  definition: Record<string, unknown>;
  substitutions: Record<string, string>;
  statements: PolicyStatement[];
}

export interface SynthesizedAssembly {
  functions: Map<string, SynthesizedFunction>;
  routes: SynthesizedRoute[];
  /** The module import state machine. */
  stateMachine: SynthesizedStateMachine;
  /** Every other one (the site export and import jobs). */
  otherStateMachines: SynthesizedStateMachine[];
  objectCreatedNotifications: Array<{ bucket: string; prefix: string; functionId: string }>;
  /** Statements of bucket policies, by bucket name (resource policies: their Denies apply to everyone). */
  bucketPolicies: Map<string, PolicyStatement[]>;
  /** Stream event source mappings (the table's stream feeding a function). */
  streamSubscriptions: StreamSubscription[];
  /** Functions an EventBridge schedule rule invokes. */
  schedules: Array<{ functionId: string; expression: string }>;
  eventBuses: Array<{ name: string; arn: string }>;
  /** The ARNs of the Secrets Manager secrets the template makes (the secrets key). */
  secrets: string[];
}

export interface StreamSubscription {
  functionId: string;
  streamArn: string;
  batchSize: number;
  /** Lambda filter patterns (JSON text), any of which a record must match. */
  filterPatterns: string[];
  maximumRetryAttempts: number;
  /** Where a batch goes after its last retry (an SQS queue ARN). */
  onFailureArn?: string;
  reportsItemFailures: boolean;
}

export function readAssembly(cdkOut: string, local: LocalResourceNames): SynthesizedAssembly {
  const manifest = JSON.parse(readFileSync(join(cdkOut, 'manifest.json'), 'utf8'));
  const stacks = new Map<string, StackTemplate>();
  for (const [name, artifact] of Object.entries<Json>(manifest.artifacts)) {
    if (artifact.type !== 'aws:cloudformation:stack') continue;
    const template = JSON.parse(readFileSync(join(cdkOut, artifact.properties.templateFile), 'utf8'));
    stacks.set(name, { name, resources: template.Resources ?? {}, outputs: template.Outputs ?? {} });
  }
  const resolver = new Resolver(stacks, local);
  resolver.adoptLocalNames();

  const functions = new Map<string, SynthesizedFunction>();
  const policiesByRole = new Map<string, PolicyStatement[]>();
  for (const stack of stacks.values()) {
    for (const [logicalId, resource] of Object.entries(stack.resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const statements = resolver.resolve(
        stack.name,
        resource.Properties!.PolicyDocument.Statement,
      ) as PolicyStatement[];
      for (const role of resource.Properties!.Roles as Json[]) {
        const key = `${stack.name}/${role.Ref}`;
        policiesByRole.set(key, [...(policiesByRole.get(key) ?? []), ...statements]);
      }
      void logicalId;
    }
  }
  for (const stack of stacks.values()) {
    for (const [logicalId, resource] of Object.entries(stack.resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const properties = resource.Properties!;
      // CDK's own helpers (bucket notifications) have inline code, not one of our bundles.
      if (properties.Code?.ZipFile !== undefined) continue;
      // Absent when synthesized without bundling (the infra tests): routes and roles still read.
      const assetPath: string | undefined = resource.Metadata?.['aws:asset:path'];
      const [handlerFile, handlerExport] = splitHandler(properties.Handler);
      const roleId = properties.Role['Fn::GetAtt'][0];
      const functionName = resolver.physicalName(stack.name, logicalId);
      functions.set(`${stack.name}/${logicalId}`, {
        id: `${stack.name}/${logicalId}`,
        stack: stack.name,
        logicalId,
        functionName,
        arn: resolver.arnOf(stack.name, logicalId),
        description: properties.Description ?? logicalId,
        assetDir: assetPath ? join(cdkOut, assetPath) : '',
        handlerFile,
        handlerExport,
        bundleFile: assetPath ? bundleFileOf(join(cdkOut, assetPath), handlerFile) : '',
        environment: resolver.resolve(stack.name, properties.Environment?.Variables ?? {}),
        statements: policiesByRole.get(`${stack.name}/${roleId}`) ?? [],
      });
    }
  }

  const routes: SynthesizedRoute[] = [];
  const stateMachines: SynthesizedStateMachine[] = [];
  const objectCreatedNotifications: SynthesizedAssembly['objectCreatedNotifications'] = [];
  const bucketPolicies = new Map<string, PolicyStatement[]>();
  const streamSubscriptions: StreamSubscription[] = [];
  const schedules: SynthesizedAssembly['schedules'] = [];
  const eventBuses: SynthesizedAssembly['eventBuses'] = [];
  const secrets: string[] = [];
  const functionIdByName = (name: string) => [...functions.values()].find((fn) => fn.functionName === name)?.id;
  const functionIdByArn = (arn: string) => [...functions.values()].find((fn) => fn.arn === arn)?.id;
  for (const stack of stacks.values()) {
    for (const [logicalId, resource] of Object.entries(stack.resources)) {
      const properties = resource.Properties ?? {};
      if (resource.Type === 'AWS::ApiGatewayV2::Route') {
        const integrationId = /^integrations\/(.+)$/.exec(resolver.resolve(stack.name, properties.Target))?.[1];
        const integration = integrationId ? stack.resources[integrationId] : undefined;
        const target =
          integration && functionIdByArn(resolver.resolve(stack.name, integration.Properties!.IntegrationUri));
        if (!target)
          throw new Error(`route ${properties.RouteKey}: its integration invokes none of the bundled functions`);
        routes.push({ routeKey: properties.RouteKey, functionId: target });
      }
      if (resource.Type === 'AWS::StepFunctions::StateMachine') {
        const roleId = properties.RoleArn['Fn::GetAtt'][0];
        stateMachines.push({
          arn: resolver.physicalName(stack.name, logicalId),
          definition: JSON.parse(resolver.resolve(stack.name, properties.DefinitionString)),
          substitutions: resolver.resolve(stack.name, properties.DefinitionSubstitutions ?? {}),
          statements: policiesByRole.get(`${stack.name}/${roleId}`) ?? [],
        });
      }
      if (resource.Type === 'Custom::S3BucketNotifications') {
        const bucket = resolver.resolve(stack.name, properties.BucketName);
        for (const configuration of properties.NotificationConfiguration?.LambdaFunctionConfigurations ?? []) {
          if (!configuration.Events.includes('s3:ObjectCreated:*')) continue;
          const rules: Json[] = configuration.Filter?.Key?.FilterRules ?? [];
          const functionId = functionIdByArn(resolver.resolve(stack.name, configuration.LambdaFunctionArn));
          if (!functionId) throw new Error(`S3 notification on ${bucket}: target is none of the bundled functions`);
          objectCreatedNotifications.push({
            bucket,
            prefix: rules.find((rule) => rule.Name === 'prefix')?.Value ?? '',
            functionId,
          });
        }
      }
      if (resource.Type === 'AWS::Lambda::EventSourceMapping') {
        const functionId = functionIdByName(resolver.resolve(stack.name, properties.FunctionName));
        if (!functionId) throw new Error(`event source mapping ${logicalId}: target is none of the bundled functions`);
        streamSubscriptions.push({
          functionId,
          streamArn: resolver.resolve(stack.name, properties.EventSourceArn),
          batchSize: properties.BatchSize ?? 100,
          filterPatterns: (properties.FilterCriteria?.Filters ?? []).map((filter: Json) => filter.Pattern),
          // CloudFormation's default is -1: retry until the record expires.
          maximumRetryAttempts: properties.MaximumRetryAttempts ?? -1,
          onFailureArn: resolver.resolve(stack.name, properties.DestinationConfig?.OnFailure?.Destination),
          reportsItemFailures: (properties.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
        });
      }
      if (resource.Type === 'AWS::SecretsManager::Secret') secrets.push(resolver.physicalName(stack.name, logicalId));
      if (resource.Type === 'AWS::Events::EventBus')
        eventBuses.push({
          name: resolver.physicalName(stack.name, logicalId),
          arn: resolver.arnOf(stack.name, logicalId),
        });
      if (resource.Type === 'AWS::Events::Rule' && properties.ScheduleExpression) {
        for (const target of properties.Targets ?? []) {
          const functionId = functionIdByArn(resolver.resolve(stack.name, target.Arn));
          if (functionId) schedules.push({ functionId, expression: properties.ScheduleExpression });
        }
      }
      if (resource.Type === 'AWS::S3::BucketPolicy') {
        const bucket = resolver.resolve(stack.name, properties.Bucket);
        bucketPolicies.set(bucket, resolver.resolve(stack.name, properties.PolicyDocument.Statement));
      }
      void logicalId;
    }
  }
  const moduleImport = stateMachines.filter((machine) => machine.arn === local.MODULE_IMPORT_STATE_MACHINE_ARN);
  if (moduleImport.length !== 1)
    throw new Error(`expected one module import state machine in the assembly, found ${moduleImport.length}`);
  const otherStateMachines = stateMachines.filter((machine) => machine !== moduleImport[0]);
  return {
    functions,
    routes,
    stateMachine: moduleImport[0]!,
    otherStateMachines,
    objectCreatedNotifications,
    bucketPolicies,
    streamSubscriptions,
    schedules,
    eventBuses,
    secrets,
  };
}

/** The Node.js runtime's own lookup order for a handler's file. */
function bundleFileOf(assetDir: string, handlerFile: string): string {
  const candidates = ['.js', '.mjs', '.cjs'].map((extension) => join(assetDir, `${handlerFile}${extension}`));
  return candidates.find((file) => existsSync(file)) ?? candidates[0];
}

function splitHandler(handler: string): [string, string] {
  const dot = handler.lastIndexOf('.');
  return [handler.slice(0, dot), handler.slice(dot + 1)];
}

/** CloudFormation's intrinsic functions, over the whole assembly, with fake physical names. */
class Resolver {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly stacks: Map<string, StackTemplate>,
    private readonly local: LocalResourceNames,
  ) {}

  /** The resources the functions reach through TABLE_NAME etc. take the local stack's names. */
  adoptLocalNames(): void {
    for (const stack of this.stacks.values()) {
      for (const resource of Object.values(stack.resources)) {
        if (resource.Type !== 'AWS::Lambda::Function') continue;
        const variables = resource.Properties?.Environment?.Variables ?? {};
        for (const name of Object.keys(this.local) as Array<keyof LocalResourceNames>) {
          const target = variables[name] !== undefined ? this.refTarget(stack.name, variables[name]) : undefined;
          const localName = this.local[name];
          if (target && localName) this.names.set(target, localName);
        }
      }
    }
  }

  /** The `<stack>/<logical id>` a value (Ref or an import of one) points at. */
  private refTarget(stackName: string, value: Json): string | undefined {
    if (value?.Ref) return `${stackName}/${value.Ref}`;
    if (value?.['Fn::ImportValue']) {
      const [exportingStack, output] = this.findExport(this.resolve(stackName, value['Fn::ImportValue']));
      return this.refTarget(exportingStack, output.Value);
    }
    return undefined;
  }

  private findExport(name: string): [string, { Value: Json }] {
    for (const stack of this.stacks.values()) {
      for (const output of Object.values(stack.outputs)) {
        if (output.Export && this.resolve(stack.name, output.Export.Name) === name) return [stack.name, output];
      }
    }
    throw new Error(`Fn::ImportValue ${name}: no stack exports it`);
  }

  private resource(stackName: string, logicalId: string): Resource {
    const resource = this.stacks.get(stackName)?.resources[logicalId];
    if (!resource) throw new Error(`${stackName}: no resource ${logicalId}`);
    return resource;
  }

  /** What `Ref` returns: the physical name (an ARN for state machines, as CloudFormation does). */
  physicalName(stackName: string, logicalId: string): string {
    const known = this.names.get(`${stackName}/${logicalId}`);
    if (known) return known;
    const { Type } = this.resource(stackName, logicalId);
    // An integration's id is only read back by its routes' `integrations/<id>` target.
    if (Type === 'AWS::ApiGatewayV2::Integration') return logicalId;
    const generated = `${stackName}-${logicalId}`;
    if (Type === 'AWS::StepFunctions::StateMachine') return this.arn('states', `stateMachine:${generated}`);
    if (Type === 'AWS::S3::Bucket') return generated.toLowerCase();
    // A secret's Ref is its ARN, which ends in six random characters.
    if (Type === 'AWS::SecretsManager::Secret') return this.arn('secretsmanager', `secret:${generated}-AbC123`);
    return generated;
  }

  arnOf(stackName: string, logicalId: string): string {
    const { Type } = this.resource(stackName, logicalId);
    const name = this.physicalName(stackName, logicalId);
    const { partition, region, account } = FAKE_ARN_CONTEXT;
    switch (Type) {
      case 'AWS::DynamoDB::GlobalTable':
      case 'AWS::DynamoDB::Table':
        return this.arn('dynamodb', `table/${name}`);
      case 'AWS::S3::Bucket':
        return `arn:${partition}:s3:::${name}`;
      case 'AWS::Lambda::Function':
        return this.arn('lambda', `function:${name}`);
      case 'AWS::Logs::LogGroup':
        return this.arn('logs', `log-group:${name}:*`);
      case 'AWS::IAM::Role':
        return `arn:${partition}:iam::${account}:role/${name}`;
      case 'AWS::SNS::Topic':
        return `arn:${partition}:sns:${region}:${account}:${name}`;
      case 'AWS::StepFunctions::StateMachine':
        return name;
      case 'AWS::Events::EventBus':
        return this.arn('events', `event-bus/${name}`);
      case 'AWS::Events::Rule':
        return this.arn('events', `rule/${name}`);
      case 'AWS::SQS::Queue':
        return `arn:${partition}:sqs:${region}:${account}:${name}`;
      default:
        throw new Error(`Fn::GetAtt ${logicalId}.Arn: no fake ARN for ${Type}`);
    }
  }

  private arn(service: string, resource: string): string {
    const { partition, region, account } = FAKE_ARN_CONTEXT;
    return `arn:${partition}:${service}:${region}:${account}:${resource}`;
  }

  private pseudo(name: string): string | undefined {
    const { partition, region, account } = FAKE_ARN_CONTEXT;
    return {
      'AWS::Partition': partition,
      'AWS::Region': region,
      'AWS::AccountId': account,
      'AWS::URLSuffix': 'amazonaws.com',
    }[name];
  }

  resolve(stackName: string, value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.resolve(stackName, item));
    if (!value || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [key] = keys;
      const argument = value[key];
      switch (key) {
        case 'Ref':
          return this.pseudo(argument) ?? this.physicalName(stackName, argument);
        case 'Fn::GetAtt': {
          const [logicalId, attribute] = Array.isArray(argument) ? argument : String(argument).split('.');
          if (attribute === 'Arn') return this.arnOf(stackName, logicalId);
          if (attribute === 'Name') return this.physicalName(stackName, logicalId);
          // The table's stream (the events deliverer's source): a fixed fake label.
          if (attribute === 'StreamArn') return `${this.arnOf(stackName, logicalId)}/stream/local`;
          // A CloudFront distribution's domain (the content origin, decision 318): a fixed fake name;
          // the functions' content URL is the local content server's (bundled-functions.ts).
          if (attribute === 'DomainName') return `${logicalId.toLowerCase()}.cloudfront.net`;
          throw new Error(`Fn::GetAtt ${logicalId}.${attribute} is not supported`);
        }
        case 'Fn::ImportValue': {
          const [exportingStack, output] = this.findExport(this.resolve(stackName, argument));
          return this.resolve(exportingStack, output.Value);
        }
        case 'Fn::Join': {
          const [separator, parts] = argument;
          return (this.resolve(stackName, parts) as string[]).join(separator);
        }
        case 'Fn::Select': {
          const [index, items] = argument;
          return (this.resolve(stackName, items) as Json[])[Number(index)];
        }
        case 'Fn::Split': {
          const [separator, text] = argument;
          return String(this.resolve(stackName, text)).split(separator);
        }
        case 'Fn::Sub': {
          const [template, variables] = Array.isArray(argument) ? argument : [argument, {}];
          const resolvedVariables = this.resolve(stackName, variables) as Record<string, string>;
          return String(template).replace(/\$\{([^}!]+)\}/g, (_text, name: string) => {
            if (resolvedVariables[name] !== undefined) return resolvedVariables[name];
            const pseudo = this.pseudo(name);
            if (pseudo) return pseudo;
            const [logicalId, attribute] = name.split('.');
            return attribute
              ? this.resolve(stackName, { 'Fn::GetAtt': [logicalId, attribute] })
              : this.physicalName(stackName, logicalId);
          });
        }
      }
      if (key.startsWith('Fn::')) throw new Error(`${key} is not supported by the template resolver`);
    }
    return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, this.resolve(stackName, child)]));
  }
}
