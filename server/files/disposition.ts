/**
 * `Content-Disposition: attachment` for any file name (RFC 6266 with RFC 8187's
 * `filename*`). A header value is bytes, so a name outside ASCII cannot go in `filename`
 * as it is: that part gets an ASCII stand-in for old clients, and `filename*` carries the
 * real name in UTF-8, which current browsers prefer.
 */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (fallback === name) return `attachment; filename="${name}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** Percent-encodes everything outside RFC 8187's attr-char set. */
function encodeRfc8187(s: string): string {
  return encodeURIComponent(s).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** A stored file's bytes as a download: its type, length and name, never sniffed by the browser. */
export function fileBytesResponse(f: { name: string; mimeType: string | null }, bytes: Uint8Array, headers: Record<string, string> = {}): Response {
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: {
      'Content-Type': f.mimeType ?? 'application/octet-stream',
      'Content-Length': String(bytes.length),
      'Content-Disposition': attachmentDisposition(f.name),
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    },
  });
}
