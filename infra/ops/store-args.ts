/**
 * The command line of an operator command that works on a deployed stack's store: its own
 * options plus `--table` and `--region` (set as TABLE_NAME and AWS_REGION before the store's
 * modules load) and `--help`. A wrong option prints the message and the usage and exits 2.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export interface StoreArgs {
  table?: string;
  region?: string;
}

export function parseStoreArgs<Values extends object = object>(
  usage: string,
  options: ParseArgsOptionsConfig = {},
  helpText = '',
): Values & StoreArgs {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      options: {
        ...options,
        table: { type: 'string' },
        region: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(helpText ? `${usage}\n${helpText}` : usage);
    process.exit(0);
  }
  if (typeof values.table === 'string') process.env.TABLE_NAME = values.table;
  if (typeof values.region === 'string') process.env.AWS_REGION = values.region;
  return values as Values & StoreArgs;
}
