/**
 * Watching the deployed site from outside: a CloudWatch Synthetics canary calls GET
 * /api/2.0/health every CANARY_MINUTES and an alarm notifies the alarm topic when a run fails
 * (the route answers 503 when the table or a bucket does not answer, or nothing answers at all).
 * A stack of its own: the API stack is near CloudFormation's 500 resources, and the stateful
 * stack cannot point at the API (the API stack already depends on it). Decision 181.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Canary, Code, Runtime, Schedule } from 'aws-cdk-lib/aws-synthetics';
import type { Construct } from 'constructs';
import { API_BASE_PATH } from '../../../shared/http/route.ts';
import { addAlarm } from '../constructs/alarm.ts';
import { privateBucketBaseProps } from '../constructs/private-bucket-props.ts';

/** Between two canary runs: 4,320 runs a month, about $5 at the list price of $0.0012 a run. */
export const CANARY_MINUTES = 10;

/**
 * The canary's script: one GET with a 10 s limit; any answer but 200 fails the run. Plain
 * Node https (no browser page is opened), so it runs unchanged on any Synthetics Node runtime.
 */
const CANARY_SCRIPT = `
const https = require('node:https');
exports.handler = async () => {
  const url = process.env.HEALTH_URL;
  const status = await new Promise((resolve, reject) => {
    const request = https.get(url, { timeout: 10000 }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 10 s')));
    request.on('error', reject);
  });
  if (status !== 200) throw new Error(url + ' answered ' + status);
  return 'ok';
};
`;

export interface MonitoringStackProps extends StackProps {
  httpApi: HttpApi;
  alarmTopic: ITopic;
}

export class MonitoringStack extends Stack {
  readonly canary: Canary;
  readonly artifactsBucket: Bucket;

  constructor(scope: Construct, id: string, props: MonitoringStackProps) {
    super(scope, id, props);
    // What each run leaves (its log, the answer): kept a month, for a failure's story.
    this.artifactsBucket = new Bucket(this, 'CanaryArtifacts', {
      ...privateBucketBaseProps(),
      lifecycleRules: [{ id: 'expire-canary-runs', expiration: Duration.days(30) }],
    });
    this.canary = new Canary(this, 'HealthCanary', {
      runtime: Runtime.SYNTHETICS_NODEJS_PUPPETEER_11_0,
      test: { code: Code.fromInline(CANARY_SCRIPT), handler: 'index.handler' },
      schedule: Schedule.rate(Duration.minutes(CANARY_MINUTES)),
      environmentVariables: { HEALTH_URL: `${props.httpApi.apiEndpoint}${API_BASE_PATH}/health` },
      artifactsBucketLocation: { bucket: this.artifactsBucket },
      timeout: Duration.seconds(30),
      successRetentionPeriod: Duration.days(7),
      failureRetentionPeriod: Duration.days(30),
      // The Lambda function and layer Synthetics makes for the canary go with it when the stack is destroyed.
      provisionedResourceCleanup: true,
    });
    addAlarm(this, 'HealthCanaryAlarm', {
      metric: this.canary.metricFailed({ period: Duration.minutes(CANARY_MINUTES), statistic: 'Sum' }),
      threshold: 1,
      description:
        `GET ${API_BASE_PATH}/health did not answer 200 (a store does not answer, or the API is down): ` +
        'see docs/operations.md, "Health".',
      topic: props.alarmTopic,
    });
  }
}
