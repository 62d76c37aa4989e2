import type { FastifyReply } from 'fastify';
import { GatewayError } from '../errors/gatewayError.js';
import { pageHeaders } from './connectPages.js';

/** The headers of every connect page (CSP, no caching, referrer policy: connectPages.ts). */
export const PAGE_HEADERS = pageHeaders();

/** A provider id as the config allows it; anything else names no connection. */
export const PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** Sends a page of the connect routes. */
export const sendPage = (
  reply: FastifyReply,
  page: string,
  status = 200,
  headers: Record<string, string> = PAGE_HEADERS,
): FastifyReply => reply.code(status).headers(headers).type('text/html; charset=utf-8').send(page);

/** A link or callback that is unknown, expired or used. */
export const expired = (): GatewayError =>
  new GatewayError(
    'CONNECT_LINK_EXPIRED',
    'This link is unknown, expired or already used. Ask your agent again for a new one.',
  );
