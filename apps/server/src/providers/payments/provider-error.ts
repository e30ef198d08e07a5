/** A payment provider refused or failed a call; the message is for logs, not for customers. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly status?: number,
    readonly body?: unknown,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
  }
}

/** JSON fetch with a timeout; non-2xx answers become ProviderError with the body kept. */
export async function fetchJson<T>(
  provider: string,
  url: string,
  init: RequestInit,
  timeoutMs = 20_000,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new ProviderError(
      provider,
      `network error on ${new URL(url).pathname}: ${(error as Error).message}`,
    );
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the raw text for the log
  }
  if (!response.ok)
    throw new ProviderError(
      provider,
      `HTTP ${response.status} on ${new URL(url).pathname}`,
      response.status,
      body,
    );
  return body as T;
}
