import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { buildTestApp } from './support.ts';

const outdir = () => mkdtempSync(join(tmpdir(), 'stepwise-nag-'));

/** Every acknowledgement in the tree: rule id -> reason. */
function acknowledgements(root: IConstruct): Array<[string, string]> {
  return root.node
    .findAll()
    .flatMap((construct) => construct.node.metadata)
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
}

/** The rule ids the AwsSolutions checks reported, from the validation report of a failed synth. */
function reportedRules(dir: string): string[] {
  const report = JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8'));
  return report.pluginReports.flatMap((plugin: { violations: Array<{ ruleName: string }> }) =>
    plugin.violations.map((v) => v.ruleName),
  );
}

describe('cdk-nag AwsSolutions checks', () => {
  it('pass for the fixture route table, which uses every kind of access', () => {
    // With CloudFormation validation too: this is the full check `cdk synth` runs.
    const { app } = buildTestApp({ nag: true, cloudFormationValidation: true, outdir: outdir() });
    expect(() => app.synth()).not.toThrow();

    const acknowledged = acknowledgements(app);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const [id, reason] of acknowledged) {
      expect(id).toMatch(/^(Annotation::)?AwsSolutions-[A-Z]+[0-9]+(\[.+\])?$/);
      // A reason says why this design accepts the finding, not just that it does.
      expect(reason.length, id).toBeGreaterThan(60);
    }
    // IAM5 is acknowledged finding by finding, never for a whole rule.
    expect(acknowledged.filter(([id]) => /AwsSolutions-IAM5$/.test(id))).toEqual([]);
  });

  it('pass for the real route table', () => {
    const { app } = buildTestApp({ nag: true, groups: routeGroups, entryFor: undefined, outdir: outdir() });
    expect(() => app.synth()).not.toThrow();
  });

  it('fail on a wildcard grant of no known shape', () => {
    const dir = outdir();
    const { app, groupFunctions } = buildTestApp({ nag: true, outdir: dir });
    groupFunctions.things.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:*'], resources: ['*'] }));
    expect(() => app.synth()).toThrow();
    expect(reportedRules(dir)).toEqual(
      expect.arrayContaining(['AwsSolutions-IAM5[Action::s3:*]', 'AwsSolutions-IAM5[Resource::*]']),
    );
  });

  it('fail when an unknown action shares a finding with an accepted wildcard', () => {
    const dir = outdir();
    const { app, groupFunctions } = buildTestApp({ nag: true, outdir: dir });
    // Same finding id as the accepted X-Ray grant on the same role: Resource::*.
    groupFunctions.status.function.addToRolePolicy(
      new PolicyStatement({ actions: ['dynamodb:DeleteTable'], resources: ['*'] }),
    );
    expect(() => app.synth()).toThrow();
    expect(reportedRules(dir)).toEqual(['AwsSolutions-IAM5[Resource::*]']);
  });
});
