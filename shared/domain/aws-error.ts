/**
 * Recognising an error by its name. Each deployed bundle (and each side bundle, decision 155)
 * carries its own copy of the AWS SDK and of our error classes, so `instanceof` is false for an
 * error built by another copy; the `name` is what survives (the SDK sets it to the exception's
 * type: 'ConditionalCheckFailedException', 'NoSuchKey', 'NotFound'...). One place for the check,
 * so no comparison of an error's name is spelled out elsewhere (decision 182).
 */

/** What the SDK's service exceptions carry besides the name. */
export interface AwsError extends Error {
  $metadata?: { httpStatusCode?: number; requestId?: string };
  $fault?: 'client' | 'server';
}

/** True when `error` is an object whose `name` is `name` (from any copy of the SDK or of our code). */
export function isAwsError(error: unknown, name: string): error is AwsError {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === name;
}

/** The HTTP status AWS answered with, when the error came from a response. */
export function awsStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  return (error as AwsError).$metadata?.httpStatusCode;
}
