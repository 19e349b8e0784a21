// Types of readme-test.mjs, for the TypeScript tests that import it.
import type { Block } from './markdown-blocks.mjs';

export interface CheckResult { ok: boolean; out: string; err: string; text: string }
export function readmeWalk(text: string): { install: string[] | undefined; quickStart: string[] | undefined; walkCount: number; nodeBlocks: Block[] };
export function walkReadme(options: {
  tarball: string;
  tarballName: string;
  work: string;
  check: (name: string, ok: boolean, detail?: string) => boolean;
  run: (command: string, args: string[], cwd: string) => CheckResult;
}): Promise<void>;
