/**
 * isAwsError (shared/domain/aws-error.ts): errors recognised by name, so an exception built by
 * another bundle's copy of the SDK (or of our own classes) is recognised as one built here.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { NoSuchKey } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { awsStatus, isAwsError } from '../../shared/domain/aws-error.ts';
import { isConditionFailed } from '../../shared/db/retry.ts';

/** What another bundle's copy of an SDK exception looks like here: same shape, another class. */
class ForeignCopy extends Error {
  readonly $metadata = { httpStatusCode: 400 };
  constructor(name: string) {
    super('from another bundle');
    this.name = name;
  }
}

describe('isAwsError', () => {
  it('recognises the SDK exception of this copy by its name', () => {
    const error = new ConditionalCheckFailedException({ message: 'failed', $metadata: { httpStatusCode: 400 } });
    expect(isAwsError(error, 'ConditionalCheckFailedException')).toBe(true);
    expect(isAwsError(new NoSuchKey({ message: 'gone', $metadata: {} }), 'NoSuchKey')).toBe(true);
  });

  it('recognises a copy of the class from another bundle, where instanceof fails', () => {
    const foreign = new ForeignCopy('ConditionalCheckFailedException');
    expect(foreign instanceof ConditionalCheckFailedException).toBe(false);
    expect(isAwsError(foreign, 'ConditionalCheckFailedException')).toBe(true);
    expect(isConditionFailed(foreign)).toBe(true);
  });

  it('is false for another name, and for anything that is not an object', () => {
    expect(
      isAwsError(new ForeignCopy('ProvisionedThroughputExceededException'), 'ConditionalCheckFailedException'),
    ).toBe(false);
    expect(isAwsError(new Error('NoSuchKey'), 'NoSuchKey')).toBe(false);
    for (const value of [undefined, null, 'NoSuchKey', 404, { message: 'NoSuchKey' }])
      expect(isAwsError(value, 'NoSuchKey')).toBe(false);
  });

  it('reads the HTTP status an SDK error carries', () => {
    expect(awsStatus(new ForeignCopy('NotFound'))).toBe(400);
    expect(awsStatus(new Error('plain'))).toBeUndefined();
    expect(awsStatus(null)).toBeUndefined();
  });
});
