/** The only key pair @20minutes/s3rver (the local S3 emulator) accepts; any other key fails InvalidAccessKeyId. */
export const EMULATOR_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
