import { expect, test, type Page } from '@playwright/test';
import { daysFrom } from '../app/calendar/days';
import type { Radicale } from '../tests/helpers/radicale';
import { connectSeededCalendar, startCalendarServer } from './support/calendar';
import { api, signInByEmail } from './support/harness';
import { as, startTask, taskReaches, type Person } from './support/hosted-app';
import { askUserDirective, proposeDirective, sendEmailDirective } from './support/model-script';
import { captureScreens, type Shot } from './support/screens';

/*
 * docs/screens/*.png of the hosted app, taken on demand (not by npm test; e2e/support/screens.ts):
 *
 *   npm run screens
 *
 * The account is "Larkspur" (e2e/global-setup.ts); Maya Lindqvist runs the organization
 * "Northwind Studio" and has an assistant named Juniper with something on every page: a question,
 * emails to approve, a proposed task, a chat, contacts, memories and a standing instruction.
 * Every page at 1280 and 390 px, signed out and signed in, the organization's admin sections,
 * the team, and home in the dark scheme.
 */

test.describe.configure({ mode: 'serial' });

const stamp = Date.now().toString(36);
const email = `maya.lindqvist-${stamp}@northwind-e2e.test`;
let maya: Person;
let orgId = '';
let teamId = '';
let taskId = '';
let chatId = '';
let contactId = '';
let radicale: Radicale | undefined;

async function signIn(page: Page) {
  await signInByEmail(page, email);
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  orgId = (await api('/organizations', { body: { name: 'Northwind Studio' } })).body.organization.id;
  const provisioned = await api('/users/provision', { body: { email, firstName: 'Maya', lastName: 'Lindqvist' } });
  expect(provisioned.status, JSON.stringify(provisioned.body)).toBeLessThan(300);
  const id = provisioned.body.user.id as string;
  expect((await api(`/users/${id}`, { method: 'PUT', body: { organization: orgId, organizationRole: 'admin' } })).status).toBe(200);
  for (const [p, method, body] of [
    ['/profile', 'PATCH', { timezone: 'Europe/Paris' }],
    [`/users/${id}/preferences/scheduling`, 'PUT', { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } }],
    ['/onboarding/mark-onboarded', 'POST', {}],
  ] as const) expect((await api(p, { method, body, as: email })).status).toBe(200);
  const hired = await api(`/users/${id}/assistants`, { body: { name: 'Juniper' }, as: email });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  maya = { email, id, assistantId: hired.body.assistant.id as string };
  teamId = (await api('/teams', { as: email, body: { name: 'Design' } })).body.team.id;
  expect((await as(maya)(`/users/${id}/preferences/supervision/matrix`, { method: 'PATCH', body: { matrix: { email_as_assistant: { mode: 'manual' } } } })).status).toBe(200);

  taskId = await startTask(maya, 'Book the dentist', `Find a slot with Dr. Okafor next week. ${askUserDirective({ id: `s-ask-${stamp}`, question: 'Dr. Okafor has Tuesday at 10:30 or Thursday at 16:00. Which one suits you?' })}`);
  const landlord = await startTask(
    maya,
    'Write to the landlord about the boiler',
    sendEmailDirective({ id: `s-mail-${stamp}`, to: ['marta.ruiz@ruiz-lettings.test'], subject: 'The boiler, again', body: 'Hello Marta,\n\nThe boiler stopped working again this morning. Could someone come by on Friday between 9 and 12?\n\nThank you,\nMaya' }),
  );
  const thanks = await startTask(
    maya,
    'Thank Priya for the introduction',
    sendEmailDirective({ id: `s-mail2-${stamp}`, to: ['priya.nair@lumen-partners.test'], subject: 'Thank you', body: 'Dear Priya,\n\nThank you for introducing me to Jonas. We are meeting next Wednesday.\n\nBest,\nMaya' }),
  );
  const proposer = await startTask(maya, 'Plan the studio offsite', proposeDirective({ id: `s-prop-${stamp}`, title: 'Ask three venues in Lyon for quotes', description: 'For 12 people on 14 and 15 May, with a meeting room and lunch.' }));
  await taskReaches(maya, taskId, (t) => t.status === 'awaiting_user_input', 'the dentist task asks');
  await taskReaches(maya, landlord, (t) => t.pendingCart !== null, 'the landlord email is staged');
  await taskReaches(maya, thanks, (t) => t.pendingCart !== null, 'the thank-you email is staged');
  await taskReaches(maya, proposer, (t) => t.status === 'completed', 'the offsite task proposes a follow-up');

  const chat = await as(maya)('/chats', { body: { assistantId: maya.assistantId, title: 'Weekend plans' } });
  chatId = chat.body.chat.id;
  const res = await fetch(`${process.env.E2E_BASE_URL}/api/chats/${chatId}/process`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${process.env.E2E_API_KEY}`, 'X-User-Email': email, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: { content: 'Any ideas for Saturday?' } }),
  });
  await res.text();

  for (const c of [
    { email: 'marta.ruiz@ruiz-lettings.test', name: 'Marta Ruiz', title: 'Landlord', company: { name: 'Ruiz Lettings' } },
    { email: 'priya.nair@lumen-partners.test', name: 'Priya Nair', title: 'Partner', company: { name: 'Lumen Partners' } },
    { email: 'jonas.weber@kiln-studio.test', name: 'Jonas Weber', title: 'Founder', company: { name: 'Kiln Studio' } },
  ]) {
    const made = await as(maya)('/contacts', { body: c });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    contactId ||= made.body.contact.id;
  }
  for (const content of ['Maya prefers morning appointments, before 11.', 'The studio’s accountant is Lea Martin at Martin & Fils.', 'Maya is vegetarian; book restaurants with good vegetarian options.'])
    expect((await as(maya)('/memories', { body: { content } })).status).toBeLessThan(300);
  expect((await as(maya)('/skills', { body: { kind: 'instructions', name: 'house-style', title: 'Northwind house style', instructions: 'Sign emails “Maya” and keep them short.' } })).status).toBeLessThan(300);

  // A CalDAV calendar (Radicale on loopback, e2e/support/calendar.ts) with a week of plans, in Paris time.
  radicale = await startCalendarServer();
  const days = daysFrom(new Date(), 'Europe/Paris', 7);
  const at = (day: number, hours: number, minutes = 60) => ({ start: new Date(days[day].start.getTime() + hours * 3_600_000), end: new Date(days[day].start.getTime() + hours * 3_600_000 + minutes * 60_000) });
  await connectSeededCalendar(radicale, email, { studio: { name: 'Studio', color: '#2f6fdbff' }, home: { name: 'Home', color: '#d9822bff' } }, [
    { uid: `s-standup-${stamp}`, calendar: 'studio', title: 'Studio stand-up', ...at(0, 9.5, 30) },
    { uid: `s-lunch-${stamp}`, calendar: 'home', title: 'Lunch with Jonas', location: 'Café Lumière', ...at(0, 12.5, 75) },
    { uid: `s-priya-${stamp}`, calendar: 'studio', title: 'Call with Priya Nair', ...at(1, 11, 45) },
    { uid: `s-review-${stamp}`, calendar: 'studio', title: 'Offsite venue review', location: 'Meeting room 2', ...at(2, 15) },
    { uid: `s-dentist-${stamp}`, calendar: 'home', title: 'Dentist, Dr. Okafor', location: '12 rue des Lilas', ...at(4, 10.5, 45) },
  ]);
});

test.afterAll(async () => {
  await radicale?.close();
});

const SIGNED_OUT: Shot[] = [
  { name: 'front', path: '/' },
  { name: 'sign-in', path: '/sign-in' },
];

const openFirstRow = async (page: Page, width: 'desktop' | 'phone') => {
  if (width === 'phone') await page.getByRole('list', { name: 'What needs you' }).getByRole('button', { name: 'Write to the landlord about the boiler', exact: true }).click();
  else await page.getByRole('list', { name: 'What needs you' }).getByRole('button', { name: 'Write to the landlord about the boiler', exact: true }).focus();
  await page.waitForTimeout(400);
};

const SIGNED_IN: Shot[] = [
  { name: 'home', path: '/' },
  { name: 'inbox', path: '/inbox', prepare: openFirstRow, fullPage: false },
  { name: 'tasks', path: '/tasks' },
  { name: 'task', path: () => `/tasks/${taskId}` },
  { name: 'chats', path: '/chats' },
  { name: 'chat', path: () => `/chats/${chatId}`, fullPage: false },
  { name: 'approvals', path: '/approvals' },
  { name: 'handoffs', path: '/handoffs' },
  { name: 'sent', path: '/sent' },
  { name: 'memories', path: '/memories' },
  { name: 'calendar', path: '/calendar' },
  { name: 'contacts', path: '/contacts' },
  { name: 'contact', path: () => `/contacts/${contactId}` },
  { name: 'files', path: '/files' },
  { name: 'skills', path: '/skills' },
  { name: 'usage', path: '/usage' },
  { name: 'settings', path: '/settings' },
  { name: 'settings-autonomy', path: '/settings/autonomy' },
  { name: 'settings-identifiers', path: '/settings/identifiers' },
  { name: 'settings-channels', path: '/settings/channels' },
  { name: 'settings-api-keys', path: '/settings/api-keys' },
  { name: 'organization', path: () => `/organizations/${orgId}` },
  { name: 'organization-members', path: () => `/organizations/${orgId}/members` },
  { name: 'organization-sign-in', path: () => `/organizations/${orgId}/sign-in` },
  { name: 'organization-domains', path: () => `/organizations/${orgId}/domains` },
  { name: 'organization-keys', path: () => `/organizations/${orgId}/keys` },
  { name: 'organization-capabilities', path: () => `/organizations/${orgId}/capabilities` },
  { name: 'organization-audit', path: () => `/organizations/${orgId}/audit` },
  { name: 'team', path: () => `/teams/${teamId}` },
  { name: 'not-found', path: '/no-such-page' },
];

test('hosted app screens at 1280 and 390 px, signed out and signed in', async ({ browser }) => {
  test.setTimeout(600_000);
  await captureScreens(browser, SIGNED_OUT);
  await captureScreens(browser, SIGNED_IN, { signIn });
  await captureScreens(browser, [{ name: 'home', path: '/' }], { signIn, colorScheme: 'dark', suffix: '-dark' });
});
