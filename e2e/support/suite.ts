import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, newContext } from './browser';
import { connectMailbox, type SmtpCatcher } from './mailbox';
import { startServer, type RunningServer, type StartOptions } from './server';

export interface Suite {
  server: RunningServer;
  browser: Browser;
  /** Set when the suite asked for a mailbox: SecureRing's SMTP then points at it. */
  mailbox: SmtpCatcher;
  /** A fresh browser context (closed after the suite) with the cookie banner answered. */
  page(width?: number, height?: number): Promise<Page>;
}

/**
 * Registers the usual beforeAll/afterAll of a browser spec: the built server on a free port, Debian
 * Chromium, optionally a real SMTP server. Fields are filled once beforeAll has run.
 */
export function useSuite(options: StartOptions & { mailbox?: boolean } = {}): Suite {
  const contexts: BrowserContext[] = [];
  const suite = {} as Suite;
  beforeAll(async () => {
    suite.server = await startServer(options);
    if (options.mailbox) suite.mailbox = await connectMailbox(suite.server.url);
    suite.browser = await launchBrowser();
    suite.page = async (width = 1280, height = 800) => {
      const context = await newContext(suite.browser, width, height);
      await context.addCookies([{ name: 'cookie_consent', value: 'essential', url: suite.server.url }]);
      contexts.push(context);
      return context.newPage();
    };
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await suite.browser?.close();
    await suite.mailbox?.stop();
    await suite.server?.stop();
  });
  return suite;
}
