/**
 * The Amazon OpenSearch Serverless collection of a site whose search engine is `opensearch`
 * (`-c stepwise:searchEngine=opensearch`, decision 292): a SEARCH collection with an AWS-owned
 * encryption key and a network policy (public endpoint: the functions are not in a VPC; every
 * request is SigV4-signed and must pass the data access policies), in the stateful stack.
 * Who may use it is granted function by function (`grantSearchCollection`): the search group's
 * function reads, the search indexer writes, each with an IAM statement on this collection and a
 * data access policy naming its role and the stepwise-search-* indexes only.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { CfnAccessPolicy, CfnCollection, CfnSecurityPolicy } from 'aws-cdk-lib/aws-opensearchserverless';
import type { Construct } from 'constructs';
import { OPENSEARCH_INDEX_PREFIX } from '../../shared/search/keys.ts';
import type { ProjectFunction } from './constructs/project-function.ts';

export interface SearchCollection {
  name: string;
  arn: string;
  endpoint: string;
}

/** Names of collections and policies: 3-32 lower-case letters, digits and dashes. */
export function searchCollectionName(stackPrefix: string): string {
  const base = stackPrefix.toLowerCase().replace(/[^a-z0-9-]/g, '');
  return `${base.slice(0, 18)}-search`;
}

export function createSearchCollection(scope: Construct, stackPrefix: string): SearchCollection {
  const name = searchCollectionName(stackPrefix);
  const resource = [`collection/${name}`];
  const encryption = new CfnSecurityPolicy(scope, 'SearchEncryptionPolicy', {
    name: `${name}-enc`,
    type: 'encryption',
    description: 'Stepwise search collection: encrypted at rest with an AWS-owned key',
    policy: JSON.stringify({ Rules: [{ ResourceType: 'collection', Resource: resource }], AWSOwnedKey: true }),
  });
  const network = new CfnSecurityPolicy(scope, 'SearchNetworkPolicy', {
    name: `${name}-net`,
    type: 'network',
    description: 'Stepwise search collection: reached by Lambda outside a VPC, SigV4 and data access policies',
    policy: JSON.stringify([{ Rules: [{ ResourceType: 'collection', Resource: resource }], AllowFromPublic: true }]),
  });
  const collection = new CfnCollection(scope, 'SearchCollection', {
    name,
    type: 'SEARCH',
    description: 'Stepwise search: one index per language, fed by the search indexer (derived data)',
    standbyReplicas: 'ENABLED',
  });
  collection.node.addDependency(encryption, network);
  // Derived data (a rebuild makes it again), but kept like everything in the stateful stack.
  collection.applyRemovalPolicy(RemovalPolicy.RETAIN);
  return { name, arn: collection.attrArn, endpoint: collection.attrCollectionEndpoint };
}

const READ_PERMISSIONS = ['aoss:ReadDocument', 'aoss:DescribeIndex'];
/** The indexer creates a language's index with its mapping on first write and drops it on a rebuild. */
const WRITE_PERMISSIONS = [...READ_PERMISSIONS, 'aoss:WriteDocument', 'aoss:CreateIndex', 'aoss:DeleteIndex'];

/**
 * Lets one function use the collection: `aoss:APIAccessAll` on it (IAM), a data access policy
 * naming the function's role (what it may do to which indexes), and the endpoint in its environment.
 */
export function grantSearchCollection(
  target: ProjectFunction,
  collection: SearchCollection,
  level: 'read' | 'write',
  policyName: string,
): void {
  Grant.addToPrincipal({ grantee: target, actions: ['aoss:APIAccessAll'], resourceArns: [collection.arn] });
  const stack = Stack.of(target);
  new CfnAccessPolicy(target, 'SearchDataAccess', {
    name: `${collection.name}-${policyName}`,
    type: 'data',
    description: `Stepwise search collection: ${level === 'read' ? 'searches' : 'index writes'} of one function`,
    policy: stack.toJsonString([
      {
        Rules: [
          {
            ResourceType: 'index',
            Resource: [`index/${collection.name}/${OPENSEARCH_INDEX_PREFIX}*`],
            Permission: level === 'read' ? READ_PERMISSIONS : WRITE_PERMISSIONS,
          },
        ],
        Principal: [target.function.role!.roleArn],
      },
    ]),
  });
  target.function.addEnvironment('STEPWISE_OPENSEARCH_ENDPOINT', collection.endpoint);
}
