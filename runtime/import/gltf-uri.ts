/**
 * A glTF file's URIs: where an external one points (and whether that is inside the file's own
 * folder), and the bytes of a `data:` one.
 */

/**
 * A .gltf's URI as the path it names: percent-decoded (a malformed escape is left as written, and
 * the file is then not found).
 */
export function decodeGltfUri(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/**
 * Why a .gltf's external URI (not a data: URI) does not name a file in the .gltf's own folder or
 * below, or undefined when it does: it has a scheme (`file:`, `https:`; a drive letter `C:` too), it
 * is an absolute path, or its `..` segments climb above the folder. Decoded first, as it is read,
 * so `%2e%2e/` counts as `../`; `\` separates as `/` does.
 */
export function gltfUriOutsideFolder(uri: string): string | undefined {
  const path = decodeGltfUri(uri);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(path);
  if (scheme) return `it has a scheme ('${scheme[1]}:')`;
  if (/^[/\\]/.test(path)) return 'it is an absolute path';
  let depth = 0;
  for (const segment of path.split(/[/\\]/)) {
    if (segment === '..') depth--;
    else if (segment !== '' && segment !== '.') depth++;
    if (depth < 0) return "its '..' leads above the folder";
  }
  return undefined;
}

/**
 * The bytes of a `data:` URI (RFC 2397), or why it has none. The data after the comma is
 * percent-decoded to bytes (`%80%FF` is the bytes 0x80 0xFF; other characters stand for their
 * UTF-8 bytes), then, when the media type ends in `;base64`, decoded as base64 (whitespace ignored).
 */
export function decodeDataUri(uri: string): Uint8Array | string {
  const comma = uri.indexOf(',');
  if (comma < 0) return 'has no comma before its data';
  const bytes = percentDecode(uri.slice(comma + 1));
  if (typeof bytes === 'string' || !/;base64$/i.test(uri.slice(0, comma))) return bytes;
  let text: string;
  try {
    text = atob(latin1(bytes));
  } catch {
    return 'is not valid base64';
  }
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Percent-escapes as their bytes, other characters as their UTF-8 bytes; or why not. */
function percentDecode(data: string): Uint8Array | string {
  const encoder = new TextEncoder();
  if (!data.includes('%')) return encoder.encode(data);
  const out = new Uint8Array(data.length * 3); // the most UTF-8 bytes a UTF-16 unit takes
  let n = 0, from = 0;
  for (let at = data.indexOf('%'); at >= 0; at = data.indexOf('%', from)) {
    n += encoder.encodeInto(data.slice(from, at), out.subarray(n)).written;
    const high = hexDigit(data.charCodeAt(at + 1)), low = hexDigit(data.charCodeAt(at + 2));
    if (high < 0 || low < 0) return `has a malformed percent escape '${data.slice(at, at + 3)}' (a '%' needs two hex digits)`;
    out[n++] = high * 16 + low;
    from = at + 3;
  }
  n += encoder.encodeInto(data.slice(from), out.subarray(n)).written;
  return out.slice(0, n);
}

/** A hex digit's value, or -1 (NaN, past the end, included). */
function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

/** Bytes as a string of the characters U+0000..U+00FF, for atob. */
function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
}
