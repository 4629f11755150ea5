/**
 * `npm run secrets:rotate -- [--table <name>] [--region <region>]`
 * Re-seals every identity provider's secrets (OIDC client secrets, the remote-login secret)
 * from the old STEPWISE_SECRETS_KEY to a new one (decision 240, docs/operations.md). The two
 * keys are read from standard input, the old on the first line and the new on the second, never
 * from arguments or the environment, so they stay out of shell history and process lists.
 * Rerunnable: values already under the new key are left. Afterwards put the new key into the
 * secrets-key secret (the functions read it again when a value no longer opens).
 */
import { createInterface } from 'node:readline';
import { parseStoreArgs } from './store-args.ts';

parseStoreArgs(
  'Usage: npm run secrets:rotate -- [--table <table name>] [--region <region>]',
  {},
  'Standard input: the old key on the first line, the new key on the second.',
);

async function readKeys(): Promise<[string, string]> {
  if (process.stdin.isTTY) process.stderr.write('Old key, Enter, then the new key, Enter:\n');
  const lines: string[] = [];
  for await (const line of createInterface({ input: process.stdin })) {
    lines.push(line.trim());
    if (lines.length === 2) break;
  }
  return [lines[0] ?? '', lines[1] ?? ''];
}

const [oldKey, newKey] = await readKeys();
if (oldKey.length < 16 || newKey.length < 16) {
  console.error('Both keys are needed, each of 16 characters or more (old on the first line, new on the second).');
  process.exit(2);
}
if (oldKey === newKey) {
  console.error('The new key is the old key: nothing to do.');
  process.exit(2);
}
const { resealProviderSecrets } = await import('../../shared/accounts/provider-secrets.ts');
try {
  const report = await resealProviderSecrets(oldKey, newKey);
  console.log(
    `Re-sealed ${report.resealed} secret(s) under the new key; ${report.alreadyNew} already were.` +
      (report.unopened.length
        ? `\nNot opened by either key, left as they were (re-enter them through the Admin API): ` +
          report.unopened.join(', ')
        : ''),
  );
  process.exit(report.unopened.length ? 1 : 0);
} catch (error) {
  console.error(`Re-sealing failed: ${(error as Error).name}: ${(error as Error).message}`);
  process.exit(1);
}
