/**
 * What secret-values.ts loads at its first read: the Secrets Manager client and the one command it
 * sends, as `#secrets-manager` (package.json "imports"), a side bundle of its own when deployed
 * (decision 155): the groups holding a secret's ARN read it once per container, most of their cold
 * starts never.
 */
export { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
