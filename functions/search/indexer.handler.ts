/**
 * The search indexer's Lambda entry (SearchIndexer, infra/cdk/stacks/search-indexer.ts); the
 * local stack feeds the same handler DynamoDB Local's stream (infra/local/table-stream.ts). The
 * table's stream, filtered to guide, step and wiki items, re-indexes the documents a batch
 * names in one index write.
 * A failed batch throws, so Lambda retries it (the write is idempotent: documents are read as
 * they are now); an invocation with `{"rebuild": true}` makes the whole index again (an operator).
 */
export { onTableStream, rebuild } from '../../shared/search/stream-handler.ts';
