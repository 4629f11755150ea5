/**
 * `npm run guides:category-index -- [--table <name>] [--region <region>]`: writes the category
 * index (decision 211) for guides stored before it (category-index.ts). Safe to run again.
 */
import { parseStoreArgs } from '../store-args.ts';

parseStoreArgs('Usage: npm run guides:category-index -- [--table <table name>] [--region <region>]');

const { rebuildCategoryIndex } = await import('./category-index.ts');
const guides = await rebuildCategoryIndex((done) => console.error(`${done} guides indexed`)).catch((error: Error) => {
  console.error(`The rebuild stopped: ${error.name}: ${error.message}. Run it again (it is idempotent).`);
  process.exit(1);
});
console.log(`Done: ${guides} guides in the category index.`);
