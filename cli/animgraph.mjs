#!/usr/bin/env node
// The package is TypeScript run without a build step: tsx's loader compiles modules on import.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
