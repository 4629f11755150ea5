/** Request bodies of the site export and import routes (the service's input types). */
import * as z from 'zod/mini';

export const createExportBody = z.object({
  /** false: table items only, no media files or module packages. */
  include_objects: z.optional(z.boolean()),
  /** Webhook secrets travel sealed with this passphrase (scrypt + AES-256-GCM); without it they are left out. */
  webhook_secrets_passphrase: z.optional(z.string().check(z.minLength(12), z.maxLength(1024))),
});

export const createImportBody = z.object({
  /** empty (default): the site must hold only its first Admin; merge: refuses any id collision. */
  mode: z.optional(z.enum(['empty', 'merge'])),
  /** Validate and report, write nothing. */
  dry_run: z.optional(z.boolean()),
  /** Mail a reset link to imported accounts without a password (migrated ones). */
  mail_password_resets: z.optional(z.boolean()),
  /** Merge mode: the file may give accounts Admin (otherwise refused). */
  allow_admin_grants: z.optional(z.boolean()),
  /** Opens webhook secrets the file carries sealed (the export's webhook_secrets_passphrase). */
  secrets_passphrase: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
});

export type CreateExportInput = z.output<typeof createExportBody>;
export type CreateImportInput = z.output<typeof createImportBody>;
