import { afterAll, beforeAll } from 'vitest';
import { buildTestApp, type TestApp, type TestAppOptions } from './build-test-app';
import { listen, type TestSocket } from './socket-client';

/** A test app on a real port, for socket tests; fields are filled once beforeAll has run. */
export interface ListeningApp {
  t: TestApp;
  baseUrl: string;
  /** Sockets to close after the suite (push each one a test opens). */
  sockets: TestSocket[];
}

/**
 * Registers the beforeAll/afterAll of a socket suite: the app built with `options` and listening on
 * a free port; afterwards the sockets pushed to `sockets` are closed and the app with them.
 */
export function useListeningApp(options: TestAppOptions | (() => TestAppOptions) = {}): ListeningApp {
  const app = { sockets: [] as TestSocket[] } as ListeningApp;
  beforeAll(async () => {
    app.t = await buildTestApp(typeof options === 'function' ? options() : options);
    app.baseUrl = await listen(app.t.app);
  });
  afterAll(async () => {
    for (const socket of app.sockets) socket.close();
    await app.t?.close();
  });
  return app;
}
