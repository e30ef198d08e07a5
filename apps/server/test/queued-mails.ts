import type { OutgoingMail } from '../src/providers/mail/mail-transport';
import type { AppContext } from '../src/app-context';

const queued = new WeakMap<AppContext, Map<string, OutgoingMail>>();

/**
 * Remembers every mail the app queues, by outbox id. The outbox blanks a mail's body once it is
 * delivered (or logged), which the worker does right away; tests still read the links they need
 * from what was queued.
 */
export function recordQueuedMails(ctx: AppContext): void {
  const mails = new Map<string, OutgoingMail>();
  queued.set(ctx, mails);
  const enqueue = ctx.mail.enqueue.bind(ctx.mail);
  ctx.mail.enqueue = async (mail, templateName) => {
    const id = await enqueue(mail, templateName);
    mails.set(id, mail);
    return id;
  };
}

/** The mail as queued (subject and bodies), when this app queued it. */
export function queuedMail(ctx: AppContext, outboxId: string): OutgoingMail | undefined {
  return queued.get(ctx)?.get(outboxId);
}
