/**
 * Bundled in place of `@aws-sdk/credential-provider-node` (esbuild alias, project-function.ts).
 * The SDK's default chain carries SSO, shared-ini, process, web-identity, container and
 * instance-metadata providers, and the nested STS/SSO clients they use: about 100 KB of every
 * bundle that a Lambda function never reaches, because the runtime always puts the role's
 * credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN),
 * the first link of the default chain. This is that link alone (docs/decisions/).
 */
interface EnvCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export function defaultProvider(_init?: unknown): () => Promise<EnvCredentials> {
  return async () => {
    const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION } = process.env;
    if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
      throw new Error(
        'No AWS credentials in the environment: the Lambda runtime sets AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
      );
    }
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
      ...(AWS_CREDENTIAL_EXPIRATION ? { expiration: new Date(AWS_CREDENTIAL_EXPIRATION) } : {}),
    };
  };
}

// The other exports of @aws-sdk/credential-provider-node, for any importer that names them.
export const credentialsWillNeedRefresh = (): boolean => false;
export const credentialsTreatedAsExpired = (): boolean => false;
