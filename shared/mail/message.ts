/** What the mail port sends; both adapters (outbox file, SES) take this shape. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Machine-readable purpose, e.g. password-reset (tests and logs use it). */
  kind: string;
}
