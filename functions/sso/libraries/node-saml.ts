/**
 * @node-saml/node-saml (with its XML and signature libraries) as a side bundle (`#node-saml`,
 * package.json "imports"): the sso function's bundle requires it with the first SAML request
 * only (issue 36 item 6, decision 286).
 */
export { generateServiceProviderMetadata, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
