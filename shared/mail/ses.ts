/** SES adapter of the mail port (deployed stacks). */
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { config } from '../config.ts';
import { offerClientToHook } from '../sdk-client-hook.ts';
import type { MailMessage } from './message.ts';

let client: SESv2Client | undefined;

export async function sendWithSes(message: MailMessage): Promise<void> {
  client ??= offerClientToHook(new SESv2Client({ region: config().AWS_REGION }));
  await client.send(
    new SendEmailCommand({
      FromEmailAddress: config().STEPWISE_MAIL_FROM,
      Destination: { ToAddresses: [message.to] },
      Content: { Simple: { Subject: { Data: message.subject }, Body: { Text: { Data: message.text } } } },
    }),
  );
}
