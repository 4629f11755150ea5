/**
 * The IAM check of `npm run verify:deploy`: every AWS SDK call a bundled function makes is
 * authorized against that function's role policy from the template (plus the Deny statements
 * of the bucket policies) before it is sent. A denied call fails as AWS would fail it
 * (AccessDeniedException) and is recorded; the report at the end lists denials, calls made
 * outside any function, and the grants no call exercised.
 */
import { isReachable } from './bundle-reach.ts';
import { evaluate, grantedPairs, wildcardMatch, type PolicyStatement } from './iam-policy.ts';
import { requiredPermissions, sesIdentityAlternatives, type RequiredPermission } from './sdk-actions.ts';
import { currentFunction } from './function-scope.ts';
import { FAKE_ARN_CONTEXT } from './template.ts';

/** Facts of every call from a Lambda function: the SDK uses HTTPS with TLS 1.2 or later. */
const REQUEST_CONTEXT = { 'aws:SecureTransport': 'true', 's3:TlsVersion': '1.3' };

export interface Principal {
  id: string;
  description: string;
  statements: PolicyStatement[];
  /** The actions its code can need (bundle-reach.ts); unknown for principals without a bundle. */
  reachable?: Set<string>;
}

export interface UnusedGrant {
  principal: string;
  action: string;
  resource: string;
  /** Some command in the bundle could use it (a path no test took); false: nothing can. */
  reachable: boolean;
}

export interface Denial {
  principal: string;
  action: string;
  resource: string;
  decision: string;
}

export class IamLedger {
  readonly denials: Denial[] = [];
  readonly unattributed: string[] = [];
  private readonly exercised = new Map<string, Set<string>>();
  private readonly principals = new Map<string, Principal>();

  constructor(private readonly bucketPolicies: Map<string, PolicyStatement[]>) {}

  register(principal: Principal): void {
    this.principals.set(principal.id, principal);
  }

  /** Decides one required permission for a principal; records what matched. */
  authorize(principalId: string, permission: RequiredPermission): boolean {
    const principal = this.principals.get(principalId);
    if (!principal) throw new Error(`IAM: unknown principal ${principalId}`);
    const alternatives =
      permission.action === 'ses:SendEmail' ? sesIdentityAlternatives(permission.resource) : [permission.resource];
    const resourceDenies = this.resourcePolicyDenies(permission.resource);
    for (const resource of alternatives) {
      const result = evaluate([...principal.statements, ...resourceDenies], {
        action: permission.action,
        resource,
        context: { ...REQUEST_CONTEXT, ...permission.context },
      });
      if (result.decision === 'allow') {
        const used = this.exercised.get(principalId) ?? new Set<string>();
        for (const statement of result.matched) {
          for (const pair of grantedPairs([statement])) {
            if (wildcardMatch(pair.action, permission.action, true) && wildcardMatch(pair.resource, resource))
              used.add(pairKey(pair));
          }
        }
        this.exercised.set(principalId, used);
        return true;
      }
      if (result.decision === 'explicit-deny') {
        this.denials.push({
          principal: principal.description,
          action: permission.action,
          resource,
          decision: result.decision,
        });
        return false;
      }
    }
    this.denials.push({
      principal: principal.description,
      action: permission.action,
      resource: permission.resource,
      decision: 'implicit-deny',
    });
    return false;
  }

  /** A bucket policy's Deny applies to every principal (the Principal is `*` in ours). */
  private resourcePolicyDenies(resource: string): PolicyStatement[] {
    const bucket = /^arn:[^:]+:s3:::([^/]+)/.exec(resource)?.[1];
    const statements = bucket ? (this.bucketPolicies.get(bucket) ?? []) : [];
    return statements
      .filter((statement) => statement.Effect === 'Deny')
      .map(({ Effect, Action, NotAction, Resource, NotResource, Condition }) => ({
        Effect,
        Action,
        NotAction,
        Resource,
        NotResource,
        Condition,
      }));
  }

  /** Granted (action, resource) pairs no call used, per principal; log and X-Ray grants are the runtime's. */
  unexercisedGrants(): UnusedGrant[] {
    const unused: UnusedGrant[] = [];
    for (const principal of this.principals.values()) {
      const used = this.exercised.get(principal.id) ?? new Set<string>();
      for (const pair of grantedPairs(principal.statements)) {
        if (/^(logs|xray):/.test(pair.action)) continue;
        if (used.has(pairKey(pair))) continue;
        const reachable = !principal.reachable || isReachable(pair.action, principal.reachable);
        unused.push({ principal: principal.description, ...pair, reachable });
      }
    }
    return unused;
  }

  /** What this stack saw, as data: verify:deploy merges the findings of every stack a test started. */
  findings(): IamFindings {
    return { denials: this.denials, unattributed: this.unattributed, unexercised: this.unexercisedGrants() };
  }

  report(): { ok: boolean; text: string } {
    return iamReport([this.findings()]);
  }
}

export interface IamFindings {
  denials: Denial[];
  unattributed: string[];
  unexercised: UnusedGrant[];
}

/** What each bundle-mode stack writes when it stops (STEPWISE_IAM_REPORT_DIR/stack-<pid>.json). */
export interface StackIamFile {
  findings: IamFindings;
  /** The events deliverer's feed counts; empty when the stack fed nothing. */
  feedSummary: string;
}

/**
 * The report over one or more stacks' findings (tests start stacks of their own: the site
 * transfer runs two). Every stack loads every bundle under the same roles, so a grant counts as
 * exercised when any stack used it; denials and unattributed calls add up.
 */
export function iamReport(stacks: IamFindings[]): { ok: boolean; text: string } {
  const denials = stacks.flatMap((stack) => stack.denials);
  const unattributed = stacks.flatMap((stack) => stack.unattributed);
  const grantKey = (grant: UnusedGrant) => `${grant.principal} ${pairKey(grant)}`;
  const unexercisedEverywhere = stacks.slice(1).reduce((unexercised, stack) => {
    const there = new Set(stack.unexercised.map(grantKey));
    return unexercised.filter((grant) => there.has(grantKey(grant)));
  }, stacks[0]?.unexercised ?? []);
  const unused = unexercisedEverywhere.filter((grant) => grant.reachable);
  const unreachable = unexercisedEverywhere.filter((grant) => !grant.reachable);
  const lines = [
    `IAM: ${denials.length} denied call(s), ${unattributed.length} call(s) outside any ` +
      `function, ${unreachable.length} grant(s) no code in the bundle can use, ${unused.length} granted ` +
      `action(s) no test exercised (paths the tests did not take), over ${stacks.length} stack(s)`,
  ];
  for (const denial of denials)
    lines.push(`IAM DENIED  ${denial.principal}: ${denial.action} on ${denial.resource} (${denial.decision})`);
  for (const call of unattributed) lines.push(`IAM UNATTRIBUTED  ${call}`);
  lines.push(...grantLines('IAM UNREACHABLE', unreachable), ...grantLines('IAM unexercised', unused));
  return {
    ok: stacks.length > 0 && denials.length === 0 && unattributed.length === 0 && unreachable.length === 0,
    text: lines.join('\n'),
  };
}

/** One line per principal and resource: the granted actions on it. */
function grantLines(heading: string, grants: UnusedGrant[]): string[] {
  const byPrincipal = new Map<string, Map<string, string[]>>();
  for (const grant of grants) {
    const resources = byPrincipal.get(grant.principal) ?? new Map<string, string[]>();
    resources.set(grant.resource, [...(resources.get(grant.resource) ?? []), grant.action]);
    byPrincipal.set(grant.principal, resources);
  }
  const lines: string[] = [];
  for (const [principal, resources] of byPrincipal) {
    lines.push(`${heading}  ${principal}:`);
    for (const [resource, actions] of resources) lines.push(`    ${resource}: ${actions.join(', ')}`);
  }
  return lines;
}

const pairKey = (pair: { action: string; resource: string }) => `${pair.action} ${pair.resource}`;

export class AccessDeniedException extends Error {
  override name = 'AccessDeniedException';
  readonly $fault = 'client';
  readonly $metadata = { httpStatusCode: 403 };
}

interface HookableClient {
  middlewareStack: { add(middleware: unknown, options: Record<string, unknown>): void };
}

/**
 * The hook shared/sdk-client-hook.ts offers every client to: an initialize-step middleware
 * that authorizes the call under the role of the function in scope. Bundles create their
 * clients inside a function scope (module load or invocation); a client created outside one
 * is the local stack's own (table set-up, first Admin) and is not checked. A checked client's
 * call outside any scope is recorded as unattributed, which fails the run.
 */
export function iamClientHook(ledger: IamLedger) {
  return (client: HookableClient) => {
    if (!currentFunction()) return;
    client.middlewareStack.add(
      (next: (args: unknown) => Promise<unknown>, context: { clientName?: string; commandName?: string }) =>
        async (args: { input: Record<string, unknown> }) => {
          const scope = currentFunction();
          const call = `${context.clientName} ${context.commandName}`;
          if (!scope) {
            ledger.unattributed.push(call);
            return next(args);
          }
          const permissions = requiredPermissions(
            String(context.clientName),
            String(context.commandName),
            args.input,
            FAKE_ARN_CONTEXT,
          );
          for (const permission of permissions) {
            if (!ledger.authorize(scope.fn.id, permission)) {
              throw new AccessDeniedException(
                `IAM: ${scope.fn.description} is not authorized to perform ${permission.action} on ` +
                  `${permission.resource} (${call})`,
              );
            }
          }
          return next(args);
        },
      { step: 'initialize', name: 'stepwiseIamCheck', priority: 'high' },
    );
  };
}
