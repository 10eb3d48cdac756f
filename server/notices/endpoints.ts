import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { noticeLinkPage, openNoticeLink } from './link';

const tags = ['Notices'];
const Token = z.string().min(16).max(200);
/** Both answers are pages a person reads (link.ts): the button, or "this link no longer works" with 410. */
const Page = z.string().meta({ description: 'An HTML page' });
const produces = { mediaType: 'text/html', statuses: [410] };

/** A notice's one-time link (link.ts): GET shows a page and spends nothing; POST spends it and signs in. */
export const noticeEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/notices/open',
    summary: 'The page a notice’s one-time link opens: a button that continues into the hosted app (opening it spends nothing)',
    tags,
    auth: 'none',
    raw: true,
    produces,
    response: Page,
    errors: [400, 410],
    handle: async ({ db, req }) => {
      const token = Token.safeParse(new URL(req.url).searchParams.get('token'));
      if (!token.success) return noticeLinkPage(db, '');
      return noticeLinkPage(db, token.data);
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/notices/open',
    summary: 'Spends a notice’s one-time link (form field token): signs its user in where email sign-in is theirs and redirects to the page it is about',
    tags,
    auth: 'none',
    raw: true,
    produces,
    response: Page,
    // 303 to the hosted app when the link is spent; 410 (the page) when it no longer works.
    errors: [303, 400, 410],
    handle: async ({ db, req }) => {
      const token = Token.safeParse(new URLSearchParams(await req.text()).get('token'));
      if (!token.success) return noticeLinkPage(db, '');
      return openNoticeLink(db, token.data);
    },
  }),
];
