/**
 * Errors a use case throws. They name what went wrong in domain terms; shared/http maps each
 * to its status and body, so services never build HTTP responses.
 */

/** One problem with one input field (422 `errors[]`). */
export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input is well-formed JSON but semantically wrong (422). */
export class ValidationError extends DomainError {
  constructor(
    message: string,
    readonly errors: FieldProblem[] = [],
  ) {
    super(message);
  }

  static field(field: string, code: string, message: string): ValidationError {
    return new ValidationError(message, [{ field, code, message }]);
  }
}

/** The request is malformed in a way the client must fix (400), e.g. an unknown app id. */
export class BadRequestError extends DomainError {}

/** No credentials, or credentials that do not identify anyone (401). */
export class UnauthenticatedError extends DomainError {
  constructor(message = 'Invalid login') {
    super(message);
  }
}

/** The caller is known but may not do this (403). */
export class ForbiddenError extends DomainError {
  constructor(
    message = 'You do not have permission to do that',
    /** Fields the 403 body carries besides `message` (e.g. the skills a gate found short). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export class NotFoundError extends DomainError {}

/**
 * The write lost a race or names a stale revision (409). `current` is the resource as it is
 * now; the wire format sends it as the body.
 */
export class ConflictError extends DomainError {
  constructor(
    message: string,
    readonly current?: unknown,
  ) {
    super(message);
  }
}

/**
 * A write named a `?revisionid=` that is no longer the current one (409): the body is the resource
 * as it is now, and the answer's X-Stepwise-Current-Revisionid header names its current revisionid.
 */
export class StaleRevisionError extends ConflictError {
  constructor(
    readonly currentRevisionid: number,
    current: unknown,
    what = 'version',
  ) {
    super(
      `The ?revisionid= query parameter is not the current revision (${currentRevisionid}); ` +
        `the body is the current ${what}`,
      current,
    );
  }
}

/** The 422 for a write without `?revisionid=`, naming the current one when it is known. */
export function missingRevisionid(currentRevisionid?: number): ValidationError {
  const current = currentRevisionid === undefined ? 'the current revisionid' : String(currentRevisionid);
  return ValidationError.field(
    'revisionid',
    'missing_field',
    `revisionid is required: a query parameter naming the current revision (?revisionid=${current})`,
  );
}

/** Too many attempts; try again after `retryAfterSeconds` (429). */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The request body has the wrong media type (415). */
export class UnsupportedMediaTypeError extends DomainError {}

/** The feature is switched off on this site (e.g. the glossary on a one-language site). */
export class FeatureUnavailableError extends DomainError {}

/** A service this one depends on did not answer; the caller may try again (503). */
export class ServiceUnavailableError extends DomainError {}

/** A conditional request's precondition (If-Match / If-None-Match) does not hold (412). */
export class PreconditionFailedError extends DomainError {}

/** The request body is larger than the resource takes (413). */
export class PayloadTooLargeError extends DomainError {}
