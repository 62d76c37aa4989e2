// Writes the metrics table of docs/observability.md from the gateway's series table: pnpm docs:metrics
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withMetricsTable } from '@skillgate/gateway';

const file = join(import.meta.dirname, '..', 'docs', 'observability.md');
await writeFile(file, withMetricsTable(await readFile(file, 'utf8')));
