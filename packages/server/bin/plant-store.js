#!/usr/bin/env node
// The `plant-store` command: runs the TypeScript CLI through tsx, so the service needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
