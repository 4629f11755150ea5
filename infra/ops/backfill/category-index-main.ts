/**
 * `npm run guides:category-index -- [--table <name>] [--region <region>]`: writes the category
 * index (decision 211) for guides stored before it (category-index.ts). Safe to run again.
 */
import { parseArgs } from 'node:util';

const USAGE = 'Usage: npm run guides:category-index -- [--table <table name>] [--region <region>]';
let values: { table?: string; region?: string };
try {
  values = parseArgs({ options: { table: { type: 'string' }, region: { type: 'string' } } }).values;
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (values.table) process.env.TABLE_NAME = values.table;
if (values.region) process.env.AWS_REGION = values.region;

const { rebuildCategoryIndex } = await import('./category-index.ts');
const guides = await rebuildCategoryIndex((done) => console.error(`${done} guides indexed`)).catch((error: Error) => {
  console.error(`The rebuild stopped: ${error.name}: ${error.message}. Run it again (it is idempotent).`);
  process.exit(1);
});
console.log(`Done: ${guides} guides in the category index.`);
