import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { noticeLinkPage, openNoticeLink } from './link';

const tags = ['Notices'];
const Token = z.string().min(16).max(200);

/** A notice's one-time link (link.ts): GET shows a page and spends nothing; POST spends it and signs in. */
export const noticeEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/notices/open',
    summary: 'The page a notice’s one-time link opens: a button that continues into the hosted app (opening it spends nothing)',
    tags,
    auth: 'none',
    raw: true,
    response: z.unknown(),
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
    response: z.unknown(),
    errors: [400, 410],
    handle: async ({ db, req }) => {
      const token = Token.safeParse(new URLSearchParams(await req.text()).get('token'));
      if (!token.success) return noticeLinkPage(db, '');
      return openNoticeLink(db, token.data);
    },
  }),
];
