/**
 * A Chat Completions base URL as the provider package uses it: `<base>/chat/completions` is
 * appended to the string, so a query or fragment would end up in the wrong place, and
 * credentials in the URL would be stored and logged in clear (the key has its own setting).
 * Returns the URL without a trailing slash, or the problem with it.
 */
export function parseBaseUrl(value: string): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { problem: 'must be an http(s) URL such as http://localhost:11434/v1' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must be an http or https URL' };
  if (url.username || url.password) return { problem: 'must not carry credentials; give the key separately' };
  if (url.search || url.hash) return { problem: 'must not have a query or fragment' };
  return { url: url.toString().replace(/\/+$/, '') };
}
