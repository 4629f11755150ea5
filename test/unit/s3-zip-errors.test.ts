/** zipError (functions/pipeline/s3-zip.ts): which errors become import refusals and which pass through. */
import { describe, expect, it } from 'vitest';
import { zipError } from '../../functions/pipeline/s3-zip.ts';
import { PipelineError, PipelineErrorName, storageError } from '../../functions/pipeline/errors.ts';
import { PackageRejection } from '../../shared/domain/module-package.ts';

describe('zipError', () => {
  it("passes the pipeline's own errors through, whatever their name (the state machine matches on it)", () => {
    const transient = storageError(
      Object.assign(new Error('slow down'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } }),
      'Reading bytes 0-9',
    );
    expect(transient).toBeInstanceOf(PipelineError);
    expect(zipError(transient)).toBe(transient);
    for (const name of Object.values(PipelineErrorName)) {
      const error = new PipelineError(name, 'from a task');
      expect(zipError(error), name).toBe(error);
    }
    const refusal = new PackageRejection('unsafe_path', 'Unsafe entry name');
    expect(zipError(refusal)).toBe(refusal);
  });

  it('passes SDK errors through and turns yauzl complaints into refusals', () => {
    const sdk = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(zipError(sdk)).toBe(sdk);
    const unsafe = zipError(new Error('absolute path: /etc/passwd'));
    expect(unsafe).toBeInstanceOf(PackageRejection);
    expect((unsafe as PackageRejection).code).toBe('unsafe_path');
    expect((zipError(new Error('end of central directory record signature not found')) as PackageRejection).code).toBe(
      'not_a_zip',
    );
  });
});
