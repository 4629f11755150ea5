/**
 * The one way this project builds a Lambda function: every endpoint group, the fallback router
 * and every pipeline task go through here, so runtime, bundling, logging, tracing and alarms
 * cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type IGrantable, type IPrincipal, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { EmbedBundling, EmbedFile } from '../embeds.ts';
import { LOCK_FILE, REPO_ROOT } from '../../repo-paths.ts';
import { addAlarm } from './alarm.ts';

export const DEFAULT_MEMORY_MB = 512;

export const SDK_DEFAULT_CREDENTIAL_PROVIDER = '@aws-sdk/credential-provider-node';
export const LAMBDA_CREDENTIAL_PROVIDER = join(
  REPO_ROOT,
  'infra',
  'cdk',
  'constructs',
  'lambda-credential-provider.ts',
);
export const DEFAULT_TIMEOUT_SECONDS = 10;

/**
 * Bundled in place of `@aws-sdk/client-dynamodb`: its client, errors and the commands in use, each
 * from its own file, so a bundle never carries the package's index of every command (decision 338).
 */
export const DYNAMODB_CLIENT_PACKAGE = '@aws-sdk/client-dynamodb';
export const DYNAMODB_CLIENT_ENTRY = join(REPO_ROOT, 'infra', 'cdk', 'constructs', 'dynamodb-client-entry.js');

/**
 * The bundles are CommonJS (decision 153): V8 compiles and runs a CommonJS bundle about 8% faster
 * than the same code as an ES module. The repo's package.json says "type": "module" and cdk.out
 * sits inside the repo, so each asset gets its own package.json naming it CommonJS: local hosts
 * (verify:deploy, the bench) then load `index.js` as Lambda does. Functions with `nodeModules`
 * already get one without "type" (the same).
 */
export const BUNDLE_PACKAGE_JSON = { type: 'commonjs' };

/**
 * Side bundles (decision 155): every `#name` of the repo's package.json "imports" is left out of
 * the bundles and, in an asset whose bundle loads it, built into a file of its own (`name.js`)
 * that the asset's package.json maps `#name` to. Code an `import('#name')` reaches is then not
 * even parsed at cold start; esbuild's lazily evaluated modules inside the bundle still are
 * (about 55 ms per MB here). Functions with `nodeModules` keep npm's package.json (no "type":
 * CommonJS as well), with the "imports" added after the install.
 */
export const SIDE_BUNDLES: Record<string, string> =
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).imports ?? {};

const ESBUILD = join(REPO_ROOT, 'node_modules', '.bin', 'esbuild');

const SIDE_BUNDLE_IMPORTS = Object.fromEntries(
  Object.keys(SIDE_BUNDLES).map((name) => [name, `./${name.slice(1)}.js`]),
);

/** Writes the asset's package.json, or with `nodeModules` adds the "imports" to npm's. */
function packageJsonCommand(packageJson: string, hasNodeModules: boolean): string {
  if (!hasNodeModules)
    return `echo '${JSON.stringify({ ...BUNDLE_PACKAGE_JSON, imports: SIDE_BUNDLE_IMPORTS })}' > "${packageJson}"`;
  const merge =
    `const f=process.argv[1],p=JSON.parse(require("fs").readFileSync(f,"utf8"));` +
    `p.imports=${JSON.stringify(SIDE_BUNDLE_IMPORTS)};require("fs").writeFileSync(f,JSON.stringify(p))`;
  return `"${process.execPath}" -e '${merge}' "${packageJson}"`;
}

/**
 * The shell commands writing the asset's package.json, its embeds and the side bundles its bundle
 * loads. Side bundles leave the function's `nodeModules` (sharp) external like the main bundle:
 * `#image-child` (decision 162) requires the sharp installed beside it.
 */
function afterBundling(outputDir: string, nodeModules: string[], embeds: EmbedFile[]): string[] {
  const bundle = join(outputDir, 'index.js');
  const externals = nodeModules.map((name) => ` --external:${name}`).join('');
  return [
    packageJsonCommand(join(outputDir, 'package.json'), nodeModules.length > 0),
    ...embeds.map((embed) => `cp "${embed.source}" "${join(outputDir, embed.name)}"`),
    ...Object.entries(SIDE_BUNDLES).map(
      ([name, entry]) =>
        `if grep -q '"${name}"' "${bundle}"; then "${ESBUILD}" "${join(REPO_ROOT, entry)}" --bundle --platform=node ` +
        `--format=cjs --target=node22 --main-fields=module,main --minify --keep-names --sourcemap${externals} ` +
        `--sources-content=false --log-level=warning --alias:${SDK_DEFAULT_CREDENTIAL_PROVIDER}=` +
        `${LAMBDA_CREDENTIAL_PROVIDER} --outfile="${join(outputDir, `${name.slice(1)}.js`)}"; fi`,
    ),
  ];
}

export interface ProjectFunctionProps {
  /** Absolute path of the TypeScript entry file. */
  entry: string;
  /** The entry's exported handler. */
  handlerExport?: string;
  description: string;
  /** Added to the environment every function gets. */
  environment: Record<string, string>;
  memoryMb?: number;
  timeoutSeconds?: number;
  logRetention: RetentionDays;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  alarmTopic: ITopic;
  /** Build-time data shipped as files beside the bundle (infra/cdk/embeds.ts). */
  embeds?: EmbedBundling;
  /**
   * Packages with native code (sharp) left out of the bundle and installed beside it by
   * `npm ci` from the lock file, for the function's platform (linux arm64), not the machine
   * running synth: the registry's prebuilt binaries, no compiler, no Docker.
   */
  nodeModules?: string[];
}

/** npm's platform overrides: optional native packages (@img/sharp-linux-arm64 ...) for Lambda arm64. */
export const LAMBDA_NPM_PLATFORM = { npm_config_os: 'linux', npm_config_cpu: 'arm64', npm_config_libc: 'glibc' };

/** CDK runs afterBundling after the `nodeModules` install, so npm's package.json exists by then. */
const assetHooks = (nodeModules: string[], embeds: EmbedFile[]) => ({
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (_inputDir: string, outputDir: string) => afterBundling(outputDir, nodeModules, embeds),
});

export class ProjectFunction extends Construct implements IGrantable {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ProjectFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention });

    // Our own role instead of AWSLambdaBasicExecutionRole: that managed policy may create and
    // write any log group in the account; this one writes only to the function's own group.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.description}`,
    });
    this.logGroup.grantWrite(role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: props.handlerExport ?? 'handler',
      description: props.description,
      projectRoot: REPO_ROOT,
      depsLockFilePath: LOCK_FILE,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[props.logLevel],
      // INFO keeps the platform's REPORT lines: duration, memory used and cold-start init time.
      systemLogLevelV2: SystemLogLevel.INFO,
      tracing: Tracing.ACTIVE,
      // No NODE_OPTIONS=--enable-source-maps: Node then reads and parses the bundle's source map at
      // every cold start, about a fifth of an API function's import CPU (decision 145). Stack traces
      // keep function names (keepNames); the .map beside each bundle maps positions when needed.
      environment: props.environment,
      bundling: {
        format: OutputFormat.CJS,
        mainFields: ['module', 'main'],
        // What Lambda runs, and what the local stack and verify:deploy run since decision 185.
        target: 'node22',
        minify: true,
        // Minified class and function names would make logged error names unreadable.
        keepNames: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        // Bundle the SDK at the version package.json pins (docs/operations.md, "Bundling").
        bundleAwsSDK: true,
        // The SDK's default credential chain minus what a Lambda never reaches (SSO, ini files,
        // processes, STS web identity, IMDS): ~100 KB less per bundle (lambda-credential-provider.ts).
        esbuildArgs: {
          [`--alias:${SDK_DEFAULT_CREDENTIAL_PROVIDER}`]: LAMBDA_CREDENTIAL_PROVIDER,
          [`--alias:${DYNAMODB_CLIENT_PACKAGE}`]: DYNAMODB_CLIENT_ENTRY,
          ...Object.fromEntries(Object.keys(SIDE_BUNDLES).map((name) => [`--external:${name}`, true])),
          // An import() left to run time (side bundles, sharp) becomes require(): Node then loads the
          // CommonJS file directly instead of scanning it for export names first.
          '--supported:dynamic-import': 'false',
        },
        commandHooks: assetHooks(props.nodeModules ?? [], props.embeds?.files ?? []),
        ...(props.nodeModules?.length ? { nodeModules: props.nodeModules, environment: LAMBDA_NPM_PLATFORM } : {}),
      },
    });

    const fn = this.function;
    addAlarm(this, 'ErrorsAlarm', {
      metric: fn.metricErrors({ period: Duration.minutes(5) }),
      threshold: 1,
      description: `${props.description}: invocations ended in an unhandled error.`,
      topic: props.alarmTopic,
    });
    addAlarm(this, 'ThrottlesAlarm', {
      metric: fn.metricThrottles({ period: Duration.minutes(5) }),
      threshold: 1,
      description: `${props.description}: invocations were throttled (account or function concurrency).`,
      topic: props.alarmTopic,
    });
  }

  get grantPrincipal(): IPrincipal {
    return this.function.grantPrincipal;
  }
}
