/**
 * Functions S3 starts: an "object created" event notification on a bucket, filtered by key
 * prefix. The CDK pipeline stack deploys each as a Lambda with an S3 event notification; the
 * local stack (infra/local/stack.ts) calls the same handler from the S3 emulator's callback with
 * an event of the same shape (events/s3/).
 */
import { MEDIA_ORIGINALS_PREFIX } from '../../shared/storage/media-objects.ts';

export interface ObjectCreatedTrigger {
  /** Construct id in CDK. */
  name: string;
  bucket: 'media' | 'modules';
  prefix: string;
  /** Repo-relative path of the handler module. */
  entry: string;
  exportName: 'handler';
  memoryMb: number;
  timeoutSeconds: number;
  /** Native packages installed next to the bundle (see RouteGroup.nodeModules). */
  nodeModules: string[];
}

export const objectCreatedTriggers: ObjectCreatedTrigger[] = [
  {
    name: 'ProcessMedia',
    bucket: 'media',
    prefix: MEDIA_ORIGINALS_PREFIX,
    entry: 'functions/pipeline/process-media.ts',
    exportName: 'handler',
    // Nine resizes of an image up to 20 MB with sharp: memory is also CPU on Lambda.
    memoryMb: 2048,
    timeoutSeconds: 120,
    nodeModules: ['sharp'],
  },
];
