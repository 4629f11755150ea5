/**
 * The SCIM 2.0 error format (RFC 7644 §3.12): every answer under /scim/v2 that is an error has
 * it, the SCIM routes' own (functions/scim) and the gateway fallback's 404/405 alike.
 */
export const SCIM_CONTENT_TYPE = 'application/scim+json';
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** Paths SCIM clients call: their unmatched answers are SCIM errors. */
export function isScimPath(path: string): boolean {
  return path === '/scim/v2' || path.startsWith('/scim/v2/');
}

export function scimErrorBody(status: number, detail: string, scimType?: string) {
  return { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}
