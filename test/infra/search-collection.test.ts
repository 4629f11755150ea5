/**
 * A site on Amazon OpenSearch Service (`stepwise:searchEngine=opensearch`, decision 292): the
 * serverless collection and its policies in the stateful stack; the search function and the
 * search indexer alone may use it (IAM and data access policies), and only they know its
 * endpoint; cdk-nag passes. The default (embedded) site has none of it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { routeGroups } from '../../functions/routes.ts';
import { actionsOf, buildTestApp, functionIdByDescription, functionStatements, resourcesOfType } from './support.ts';

const SEARCH = 'Stepwise search endpoints';
const INDEXER = 'Stepwise search indexer (guide, step and wiki changes from the table stream)';

describe('the OpenSearch Serverless collection (searchEngine opensearch)', () => {
  it('is made, encrypted and reachable by the search function and the indexer only; cdk-nag passes', () => {
    const built = buildTestApp({
      nag: true,
      groups: routeGroups,
      entryFor: undefined,
      context: { 'stepwise:searchEngine': 'opensearch', 'stepwise:stackPrefix': 'Acme' },
      outdir: mkdtempSync(join(tmpdir(), 'stepwise-aoss-')),
    });
    expect(() => built.app.synth()).not.toThrow();

    const stateful = Template.fromStack(built.stateful);
    stateful.hasResourceProperties('AWS::OpenSearchServerless::Collection', { Name: 'acme-search', Type: 'SEARCH' });
    const policies = Object.values(resourcesOfType(stateful, 'AWS::OpenSearchServerless::SecurityPolicy'));
    expect(policies.map((policy) => policy.Properties.Type).sort()).toEqual(['encryption', 'network']);

    const stacks = [built.stateful, built.pipeline, built.api, ...built.apiAreas, built.apiFallback, built.events];
    const users: string[] = [];
    const dataPolicies: Array<{ name: string; policy: string }> = [];
    for (const stack of stacks) {
      const template = Template.fromStack(stack);
      for (const [id, fn] of Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))) {
        const usesSearch = actionsOf(functionStatements(template, id)).includes('aoss:APIAccessAll');
        const knowsEndpoint = 'STEPWISE_OPENSEARCH_ENDPOINT' in (fn.Properties.Environment?.Variables ?? {});
        expect(knowsEndpoint, fn.Properties.Description).toBe(usesSearch);
        expect(fn.Properties.Environment?.Variables?.STEPWISE_SEARCH_ENGINE ?? 'opensearch').toBe('opensearch');
        if (usesSearch) users.push(fn.Properties.Description);
      }
      for (const policy of Object.values(resourcesOfType(template, 'AWS::OpenSearchServerless::AccessPolicy'))) {
        dataPolicies.push({ name: policy.Properties.Name, policy: JSON.stringify(policy.Properties.Policy) });
      }
    }
    expect(users.sort()).toEqual([INDEXER, SEARCH].sort());
    expect(dataPolicies.map((policy) => policy.name).sort()).toEqual(['acme-search-indexer', 'acme-search-search']);
    const reader = dataPolicies.find((policy) => policy.name === 'acme-search-search')!.policy;
    expect(reader).toContain('index/acme-search/stepwise-search-*');
    expect(reader).toContain('aoss:ReadDocument');
    expect(reader).not.toContain('aoss:WriteDocument');
    expect(dataPolicies.find((policy) => policy.name === 'acme-search-indexer')!.policy).toContain(
      'aoss:WriteDocument',
    );

    // The statement names the collection, not every collection of the account.
    const areas = built.apiAreas.map((stack) => Template.fromStack(stack));
    const content = areas.find((template) => {
      try {
        return functionIdByDescription(template, SEARCH) !== undefined;
      } catch {
        return false;
      }
    })!;
    const statement = functionStatements(content, functionIdByDescription(content, SEARCH)).find(
      (s) => s.Action === 'aoss:APIAccessAll',
    )!;
    expect(JSON.stringify(statement.Resource)).toMatch(/SearchCollection/);
  });

  it('is not there on an embedded site (the default)', () => {
    const built = buildTestApp();
    const stateful = Template.fromStack(built.stateful);
    stateful.resourceCountIs('AWS::OpenSearchServerless::Collection', 0);
    const events = Template.fromStack(built.events);
    const indexer = functionIdByDescription(events, INDEXER);
    expect(actionsOf(functionStatements(events, indexer))).not.toContain('aoss:APIAccessAll');
  });
});
