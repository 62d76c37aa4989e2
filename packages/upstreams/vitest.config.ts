import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

// Real upstream servers (npx-started reference servers among them) take longer to start than a gateway.
export default defineConfig(packageTestConfig({ testTimeout: 60_000, hookTimeout: 60_000 }));
