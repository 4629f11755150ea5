/**
 * openid-client as a side bundle (`#openid-client`, package.json "imports"): the sso function's
 * bundle requires it with the first OIDC request only, so its other routes neither parse nor
 * run it (issue 36 item 6, decision 286).
 */
export * from 'openid-client';
