/**
 * `npm run admin:set-password -- --email <email> [--table <name>] [--region <region>]`
 * Sets an Admin's password on a deployed stack (creating the Admin if the address has no
 * account). The password is read from standard input, never from arguments or the
 * environment, so it stays out of shell history and process lists. Uses the caller's AWS
 * credentials; TABLE_NAME defaults to the stateful stack's output.
 */
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';

const { values } = parseArgs({
  options: { email: { type: 'string' }, table: { type: 'string' }, region: { type: 'string' } },
});
if (!values.email) {
  console.error('Usage: npm run admin:set-password -- --email <email> [--table <table name>] [--region <region>]');
  process.exit(2);
}
if (values.table) process.env.TABLE_NAME = values.table;
if (values.region) process.env.AWS_REGION = values.region;

async function readPassword(): Promise<string> {
  if (process.stdin.isTTY)
    process.stderr.write('New Admin password (input hidden is not supported; paste it and press Enter): ');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) return line;
  return '';
}

const password = await readPassword();
const { passwordSchema } = await import('../../shared/domain/user-rules.ts');
const checked = passwordSchema.safeParse(password);
if (!checked.success) {
  console.error(`Password refused: ${checked.error.issues.map((issue) => issue.message).join('; ')}`);
  process.exit(1);
}
const { setAdminPassword } = await import('../../shared/accounts/first-admin.ts');
const result = await setAdminPassword(values.email, password);
console.log(
  result.created
    ? `Created Admin ${values.email} (userid ${result.userid}).`
    : `Password set for ${values.email} (userid ${result.userid}); its tokens were revoked.`,
);
