/**
 * The Content-Security-Policy of the hosted app's pages. Scripts run only with this response's
 * nonce (Next.js puts it on its own script tags and inline bootstrap when it finds it in the
 * request's policy); 'strict-dynamic' lets those scripts load the app's chunks. An injected
 * `<script>`, inline handler or `javascript:` URL has no nonce and does not run.
 * Development needs 'unsafe-eval' (React rebuilds server error stacks with eval).
 */
export function pagePolicy(nonce: string, development = false): string {
  return [
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** 128 random bits, base64: a fresh nonce per page response. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
