/**
 * Module import, step 1: find the uploaded package and read its size and type.
 * Input is the execution input `{ bucket, key }` (the object the client uploaded).
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../shared/storage/s3-client.ts';
import { isTransientStorageError, PipelineError, PipelineErrorName } from './errors.ts';
import { awsStatus, isAwsError } from '../../shared/domain/aws-error.ts';

export interface InspectPackageInput {
  bucket: string;
  key: string;
}

export interface PackageInfo {
  bucket: string;
  key: string;
  size: number;
  contentType: string | null;
}

/** Returns its input with the package's size and type added (the pipeline state flows on). */
export async function handler<T extends InspectPackageInput>(input: T): Promise<T & PackageInfo> {
  const { bucket, key } = input ?? {};
  if (typeof bucket !== 'string' || !bucket || typeof key !== 'string' || !key) {
    throw new PipelineError(PipelineErrorName.InvalidInput, 'Expected input { bucket: string, key: string }');
  }

  try {
    const head = await s3Client().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { ...input, bucket, key, size: head.ContentLength ?? 0, contentType: head.ContentType ?? null };
  } catch (error) {
    // HeadObject has no body, so a missing key is a bare 404 named NotFound. (A 403 here
    // would mean the function lacks s3:ListBucket; that is a deployment bug, not retried.)
    if (awsStatus(error) === 404 || isAwsError(error, 'NotFound') || isAwsError(error, 'NoSuchKey')) {
      throw new PipelineError(PipelineErrorName.PackageNotFound, `No package at s3://${bucket}/${key}`, {
        cause: error,
      });
    }
    if (isTransientStorageError(error)) {
      throw new PipelineError(
        PipelineErrorName.TransientStorage,
        `Could not inspect s3://${bucket}/${key}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}
