import { z } from 'zod';

/**
 * Inputs that end up as a URL a browser follows or loads (an IdP sign-on URL handed to
 * `location.assign`, a logout redirect, an avatar `src`). `z.url()` alone accepts
 * `javascript:` and `data:`, which turn a stored setting into script in someone else's page.
 */

const LOOPBACK_HOSTS = /^(localhost|[\w-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Browsers drop tabs and newlines inside URLs and read `\` as `/`: what we check must be what they follow. */
const AMBIGUOUS = /[\u0000-\u0020\u007f-\u009f\\]/;

export function browserUrlProblem(value: string): string | null {
  if (AMBIGUOUS.test(value)) return 'must not contain spaces, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https URL';
  }
  const loopback = LOOPBACK_HOSTS.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return 'must be an https URL (http only on localhost)';
  if (!url.hostname) return 'must name a host';
  if (url.username || url.password) return 'must not carry credentials';
  return null;
}

const refined = (schema: z.ZodString) =>
  schema.superRefine((value, ctx) => {
    const problem = browserUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A URL a browser will follow: https, or http on a loopback host; no credentials, no ambiguity. */
export const BrowserUrl = refined(z.string().max(2048));

/** Raster image types only: an SVG can carry script. */
const IMAGE_DATA_URI = /^data:image\/(png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/]+={0,2}$/;

/** An image: a browser URL as above, or where the spec allows it, a base64 raster-image data URI. */
export const ImageUrlOrDataUri = z
  .string()
  .max(2_000_000)
  .superRefine((value, ctx) => {
    if (value.startsWith('data:')) {
      if (!IMAGE_DATA_URI.test(value)) ctx.addIssue({ code: 'custom', message: 'must be an https URL or a base64 PNG, JPEG, GIF, WebP or AVIF data URI' });
      return;
    }
    if (value.length > 2048) return ctx.addIssue({ code: 'custom', message: 'must be at most 2048 characters' });
    const problem = browserUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
