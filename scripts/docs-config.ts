// Writes docs/configuration.md from the config schema: pnpm docs:config
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderConfigReference } from '@skillgate/config';

await writeFile(join(import.meta.dirname, '..', 'docs', 'configuration.md'), renderConfigReference());
