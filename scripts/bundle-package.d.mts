// Types of bundle-package.mjs, for the TypeScript tests that import it.
export const ENTRIES: Readonly<Record<string, string>>;
export const CHUNKS: string;
export const LAYERS: readonly { name: string; holds: (input: string) => boolean }[];
export const PROXY_NAMESPACE: string;
/** esbuild's metafile of the bundle (see esbuild's Metafile). */
export interface BundleMeta {
  outputs: Record<string, {
    bytes: number;
    inputs: Record<string, unknown>;
    imports: { path: string; kind: string; external?: boolean }[];
    entryPoint?: string;
  }>;
}
export function bundlePackage(options: {
  root: string;
  outdir: string;
  external?: string[];
  existing?: (file: string) => boolean;
}): Promise<BundleMeta>;
