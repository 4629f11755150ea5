/**
 * jose as a side bundle (`#jose`, package.json "imports"): the xapi function requires it with the
 * first signed statement only, so its other requests neither parse nor run it (decision 355).
 */
export { base64url, compactVerify, decodeProtectedHeader, importX509 } from 'jose';
