/** oidc-provider ships no types; the tests use a few of its calls (test/support/oidc-op.ts). */
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}
