import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Span as SdkSpan,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { ATTR_RPC_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions/incubating';
import { createSecretRedactor, type SecretRedactor } from './redactSecrets.js';

/** How traces are exported (`observability.tracing`; docs/observability.md). */
export interface TracingOptions {
  /** The OTLP/HTTP traces URL. */
  readonly endpoint: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  /** Header name -> value, read from the environment by the composition root. */
  readonly headers: Readonly<Record<string, string>>;
  /** Share of new traces recorded; a caller's sampled flag decides for its own trace. */
  readonly sampleRatio: number;
  readonly serviceName: string;
  /** The gateway's redactor, applied to every span's name and string attributes before export. */
  readonly redact?: SecretRedactor;
}

/** W3C trace context as carried in `params._meta` (SEP-414) or HTTP headers. */
export interface TraceCarrier {
  readonly traceparent?: unknown;
  readonly tracestate?: unknown;
}

/** The span of one MCP request: attributes may be added until it ends. */
export interface RequestSpan {
  /** Runs fn with this span as the parent of every span started inside it (and of outgoing trace context). */
  run<T>(fn: () => T): T;
  /** Adds attributes: never a token, argument value or file content. */
  set(attributes: Attributes): void;
  /** Marks the request failed: `error.type`, and `rpc.response.status_code` for a JSON-RPC error code. */
  fail(errorType: string, statusCode?: number): void;
  end(): void;
}

/** Tracing of the gateway's MCP requests; absent (undefined) when `observability.tracing` has no endpoint. */
export interface Tracing {
  /** Starts the SERVER span of one MCP request, a child of the caller's trace when it sent one. */
  startRequest(name: string, attributes: Attributes, parent: TraceCarrier | undefined): RequestSpan;
  /** Attributes for the current request's span (a tool handler names the skill it resolved). */
  annotate(attributes: Attributes): void;
  /** Runs fn in a child span of the current request (none outside one); the span ends when fn settles. */
  inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T>;
  /** The current trace context as `_meta` entries for an outgoing request, or undefined outside a span. */
  outgoingMeta(): Record<string, string> | undefined;
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();

/** The context a request continues: the caller's trace from `_meta` or headers, else a new root. */
const parentContext = (carrier: TraceCarrier | undefined): Context => {
  if (carrier === undefined || typeof carrier.traceparent !== 'string') return ROOT_CONTEXT;
  const fields: Record<string, string> = { traceparent: carrier.traceparent };
  if (typeof carrier.tracestate === 'string') fields.tracestate = carrier.tracestate;
  return propagator.extract(ROOT_CONTEXT, fields, defaultTextMapGetter);
};

/**
 * Passes every span's name and string attributes, however they were set (a request's, a handler's, an
 * instrumentation's), through the redactor while the span can still be written: a configured secret that a
 * client or an upstream put in a value is never exported.
 */
function redactingProcessor(redact: SecretRedactor): SpanProcessor {
  return {
    onStart() {},
    onEnding(span: SdkSpan) {
      const name = redact(span.name);
      if (name !== span.name) span.updateName(name);
      for (const [key, value] of Object.entries(span.attributes)) {
        if (typeof value === 'string') {
          const cleaned = redact(value);
          if (cleaned !== value) span.setAttribute(key, cleaned);
        } else if (Array.isArray(value)) {
          const cleaned = value.map((v: unknown) => (typeof v === 'string' ? redact(v) : v));
          if (cleaned.some((v, i) => v !== value[i])) span.setAttribute(key, cleaned as typeof value);
        }
      }
    },
    onEnd() {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

/** Where the current request's span lives while its handlers run. */
interface Current {
  readonly context: Context;
  readonly span: Span;
}

/**
 * Creates the OpenTelemetry tracer of one gateway, with a provider of its own (never the global one: several
 * gateways may share a process, and the host application may have its own). Spans are batched and sent to
 * the OTLP/HTTP endpoint; a collector that is down costs dropped spans, never a failed request.
 */
export function createTracing(options: TracingOptions): Tracing {
  const exporterOptions = { url: options.endpoint, headers: { ...options.headers } };
  const exporter =
    options.protocol === 'http/json'
      ? new JsonExporter(exporterOptions)
      : new ProtobufExporter(exporterOptions);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }),
    spanProcessors: [
      redactingProcessor(options.redact ?? createSecretRedactor([])),
      new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 }),
    ],
  });
  const tracer: Tracer = provider.getTracer('skillgate');
  // Our own store rather than a global context manager: only code that runs inside a request's run() sees it.
  const store = new AsyncLocalStorage<Current>();

  return {
    startRequest(name, attributes, carrier) {
      const parent = parentContext(carrier);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
      const current: Current = { context: trace.setSpan(parent, span), span };
      return {
        run: (fn) => store.run(current, fn),
        set: (more) => span.setAttributes(more),
        fail(errorType, statusCode) {
          span.setAttribute(ATTR_ERROR_TYPE, errorType);
          if (statusCode !== undefined) span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, String(statusCode));
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
        end: () => span.end(),
      };
    },
    annotate(attributes) {
      store.getStore()?.span.setAttributes(attributes);
    },
    async inSpan(name, attributes, fn) {
      const current = store.getStore();
      // Outside a request (a health sweep's Redis round trip) there is nothing to be a child of: no span.
      if (current === undefined) return fn(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
      const parent = current.context;
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
      const inner: Current = { context: trace.setSpan(parent, span), span };
      try {
        return await store.run(inner, () => fn(span));
      } catch (error) {
        span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : 'error');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
    outgoingMeta() {
      const current = store.getStore();
      if (current === undefined) return undefined;
      const meta: Record<string, string> = {};
      propagator.inject(current.context, meta, defaultTextMapSetter);
      return meta.traceparent === undefined ? undefined : meta;
    },
    shutdown: () => provider.shutdown(),
  };
}
