/**
 * Error names the pipeline state machine matches on (Retry / Catch `ErrorEquals`). A Lambda
 * error's name becomes the Step Functions error name, so these strings are the contract
 * between the task handlers and functions/pipeline/module-import.definition.ts.
 */
import { IMPORT_ERROR_CODES, type ImportErrorCode } from '../../shared/domain/module-import-errors.ts';

export const PipelineErrorName = {
  /** Worth retrying: S3 5xx, throttling, network trouble. */
  TransientStorage: 'TransientStorageError',
  /** The package object named in the input does not exist. */
  PackageNotFound: 'PackageNotFound',
  /** The execution input is not what the task expects. */
  InvalidInput: 'InvalidImportInput',
  /** The package is refused for good; the message is `[<ImportErrorCode>] <reason>`. */
  PackageRejected: 'PackageRejected',
  /** byUpload: the browser has not stored the package yet (retried until it has, or gives up). */
  PackageNotUploaded: 'PackageNotUploaded',
  /** The import was cancelled while a task worked on it. */
  ImportCancelled: 'ImportCancelled',
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

/** A permanent refusal carrying the import error code the API reports. */
export function packageRejected(code: ImportErrorCode, message: string, cause?: unknown): PipelineError {
  return new PipelineError(PipelineErrorName.PackageRejected, `[${code}] ${message}`, { cause });
}

/** Reads back what packageRejected wrote; undefined for any other message. */
export function rejectionOf(message: string): { code: ImportErrorCode; message: string } | undefined {
  const match = /^\[([a-z_]+)\] ([\s\S]*)$/.exec(message);
  if (!match || !(IMPORT_ERROR_CODES as readonly string[]).includes(match[1]!)) return undefined;
  return { code: match[1] as ImportErrorCode, message: match[2]! };
}

/** S3 trouble worth a retry becomes TransientStorageError; anything else is rethrown as it is. */
export function storageError(error: unknown, what: string): unknown {
  if (isTransientStorageError(error)) {
    return new PipelineError(PipelineErrorName.TransientStorage, `${what}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return error;
}
