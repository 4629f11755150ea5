/**
 * Bundled in place of `@aws-sdk/client-dynamodb` (esbuild alias, project-function.ts; decision 338):
 * the client, its errors and enums, and the commands the project, lib-dynamodb and Powertools'
 * idempotency import, each from its own file. The package's index re-exports every command, the
 * aggregated client, the waiters and paginators; esbuild keeps all of that (and evaluates its
 * schemas at load) in a bundle where a module reached by `import()` wraps the index
 * (lazyService, decision 337). A name missing here fails the build, never a request.
 * Plain JavaScript: the package ships no types beside these files; importers keep the package's.
 */
export { DynamoDBClient } from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/DynamoDBClient.js';
export {
  DynamoDBServiceException,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/models/DynamoDBServiceException.js'
export * from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/models/errors.js';
export * from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/models/enums.js';
export {
  BatchExecuteStatementCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/BatchExecuteStatementCommand.js'
export {
  BatchGetItemCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/BatchGetItemCommand.js'
export {
  BatchWriteItemCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/BatchWriteItemCommand.js'
export {
  DeleteItemCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/DeleteItemCommand.js'
export {
  DescribeExportCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/DescribeExportCommand.js'
export {
  ExecuteStatementCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ExecuteStatementCommand.js'
export {
  ExecuteTransactionCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ExecuteTransactionCommand.js'
export {
  ExportTableToPointInTimeCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ExportTableToPointInTimeCommand.js'
export { GetItemCommand } from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/GetItemCommand.js';
export { PutItemCommand } from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/PutItemCommand.js';
export { QueryCommand } from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/QueryCommand.js';
export { ScanCommand } from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ScanCommand.js';
export {
  SearchVectorsCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/SearchVectorsCommand.js'
export {
  TransactGetItemsCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/TransactGetItemsCommand.js'
export {
  TransactWriteItemsCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/TransactWriteItemsCommand.js'
export {
  UpdateItemCommand,
} from '../../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/UpdateItemCommand.js'
