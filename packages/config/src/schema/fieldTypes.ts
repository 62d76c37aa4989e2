import { z } from 'zod';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// A week bounds every duration: larger values are typos, and they would overflow Node's 32-bit timers.
/** A duration in seconds, at most `max` (a week by default). */
export const seconds = (max = 7 * 86_400) => z.number().positive().max(max);

/** An integer of at least `min`. */
export const count = (min = 1) => z.number().int().min(min);

/** A skill-name glob. */
export const glob = z.string().min(1).max(256);

/** The name of an environment variable. */
export const envName = z.string().regex(ENV_NAME, 'must be an environment variable name');

/** Whether a value is an http:// or https:// URL without credentials in it. */
export const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
};
