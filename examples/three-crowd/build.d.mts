/** The crowd page's HTML with its script inlined (see build.mjs). */
export function bundleCrowdPage(): Promise<string>;
