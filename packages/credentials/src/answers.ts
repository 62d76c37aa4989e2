import { CredentialsError } from './credentialsError.js';
import type { CredentialAnswer } from './types.js';

/** The answer for a principal that has to connect to `provider` first. */
export const connectAnswer = (provider: string) => ({ kind: 'connect', provider }) as const;

/** The answer for a call refused for a reason the error names. */
export const refusedAnswer = (error: CredentialsError) =>
  ({ kind: 'refused', code: error.code, message: error.message }) as const;

/** `Authorization: Bearer <token>` as an answer. */
export const bearerAnswer = (token: string) =>
  ({ kind: 'headers', headers: { Authorization: `Bearer ${token}` } }) as const;

/** A token of a principal's connection (an OAuth access token or a secret), or why not. */
export type TokenAnswer = CredentialAnswer<{ readonly kind: 'token'; readonly token: string }>;

/** Runs work whose expected failures (CredentialsError) become refused answers; anything else is thrown. */
export async function answering<T>(work: () => Promise<T>): Promise<T | ReturnType<typeof refusedAnswer>> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CredentialsError) return refusedAnswer(error);
    throw error;
  }
}
