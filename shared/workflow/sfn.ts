/**
 * The Step Functions client and commands, loaded on first use rather than at import: the API
 * functions starting executions (modules, site-transfer) do so on a few routes only, and a cold
 * start pays for parsing, compiling and evaluating what it carries (decisions 154, 155). When
 * deployed, `#sfn-sdk` (sfn-commands.ts) is a file of its own beside the bundle, loaded by the
 * first of those requests in a container.
 */
export async function sfn() {
  const sdk = await import('#sfn-sdk');
  return { client: sdk.sfnClient(), sdk };
}
