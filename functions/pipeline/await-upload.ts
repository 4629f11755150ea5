/**
 * Module import by upload: the browser stores the package with the presigned POST that
 * start/byUpload handed out. Until it is there this task fails with PackageNotUploaded, which
 * the state machine retries with back-off for about twelve minutes before giving up.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../shared/storage/s3-client.ts';
import { PipelineError, PipelineErrorName } from './errors.ts';
import { importTask, progress } from './import-task.ts';
import { awsStatus, isAwsError } from '../../shared/domain/aws-error.ts';

export const handler = importTask('AwaitUpload', async (state) => {
  try {
    await s3Client().send(new HeadObjectCommand({ Bucket: state.bucket, Key: state.key }));
  } catch (error) {
    if (awsStatus(error) === 404 || isAwsError(error, 'NotFound')) {
      throw new PipelineError(
        PipelineErrorName.PackageNotUploaded,
        `No package at s3://${state.bucket}/${state.key} yet`,
      );
    }
    throw error;
  }
  await progress(state, 'validating', 20);
  return state;
});
