/**
 * The Step Functions client and commands, loaded on first use rather than at import: the API
 * functions starting executions (modules, site-transfer) do so on a few routes only, and a cold
 * start pays for compiling and evaluating what is imported (decision 154).
 */
export async function sfn() {
  const [{ sfnClient }, sdk] = await Promise.all([import('./sfn-client.ts'), import('./sfn-commands.ts')]);
  return { client: sfnClient(), sdk };
}
