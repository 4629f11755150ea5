/**
 * The mail port. Locally every message is a JSON file in the outbox folder (and a log line);
 * on AWS it goes through SES. Services call sendMail and never know which.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { config } from '../config.ts';
import { log } from '../observability/logger.ts';
import type { MailMessage } from './message.ts';

export async function sendMail(message: MailMessage): Promise<void> {
  const { STEPWISE_OUTBOX_DIR, STEPWISE_RUNTIME } = config();
  if (STEPWISE_RUNTIME === 'local' || STEPWISE_OUTBOX_DIR) {
    const folder = STEPWISE_OUTBOX_DIR ?? join(config().STEPWISE_DATA_DIR, 'outbox');
    await mkdir(folder, { recursive: true });
    const file = join(folder, `${Date.now()}-${randomUUID()}.json`);
    await writeFile(file, JSON.stringify({ ...message, date: new Date().toISOString() }, null, 2));
    log().info('mail written to outbox', { to: message.to, kind: message.kind, file });
    return;
  }
  // `#ses-mail` is ./ses.ts (package.json "imports"), a file of its own when deployed (decision 155):
  // the SES client is parsed by the first message a container sends, not by every cold start.
  const { sendWithSes } = await import('#ses-mail');
  await sendWithSes(message);
}
