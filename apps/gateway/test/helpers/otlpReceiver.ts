import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON body carries it, its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly serviceName: string | undefined;
}

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: string | number;
  readonly boolValue?: boolean;
  readonly doubleValue?: number;
}
interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}
interface OtlpBody {
  readonly resourceSpans?: ReadonlyArray<{
    readonly resource?: { readonly attributes?: readonly OtlpAttribute[] };
    readonly scopeSpans?: ReadonlyArray<{
      readonly spans?: ReadonlyArray<{
        readonly traceId: string;
        readonly spanId: string;
        readonly parentSpanId?: string;
        readonly name: string;
        readonly kind: number;
        readonly attributes?: readonly OtlpAttribute[];
      }>;
    }>;
  }>;
}

const flatten = (attributes: readonly OtlpAttribute[] = []): Record<string, string | number | boolean> =>
  Object.fromEntries(
    attributes.map((a) => [
      a.key,
      a.value.stringValue ?? a.value.boolValue ?? a.value.doubleValue ?? Number(a.value.intValue),
    ]),
  );

/** A real OTLP/HTTP traces receiver on loopback: decodes the JSON bodies it is sent and keeps their spans. */
export interface OtlpReceiver {
  /** The traces URL to configure as `observability.tracing.endpoint`. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Every request's raw body and content type (a protobuf body is kept undecoded). */
  readonly bodies: Array<{
    readonly contentType: string;
    readonly body: Buffer;
    readonly headers: Record<string, unknown>;
  }>;
  close(): Promise<void>;
}

/** Starts an OTLP/HTTP receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: OtlpReceiver['bodies'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      bodies.push({ contentType, body, headers: { ...request.headers } });
      if (contentType.startsWith('application/json')) {
        const parsed = JSON.parse(body.toString('utf8')) as OtlpBody;
        for (const resource of parsed.resourceSpans ?? []) {
          const serviceName = flatten(resource.resource?.attributes)['service.name'];
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: flatten(span.attributes),
                serviceName: typeof serviceName === 'string' ? serviceName : undefined,
              });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
