/**
 * Module import, step 1: find the uploaded package and read its size and type.
 * Input: the pipeline's state (shared/workflow/module-import-contract.ts): `bucket` and `key`
 * name the object the client uploaded.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../shared/storage/s3-client.ts';
import { isTransientStorageError, PipelineError, PipelineErrorName } from './errors.ts';
import { importTask } from './import-task.ts';
import { awsStatus, isAwsError } from '../../shared/domain/aws-error.ts';

/** Returns its state with the package's size and type added (the pipeline state flows on). */
export const handler = importTask('InspectPackage', async (state) => {
  const { bucket, key } = state;
  try {
    const head = await s3Client().send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { ...state, size: head.ContentLength ?? 0, contentType: head.ContentType ?? null };
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
});
