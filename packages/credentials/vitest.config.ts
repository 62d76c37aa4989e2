import { defineConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.js';

// Real servers (an authorization server, redis-server) start in each file's hooks.
export default defineConfig(packageTestConfig({ testTimeout: 30_000, hookTimeout: 30_000 }));
