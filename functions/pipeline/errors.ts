/**
 * Error names the pipeline state machine matches on (Retry / Catch `ErrorEquals`). A Lambda
 * error's name becomes the Step Functions error name, so these strings are the contract
 * between the task handlers and functions/pipeline/module-import.definition.ts.
 */
export const PipelineErrorName = {
  /** Worth retrying: S3 5xx, throttling, network trouble. */
  TransientStorage: 'TransientStorageError',
  /** The package object named in the input does not exist. */
  PackageNotFound: 'PackageNotFound',
  /** The execution input is not what the task expects. */
  InvalidInput: 'InvalidImportInput',
} as const;

export type PipelineErrorName = (typeof PipelineErrorName)[keyof typeof PipelineErrorName];

export class PipelineError extends Error {
  constructor(name: PipelineErrorName, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
  }
}

/** S3 error codes that say "try again later" rather than "this will never work". */
const TRANSIENT_S3_CODES = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'InternalError',
  'ServiceUnavailable',
  'TimeoutError',
]);

/** Network-level failures (no HTTP answer at all). */
const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** True for SDK errors a later attempt may not hit: 5xx, throttling, network failures. */
export function isTransientStorageError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdk = error as Error & {
    $metadata?: { httpStatusCode?: number };
    $retryable?: unknown;
    code?: string;
  };
  const status = sdk.$metadata?.httpStatusCode;
  return (
    (status !== undefined && status >= 500) ||
    status === 429 ||
    sdk.$retryable !== undefined ||
    TRANSIENT_S3_CODES.has(sdk.name) ||
    (sdk.code !== undefined && TRANSIENT_NETWORK_CODES.has(sdk.code))
  );
}
