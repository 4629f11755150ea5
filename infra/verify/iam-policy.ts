/**
 * An IAM policy evaluator for identity policies as the synthesized template states them (after
 * infra/verify/template.ts resolved their intrinsics): an explicit Deny wins, otherwise some
 * Allow must match action, resource and conditions, otherwise the request is implicitly denied.
 * Enough of IAM for what CDK grants emit: `*` and `?` wildcards, NotAction/NotResource, and the
 * String/Arn/Numeric/Bool condition operators (with IfExists); an operator it does not know denies.
 */

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | number | boolean | Array<string | number>>>;
}

export interface AuthorizationRequest {
  /** e.g. `dynamodb:GetItem` */
  action: string;
  /** e.g. `arn:aws:dynamodb:us-east-1:000000000000:table/stepwise` */
  resource: string;
  /** Condition keys of the request, e.g. `{ 'aws:SecureTransport': 'true' }`. */
  context?: Record<string, string | string[]>;
}

export type Decision = 'allow' | 'explicit-deny' | 'implicit-deny';

export interface Evaluation {
  decision: Decision;
  /** The statements that decided it (the Deny, or the Allows that matched). */
  matched: PolicyStatement[];
}

const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** IAM wildcard match: `*` any run of characters, `?` one character. */
export function wildcardMatch(pattern: string, value: string, caseInsensitive = false): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, caseInsensitive ? 'is' : 's').test(value);
}

// Action names are case-insensitive in IAM; resource ARNs are not.
const actionMatches = (patterns: string[], action: string) =>
  patterns.some((pattern) => wildcardMatch(pattern, action, true));
const resourceMatches = (patterns: string[], resource: string) =>
  patterns.some((pattern) => wildcardMatch(pattern, resource));

function statementApplies(statement: PolicyStatement, request: AuthorizationRequest): boolean {
  const action =
    statement.Action !== undefined
      ? actionMatches(list(statement.Action), request.action)
      : !actionMatches(list(statement.NotAction), request.action);
  if (!action) return false;
  const resource =
    statement.Resource !== undefined
      ? resourceMatches(list(statement.Resource), request.resource)
      : !resourceMatches(list(statement.NotResource), request.resource);
  if (!resource) return false;
  return conditionsHold(statement.Condition ?? {}, request.context ?? {});
}

type Comparator = (expected: string, actual: string) => boolean;

const COMPARATORS: Record<string, Comparator> = {
  StringEquals: (expected, actual) => expected === actual,
  StringNotEquals: (expected, actual) => expected === actual,
  StringEqualsIgnoreCase: (expected, actual) => expected.toLowerCase() === actual.toLowerCase(),
  StringLike: (expected, actual) => wildcardMatch(expected, actual),
  StringNotLike: (expected, actual) => wildcardMatch(expected, actual),
  ArnEquals: (expected, actual) => expected === actual,
  ArnLike: (expected, actual) => wildcardMatch(expected, actual),
  ArnNotEquals: (expected, actual) => expected === actual,
  ArnNotLike: (expected, actual) => wildcardMatch(expected, actual),
  Bool: (expected, actual) => expected.toLowerCase() === actual.toLowerCase(),
  NumericEquals: (expected, actual) => Number(actual) === Number(expected),
  NumericNotEquals: (expected, actual) => Number(actual) === Number(expected),
  NumericLessThan: (expected, actual) => Number(actual) < Number(expected),
  NumericLessThanEquals: (expected, actual) => Number(actual) <= Number(expected),
  NumericGreaterThan: (expected, actual) => Number(actual) > Number(expected),
  NumericGreaterThanEquals: (expected, actual) => Number(actual) >= Number(expected),
};
const NEGATED = new Set(['StringNotEquals', 'StringNotLike', 'ArnNotEquals', 'ArnNotLike', 'NumericNotEquals']);

/** Every operator's every key must hold (AND); a key's values are alternatives (OR). */
export function conditionsHold(
  conditions: NonNullable<PolicyStatement['Condition']>,
  context: Record<string, string | string[]>,
): boolean {
  for (const [rawOperator, keys] of Object.entries(conditions)) {
    const ifExists = rawOperator.endsWith('IfExists');
    const operator = ifExists ? rawOperator.slice(0, -'IfExists'.length) : rawOperator;
    const compare = COMPARATORS[operator];
    if (!compare) return false;
    for (const [key, rawExpected] of Object.entries(keys)) {
      const expected = (Array.isArray(rawExpected) ? rawExpected : [rawExpected]).map(String);
      const actualValue = Object.entries(context).find(([name]) => name.toLowerCase() === key.toLowerCase())?.[1];
      if (actualValue === undefined) {
        // A missing key satisfies only IfExists operators and negated ones.
        if (ifExists || NEGATED.has(operator)) continue;
        return false;
      }
      const actual = list(actualValue);
      const anyMatch = actual.some((value) => expected.some((candidate) => compare(candidate, value)));
      if (NEGATED.has(operator) ? anyMatch : !anyMatch) return false;
    }
  }
  return true;
}

export function evaluate(statements: PolicyStatement[], request: AuthorizationRequest): Evaluation {
  const applying = statements.filter((statement) => statementApplies(statement, request));
  const denies = applying.filter((statement) => statement.Effect === 'Deny');
  if (denies.length > 0) return { decision: 'explicit-deny', matched: denies };
  const allows = applying.filter((statement) => statement.Effect === 'Allow');
  return allows.length > 0 ? { decision: 'allow', matched: allows } : { decision: 'implicit-deny', matched: [] };
}

/**
 * The (action pattern, resource pattern) pairs a policy allows, for the report of grants no
 * call exercised. Wildcard actions stay patterns (`s3:GetObject*`).
 */
export function grantedPairs(statements: PolicyStatement[]): Array<{ action: string; resource: string }> {
  return statements
    .filter((statement) => statement.Effect === 'Allow' && statement.Action !== undefined)
    .flatMap((statement) =>
      list(statement.Action).flatMap((action) =>
        list(statement.Resource ?? '*').map((resource) => ({ action, resource })),
      ),
    );
}
