/**
 * The environment every deployed function gets: the site settings plus the names of the
 * resources. Every function gets every name, whether or not it may touch the resource: a
 * guide response builds media URLs without reading the bucket, and a missing name would fall
 * back to the local default of shared/config.ts instead of failing loudly.
 */
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { projectVersion } from './repo-paths.ts';
import { siteEnvironment, type SiteSettings } from './site-settings.ts';

export interface EnvironmentResources {
  table: ITableV2;
  mediaBucket: IBucket;
  modulesBucket: IBucket;
  /** Omitted for the state machine's own tasks (it would be a circular reference). */
  importStateMachineArn?: string;
  /** The site export and import machines: API functions only, like the import machine. */
  siteExportStateMachineArn?: string;
  siteImportStateMachineArn?: string;
}

export function functionEnvironment(settings: SiteSettings, resources: EnvironmentResources): Record<string, string> {
  return {
    ...siteEnvironment(settings),
    STEPWISE_RUNTIME: 'aws',
    STEPWISE_VERSION: projectVersion(),
    // One CloudWatch metrics namespace per site, so several sites in one account stay apart.
    POWERTOOLS_METRICS_NAMESPACE: settings.stackPrefix,
    TABLE_NAME: resources.table.tableName,
    MEDIA_BUCKET: resources.mediaBucket.bucketName,
    MODULES_BUCKET: resources.modulesBucket.bucketName,
    ...(resources.importStateMachineArn ? { MODULE_IMPORT_STATE_MACHINE_ARN: resources.importStateMachineArn } : {}),
    ...(resources.siteExportStateMachineArn
      ? { SITE_EXPORT_STATE_MACHINE_ARN: resources.siteExportStateMachineArn }
      : {}),
    ...(resources.siteImportStateMachineArn
      ? { SITE_IMPORT_STATE_MACHINE_ARN: resources.siteImportStateMachineArn }
      : {}),
  };
}
