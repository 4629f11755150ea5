/** The monitoring stack: a Synthetics canary on GET /api/2.0/health and an alarm on its failed runs. */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CANARY_MINUTES } from '../../infra/stacks/monitoring-stack.ts';
import { buildTestApp, resourcesOfType } from './support.ts';

let template: Template;
let api: Template;
let stateful: Template;
beforeAll(() => {
  const app = buildTestApp();
  template = Template.fromStack(app.monitoring);
  api = Template.fromStack(app.api);
  stateful = Template.fromStack(app.stateful);
});

describe('monitoring stack', () => {
  it("has a canary that calls the API's health route on a schedule", () => {
    const canaries = Object.values(resourcesOfType(template, 'AWS::Synthetics::Canary'));
    expect(canaries).toHaveLength(1);
    const canary = canaries[0].Properties;
    expect(canary.Schedule.Expression).toBe(`rate(${CANARY_MINUTES} minutes)`);
    expect(canary.StartCanaryAfterCreation).toBe(true);
    expect(canary.Code.Script).toContain('status !== 200');
    // The URL is the HTTP API's own endpoint (imported from the API stack) + /api/2.0/health.
    const url = JSON.stringify(canary.RunConfig.EnvironmentVariables.HEALTH_URL);
    expect(url).toContain('Fn::ImportValue');
    expect(url).toContain('/api/2.0/health');
    const apiId = Object.keys(resourcesOfType(api, 'AWS::ApiGatewayV2::Api'))[0];
    expect(url).toContain(apiId);
    // What Synthetics provisions goes with the canary; no custom-resource function does it.
    expect(canary.ProvisionedResourceCleanup).toBe('AUTOMATIC');
    template.resourceCountIs('AWS::Lambda::Function', 0);
  });

  it('alarms on the first failed run, to the alarm topic', () => {
    const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    expect(alarms).toHaveLength(1);
    const [alarm] = alarms;
    expect(alarm).toMatchObject({
      Namespace: 'CloudWatchSynthetics',
      MetricName: 'Failed',
      Statistic: 'Sum',
      Period: CANARY_MINUTES * 60,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const canaryId = Object.keys(resourcesOfType(template, 'AWS::Synthetics::Canary'))[0];
    expect(alarm.Dimensions).toEqual([{ Name: 'CanaryName', Value: { Ref: canaryId } }]);
    const topicId = Object.keys(resourcesOfType(stateful, 'AWS::SNS::Topic'))[0];
    expect(JSON.stringify(alarm.AlarmActions)).toContain(topicId);
  });

  it("keeps the canary's run artifacts in a private bucket of its own, for 30 days", () => {
    const buckets = Object.values(resourcesOfType(template, 'AWS::S3::Bucket')).map((b) => b.Properties);
    expect(buckets).toHaveLength(1);
    expect(buckets[0].PublicAccessBlockConfiguration).toMatchObject({
      BlockPublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(buckets[0].LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ ExpirationInDays: 30, Status: 'Enabled' }),
    ]);
  });
});
