/**
 * Every cdk-nag (AwsSolutions) finding this app accepts, each with the reason it is accepted.
 * Nothing else in infra/ acknowledges a rule, so this file is the whole list to review.
 *
 * Two kinds:
 * - fixed findings on a known construct (a rule that does not fit this design);
 * - IAM5 wildcard findings of the grants. cdk-nag v3 matches an acknowledgement by exact
 *   finding id, and an IAM5 id embeds the resolved resource, e.g.
 *   `AwsSolutions-IAM5[Resource::Stepwise-Stateful:ExportsOutputFnGetAttMediaBucket...Arn.../*]`,
 *   which only exists once CDK has wired the cross-stack references. So these are matched by
 *   shape (WILDCARD_GRANTS) in a construct validation, which runs after that wiring and before
 *   the nag plugin. A wildcard that matches no shape, or a statement that mixes in other
 *   actions, is not acknowledged and fails the check.
 */
import { CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { CfnPolicy, CfnRole } from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { IConstruct } from 'constructs';
import { ProjectFunction } from './constructs/project-function.ts';
import type { ApiAreaStack, ApiFallbackStack, ApiStack } from './stacks/api-stack.ts';
import type { SiteStack } from './stacks/site-stack.ts';
import type { ContentStack } from './stacks/content-stack.ts';
import type { PipelineStack } from './stacks/pipeline-stack.ts';
import type { StatefulStack } from './stacks/stateful-stack.ts';
import type { EventsStack } from './stacks/events-stack.ts';
import type { MonitoringStack } from './stacks/monitoring-stack.ts';

interface WildcardGrant {
  /** The finding, as cdk-nag prints it inside `AwsSolutions-IAM5[...]`. */
  finding: RegExp;
  /** Every action of a statement with this finding must match a shape, or it is not acknowledged. */
  actions: RegExp;
  reason: string;
}

export const WILDCARD_GRANTS: readonly WildcardGrant[] = [
  {
    finding: /^Resource::\*$/,
    actions: /^xray:(PutTraceSegments|PutTelemetryRecords|GetSamplingRules|GetSamplingTargets)$/,
    reason:
      'Active X-Ray tracing: these X-Ray actions support no resource-level permissions, so AWS requires Resource "*".',
  },
  {
    finding: /^Resource::\*$/,
    actions: new RegExp(
      '^logs:(CreateLogDelivery|GetLogDelivery|UpdateLogDelivery|DeleteLogDelivery|ListLogDeliveries|' +
        'PutResourcePolicy|DescribeResourcePolicies|DescribeLogGroups)$',
    ),
    reason:
      'Step Functions execution logging: the CloudWatch Logs delivery actions support no resource-level permissions.',
  },
  {
    finding: /^Resource::.+\/index\/\*$/,
    actions: /^dynamodb:[A-Za-z]+$/,
    reason:
      "Queries on the Stepwise table's own global secondary indexes (gsi1, gsi2); the pattern is scoped to " +
      "this one table's ARN.",
  },
  {
    finding: /^Resource::<CanaryArtifacts[A-Za-z0-9]+\.Arn>\/\*$/,
    actions: /^s3:PutObject$/,
    reason: "The health canary writes each run's artifacts (its log, the answer) as new objects of its own bucket.",
  },
  {
    finding: /^Resource::\*$/,
    actions: /^(s3:ListAllMyBuckets|cloudwatch:PutMetricData)$/,
    reason:
      "The health canary's role as CDK makes it: s3:ListAllMyBuckets and cloudwatch:PutMetricData support no " +
      'resource-level permissions; PutMetricData is limited to the CloudWatchSynthetics namespace by a condition.',
  },
  {
    finding: /^Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:\/aws\/lambda\/cwsyn-\*$/,
    actions: /^logs:(CreateLogGroup|CreateLogStream|PutLogEvents)$/,
    reason:
      "The health canary's own log groups: Synthetics names them /aws/lambda/cwsyn-<canary>-<id>, the id " +
      'unknown at synth.',
  },
  {
    finding: /^Resource::.+\/\*$/,
    actions: /^s3:[A-Za-z*]+$/,
    reason:
      'Objects of one Stepwise bucket (media or modules), granted read or read-write by the route table; ' +
      'object keys are per-upload, so no narrower prefix exists.',
  },
  {
    finding: /^Action::s3:(GetObject|GetBucket|List|DeleteObject|Abort)\*$/,
    actions: /^s3:[A-Za-z*]+$/,
    reason: "CDK's bucket grantRead/grantReadWrite action groups, scoped to one Stepwise bucket and its objects.",
  },
  {
    finding: /^Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:.+:\*$/,
    actions: /^states:(DescribeExecution|StopExecution)$/,
    reason: 'Executions of the module import state machine only; execution names are generated per import.',
  },
  {
    finding: /^Resource::\*$/,
    actions: /^dynamodb:ListStreams$/,
    reason:
      'The event deliverer reads the table stream: dynamodb:ListStreams supports no resource-level ' +
      "permissions (the stream read itself is scoped to the table's stream ARN).",
  },
];

const REASONS = {
  siteGeoRestriction:
    'A training site serves its own staff and contractors wherever they work; where they may sign in from is ' +
    "decided by the site's accounts and private-site setting, not by the viewer's country.",
  siteFirewall:
    'The API behind the distribution throttles per stage and authenticates every non-public route itself; a ' +
    'WAF web ACL is an operator choice with its own cost, attached to the distribution when a site wants one.',
  siteAccessLogs:
    "Every request the distribution forwards is logged by the HTTP API's JSON access logs (the origin); " +
    "CloudFront's standard logs need an ACL-enabled bucket, which the access-log bucket refuses by design.",
  siteDefaultCertificate:
    "Without stepwise:siteCertificateArn the site answers at CloudFront's own name, whose default " +
    'certificate fixes the viewer TLS policy; setting a domain and certificate raises it to TLS 1.2.',
  deadLetterQueue:
    "This queue is itself the dead-letter queue of the event deliverer's stream; a dead-letter queue of a " +
    'dead-letter queue would only move the same records again.',
  searchDeadLetterQueue:
    "This queue is itself the dead-letter queue of the search indexer's stream; a dead-letter queue of a " +
    'dead-letter queue would only move the same records again.',
  secretsKeyRotation:
    "The secrets key seals identity providers' secrets stored in the table: a new key is only usable once " +
    "every sealed value is re-sealed under it, which the operator's `npm run secrets:rotate` does before it " +
    'puts the new value (docs/operations.md, decision 240). A rotation Lambda that only changed the value would ' +
    'lock every provider out.',
  contentFirewall:
    'The content origin answers GET and HEAD of package files only, each behind a launch token checked by a ' +
    'CloudFront Function before any origin request; a WAF web ACL is an operator choice with its own cost.',
  contentAccessLogs:
    'Content requests carry no identity (the token is a capability issued by a logged player launch); ' +
    "CloudFront's standard logs need an ACL-enabled bucket, which the access-log bucket refuses by design.",
  contentDefaultCertificate:
    "The content origin answers at CloudFront's own name (another site than the site's on purpose, " +
    'decision 270), whose default certificate fixes the viewer TLS policy.',
  contentKeyRotation:
    'The content signing key is copied to the edge KeyValueStore by the deploy command the content stack ' +
    'outputs (decision 318); a rotation Lambda changing only the secret would make every launch answer 403 ' +
    'until that copy. Rotating is: a new value, the copy, and a new deploy of the signing functions.',
  accessLogBucketLogs:
    'This bucket is the server access log target of the data buckets; logging it into itself would loop.',
  runtime:
    'Node.js 22 on purpose: the local stack, the tests and CI run the same Node 22 (decision 185) and esbuild ' +
    'targets node22; the runtime moves to 24 together with the local toolchain.',
  bucketNotificationsHandler:
    "CDK's own BucketNotificationsHandler, the custom resource that puts the S3 event notification of the " +
    'media processor on the media bucket: CDK gives its role the AWSLambdaBasicExecutionRole managed policy ' +
    "and offers no way to replace it; the role only writes that handler's logs.",
  canaryArtifactsLogs:
    "The health canary's artifacts bucket holds only its runs' logs, expired after 30 days. Its access logs " +
    "would go to the stateful stack's log bucket, whose policy would then name this stack: a dependency cycle.",
  apiAuthorization:
    "Authorization happens in the functions: the shared auth middleware resolves the spec's " +
    '"Authorization: api <token>" header against hashed tokens in DynamoDB and applies each route\'s auth ' +
    'level. Some routes are public by the spec.',
};

export interface StepwiseStacks {
  stateful: StatefulStack;
  pipeline: PipelineStack;
  api: ApiStack;
  apiAreas: ApiAreaStack[];
  apiFallback: ApiFallbackStack;
  /** Every endpoint group's function, across the area stacks. */
  groupFunctions: Record<string, ProjectFunction>;
  site: SiteStack;
  content: ContentStack;
  events: EventsStack;
  monitoring: MonitoringStack;
}

export function acknowledgeNagFindings({
  stateful,
  pipeline,
  api,
  apiAreas,
  apiFallback,
  site,
  content,
  events,
  monitoring,
}: StepwiseStacks): void {
  Validations.of(events.deadLetterQueue).acknowledge({ id: 'AwsSolutions-SQS3', reason: REASONS.deadLetterQueue });
  if (events.searchIndexer)
    Validations.of(events.searchIndexer.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: REASONS.searchDeadLetterQueue,
    });
  Validations.of(stateful.accessLogBucket).acknowledge({ id: 'AwsSolutions-S1', reason: REASONS.accessLogBucketLogs });
  Validations.of(stateful.secretsKey).acknowledge({ id: 'AwsSolutions-SMG4', reason: REASONS.secretsKeyRotation });
  Validations.of(monitoring.artifactsBucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason: REASONS.canaryArtifactsLogs,
  });
  for (const routes of [api.httpApi, ...apiAreas.map((area) => area.routes), apiFallback.defaultRoute]) {
    Validations.of(routes).acknowledge({ id: 'AwsSolutions-APIG4', reason: REASONS.apiAuthorization });
  }
  for (const child of pipeline.node.children) {
    if (child.node.id.startsWith('BucketNotificationsHandler')) {
      Validations.of(child).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: REASONS.bucketNotificationsHandler,
      });
    }
  }
  acknowledgeSiteEntry(site);
  acknowledgeContentOrigin(content);
  for (const stack of [stateful, pipeline, api, ...apiAreas, apiFallback, site, content, events, monitoring]) {
    for (const construct of stack.node.findAll()) {
      if (construct instanceof ProjectFunction) {
        Validations.of(construct).acknowledge({ id: 'AwsSolutions-L1', reason: REASONS.runtime });
      }
    }
    acknowledgeWildcardGrantsWhenResolved(stack);
  }
}

function acknowledgeWildcardGrantsWhenResolved(stack: Stack): void {
  stack.node.addValidation({
    validate: () => {
      for (const construct of stack.node.findAll()) acknowledgeWildcardGrants(construct);
      return [];
    },
  });
}

function acknowledgeWildcardGrants(construct: IConstruct): void {
  if (!CfnResource.isCfnResource(construct)) return;
  const stack = Stack.of(construct);
  let documents: PolicyDocument[] = [];
  if (construct instanceof CfnPolicy) documents = [stack.resolve(construct.policyDocument)];
  if (construct instanceof CfnRole) {
    const policies = (stack.resolve(construct.policies) ?? []) as Array<{ policyDocument: unknown }>;
    documents = policies.map((policy) => stack.resolve(policy.policyDocument));
  }

  // finding -> its reasons, or null once a statement producing it has an action of no known
  // shape. (minimizePolicies merges statements, e.g. X-Ray and log delivery, both on "*".)
  const accepted = new Map<string, Set<string> | null>();
  for (const statement of documents.flatMap((document) => document.Statement ?? [])) {
    if (statement.Effect !== 'Allow') continue;
    const actions = toArray(statement.Action as string | string[] | undefined);
    for (const finding of wildcardFindings(actions, toArray(statement.Resource))) {
      const reasons = actions.map((action) => reasonFor(finding, action));
      const previous = accepted.get(finding);
      const known = previous !== null && reasons.every((reason) => reason !== undefined);
      accepted.set(finding, known ? new Set([...(previous ?? []), ...(reasons as string[])]) : null);
    }
  }
  for (const [finding, reasons] of accepted) {
    if (reasons)
      Validations.of(construct).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason: [...reasons].join(' ') });
  }
}

function reasonFor(finding: string, action: string): string | undefined {
  return WILDCARD_GRANTS.find((grant) => grant.finding.test(finding) && grant.actions.test(action))?.reason;
}

interface PolicyDocument {
  Statement?: Array<{ Effect: string; Action?: unknown; Resource?: unknown }>;
}

/** The same finding strings as cdk-nag's IAMNoWildcardPermissions rule. */
function wildcardFindings(actions: string[], resources: unknown[]): string[] {
  return [
    ...actions.filter((action) => action.includes('*')).map((action) => `Action::${action}`),
    ...resources
      .map((resource) => flattenCfnReference(resource))
      .filter((resource) => resource.includes('*'))
      .map((resource) => `Resource::${resource}`),
  ];
}

function toArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function acknowledgeSiteEntry(site: SiteStack): void {
  const distribution = Validations.of(site.distribution);
  distribution.acknowledge({ id: 'AwsSolutions-CFR1', reason: REASONS.siteGeoRestriction });
  distribution.acknowledge({ id: 'AwsSolutions-CFR2', reason: REASONS.siteFirewall });
  distribution.acknowledge({ id: 'AwsSolutions-CFR3', reason: REASONS.siteAccessLogs });
  // CloudFront's default certificate accepts TLSv1 viewers; a site with its own domain and
  // certificate (stepwise:siteCertificateArn) gets TLS 1.2 at least, and no acknowledgement.
  if (!site.settings.siteCertificateArn) {
    distribution.acknowledge({ id: 'AwsSolutions-CFR4', reason: REASONS.siteDefaultCertificate });
  }
}

function acknowledgeContentOrigin(content: ContentStack): void {
  const distribution = Validations.of(content.distribution);
  distribution.acknowledge({ id: 'AwsSolutions-CFR1', reason: REASONS.siteGeoRestriction });
  distribution.acknowledge({ id: 'AwsSolutions-CFR2', reason: REASONS.contentFirewall });
  distribution.acknowledge({ id: 'AwsSolutions-CFR3', reason: REASONS.contentAccessLogs });
  distribution.acknowledge({ id: 'AwsSolutions-CFR4', reason: REASONS.contentDefaultCertificate });
  Validations.of(content.signingKey).acknowledge({ id: 'AwsSolutions-SMG4', reason: REASONS.contentKeyRotation });
}
