import { z } from 'zod';
import { envName, headerName, isHttpUrl } from './fieldTypes.js';

/** Every `observability.tracing.protocol`: OTLP over HTTP, protobuf or JSON bodies. */
const TRACING_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

const tracingSchema = z.strictObject({
  endpoint: z
    .string()
    .refine(isHttpUrl, 'must be an http:// or https:// URL without credentials (use headers_from_env)')
    .optional()
    .describe(
      'OTLP/HTTP traces endpoint, the full URL (e.g. http://otel-collector:4318/v1/traces); tracing is off unless it is set.',
    ),
  protocol: z
    .enum(TRACING_PROTOCOLS)
    .default('http/protobuf')
    .describe('OTLP body encoding: http/protobuf or http/json.'),
  headers_from_env: z
    .record(headerName, envName)
    .default({})
    .describe(
      'HTTP headers sent to the collector: header name -> environment variable holding its whole value (e.g. Authorization).',
    ),
  sample_ratio: z
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe(
      "Share of new traces recorded; parent-based: a request whose caller's trace is sampled is always recorded, one whose caller's is not never is.",
    ),
  service_name: z.string().min(1).max(256).default('skillgate').describe('`service.name` of the spans.'),
});

/** The `observability` config section (docs/observability.md). */
export const observabilitySchema = z.strictObject({
  tracing: tracingSchema.prefault({}),
  metrics_port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .nullable()
    .default(null)
    .describe(
      'Serve /metrics only on this port (on server.host), tokenless, not on server.port; unset: /metrics is on the main port, where with auth configured it takes an admin token. 0 = any free port.',
    ),
  keep_queries: z
    .boolean()
    .default(false)
    .describe(
      'Keep the text of search_skills queries that found nothing (secrets redacted, cut to server.max_client_string_chars, the 100 most searched) for the operator page; off: only their count.',
    ),
});
