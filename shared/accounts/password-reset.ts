/**
 * Password reset by mailed link: the link carries a random token stored only as its hash,
 * works once, expires, and dies when the password changes (another link used, a change through
 * PATCH /users/{userid}). Requests answer the same whether or not the address has an account,
 * and are limited per address so nobody can flood a mailbox.
 */
import { config } from '../config.ts';
import { ValidationError } from '../domain/errors.ts';
import { newToken, sha256Hex } from '../domain/secrets.ts';
import { countAttempt } from '../db/entities/attempt-counter.ts';
import { consumeResetLink, putResetLink } from '../db/entities/reset-link.ts';
import { findUserIdBy, getUser } from '../db/entities/user.ts';
import { nowSeconds } from '../clock.ts';
import { sendMail } from '../mail/mailer.ts';
import { setPassword } from './accounts.ts';
import { credentialStamp } from './credential-stamp.ts';

const RESET_REQUESTS = 'RESET';
const RESET_REQUESTS_PER_HOUR = 5;

/**
 * Sends a reset link if the address has an account; the answer never says which. An invitation
 * (an account made by POST /users/createByEmails) gets the same link, worded as a welcome: the
 * page it opens sets the first password (docs/sessions.md).
 */
export async function requestPasswordReset(email: string, purpose: 'reset' | 'invitation' = 'reset'): Promise<void> {
  const { STEPWISE_RESET_TOKEN_TTL_MINUTES, STEPWISE_SITE_URL, STEPWISE_SITE_NAME } = config();
  const requests = await countAttempt(RESET_REQUESTS, email.trim().toLowerCase(), 3600);
  if (requests.count > RESET_REQUESTS_PER_HOUR) return;
  const userid = await findUserIdBy('EMAIL', email);
  if (userid === undefined) return;
  const user = await getUser(userid);
  if (!user) return;
  const token = newToken();
  await putResetLink(
    sha256Hex(token),
    user.userid,
    nowSeconds() + STEPWISE_RESET_TOKEN_TTL_MINUTES * 60,
    credentialStamp(user.password_hash),
  );
  const link = `${STEPWISE_SITE_URL}/reset_password?token=${token}`;
  const lasts = `The link works once, for ${STEPWISE_RESET_TOKEN_TTL_MINUTES} minutes.`;
  await sendMail(
    purpose === 'invitation'
      ? {
          to: user.email,
          kind: 'invitation',
          subject: `Your ${STEPWISE_SITE_NAME} account: choose a password`,
          text:
            `An account on ${STEPWISE_SITE_NAME} was made for you.\n\nTo choose your password and sign ` +
            `in, open ${link}\n\n${lasts} When it has expired, ask for a new one on that page.`,
        }
      : {
          to: user.email,
          kind: 'password-reset',
          subject: `Reset your ${STEPWISE_SITE_NAME} password`,
          text:
            `Someone asked to reset the password of your ${STEPWISE_SITE_NAME} account.\n\nTo choose a new ` +
            `password, open ${link}\nor send the token ${token} with your new password to POST ` +
            `/api/2.0/users/reset_password/complete.\n\n${lasts} If you did not ask, ignore this message.`,
        },
  );
}

const INVALID_LINK = 'The reset link is invalid, used or expired';

/**
 * Sets the password a link was sent for, if the account's password is still the one it had when
 * the link was sent: using one link (or any password change) ends every other link of the
 * account. The stamp is compared inside setPassword's conditional write, so two links used at
 * once cannot both apply.
 */
export async function completePasswordReset(token: string, password: string): Promise<void> {
  const link = await consumeResetLink(sha256Hex(token));
  if (link === undefined) throw ValidationError.field('token', 'invalid_token', INVALID_LINK);
  await setPassword(link.userid, password, {
    onlyIfStamp: link.credential_stamp,
    refused: () => ValidationError.field('token', 'invalid_token', INVALID_LINK),
  });
}
