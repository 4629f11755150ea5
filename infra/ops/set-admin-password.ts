/**
 * `npm run admin:set-password -- --email <email> [--table <name>] [--region <region>]`
 * Sets an Admin's password on a deployed stack (creating the Admin if the address has no
 * account). The password is read from standard input, never from arguments or the
 * environment, so it stays out of shell history and process lists. Uses the caller's AWS
 * credentials; TABLE_NAME defaults to the stateful stack's output.
 */
import { createInterface } from 'node:readline';
import { parseStoreArgs } from './store-args.ts';

const USAGE = 'Usage: npm run admin:set-password -- --email <email> [--table <table name>] [--region <region>]';
const values = parseStoreArgs<{ email?: string }>(
  USAGE,
  { email: { type: 'string' } },
  'The password is read from standard input.',
);
if (!values.email) {
  console.error(USAGE);
  process.exit(2);
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const CREDENTIALS_HINT =
  'No AWS credentials found. Configure the target account first (`aws configure`, `aws sso login --profile <p>` ' +
  'with AWS_PROFILE=<p>, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), then run this again.';

/**
 * The credentials are looked for before the password is asked for: an operator without them is
 * told so in one line, and does not paste a password for nothing. A local table (DDB_ENDPOINT)
 * needs none.
 */
async function checkCredentials(): Promise<void> {
  if (process.env.DDB_ENDPOINT) return;
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  try {
    await defaultProvider()();
  } catch {
    fail(CREDENTIALS_HINT);
  }
}
await checkCredentials();

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
const result = await setAdminPassword(values.email, password).catch((error: Error) => fail(reasonOf(error)));
console.log(
  result.created
    ? `Created Admin ${values.email} (userid ${result.userid}).`
    : `Password set for ${values.email} (userid ${result.userid}); its tokens were revoked.`,
);

/** The usual ways a deployed table is not reached, each as what to do. */
function reasonOf(error: Error): string {
  const table = process.env.TABLE_NAME ?? 'stepwise';
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (error.name === 'CredentialsProviderError') return CREDENTIALS_HINT;
  if (/region is missing/i.test(error.message)) return 'No AWS region set: pass --region <region> (or set AWS_REGION).';
  if (error.name === 'ResourceNotFoundException') {
    const where = region ?? 'the default region';
    return `Table ${table} not found in ${where}: pass --table <the TableName output> and --region.`;
  }
  if (['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException'].includes(error.name)) {
    return `The AWS credentials were refused (${error.name}): renew them (\`aws sso login\`) and run this again.`;
  }
  if (error.name === 'AccessDeniedException') {
    return `These AWS credentials may not read and write table ${table} (AccessDeniedException): use an Admin's.`;
  }
  return `Setting the password failed: ${error.name}: ${error.message}`;
}
