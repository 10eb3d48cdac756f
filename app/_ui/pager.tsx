import Link from 'next/link';

/** Previous / next links for a paged list; the page number lives in the URL (`param`). */
export function Pager({ label, param, page, perPage, total }: { label: string; param: string; page: number; perPage: number; total: number }) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages === 1) return null;
  return (
    <nav aria-label={`${label} pages`}>
      {page > 1 && <Link href={`?${param}=${page - 1}`}>Previous page</Link>} <span>
        Page {page} of {pages}
      </span>{' '}
      {page < pages && <Link href={`?${param}=${page + 1}`}>Next page</Link>}
    </nav>
  );
}

/** A page number from the URL: a positive integer, else 1. */
export const pageParam = (v: string | string[] | undefined) => {
  const n = Number(Array.isArray(v) ? v[0] : v);
  return Number.isInteger(n) && n > 0 ? n : 1;
};
