/**
 * A credential stamp: a short digest of an account's stored password hash. Every password set
 * (reset, change, the operator's command) stores a fresh scrypt hash with a new salt, so the
 * stamp changes with every set, even to the same password. Things that must die with the
 * credentials they were issued under keep the stamp of that moment and are checked against the
 * account's current one: impersonation tokens (their minter's) and reset links (their
 * account's). The stamp reveals nothing of the hash it digests.
 */
import { sha256Hex } from '../domain/secrets.ts';

export function credentialStamp(passwordHash: string): string {
  return sha256Hex(`credential-stamp:${passwordHash}`).slice(0, 32);
}

/**
 * The stamp an impersonation token keeps of its minter (decision 261): their password hash and
 * their email (the login, where a reset link goes), so a new password or a new address ends the
 * tokens they minted. Their role and state are checked as they are now, at every use.
 */
export function impersonatorStamp(minter: { password_hash: string; email: string }): string {
  return sha256Hex(`impersonator-stamp:${minter.password_hash}\n${minter.email.trim().toLowerCase()}`).slice(0, 32);
}
