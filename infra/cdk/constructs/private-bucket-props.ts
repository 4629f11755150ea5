/**
 * What every bucket of the project is (the data buckets, their access logs, the canary's
 * artifacts): encrypted, never public, owned by the bucket owner, TLS 1.2 only, never deleted with
 * its stack. Callers add versioning and their own lifecycle rules.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, BucketEncryption, type BucketProps, ObjectOwnership } from 'aws-cdk-lib/aws-s3';

export function privateBucketBaseProps(): BucketProps {
  return {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    removalPolicy: RemovalPolicy.RETAIN,
  };
}
