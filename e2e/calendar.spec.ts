import { expect, test, type Page } from '@playwright/test';
import { daysFrom } from '../app/calendar/days';
import type { Radicale } from '../tests/helpers/radicale';
import { connectSeededCalendar, markConnection, startCalendarServer } from './support/calendar';
import { signInByEmail } from './support/harness';
import { as, checkPage, expectPhoneFriendly, newPerson, screen, WIDTHS } from './support/hosted-app';

/*
 * Issues 43 and 45, the Calendar page, at 1280 and 390 px: with nothing connected it says what to
 * do; a CalDAV form the server refuses shows each problem under its field; a connected calendar
 * (a real CalDAV server, e2e/support/calendar.ts) shows its connection, today's busy and free
 * time and the next 7 days in the person's time zone; choosing the calendars read changes the
 * agenda and what the API reports; a revoked connection offers to reconnect; disconnecting
 * empties the page.
 */

let radicale: Radicale;
test.beforeAll(async () => {
  radicale = await startCalendarServer();
});
test.afterAll(async () => {
  await radicale?.close();
});

const HOUR = 3_600_000;

async function openCalendar(page: Page, width: keyof typeof WIDTHS) {
  if (width === 'phone') {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'More' }).click();
    await page.getByRole('dialog', { name: 'More' }).getByRole('link', { name: 'Calendar' }).click();
  } else {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Calendar' }).click();
  }
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Calendar');
}

for (const [width, viewport] of Object.entries(WIDTHS) as Array<[keyof typeof WIDTHS, (typeof WIDTHS)[keyof typeof WIDTHS]]>) {
  test(`calendar at ${width} width: connect (refused, then connected), agenda and free time, choose calendars, reconnect, disconnect`, async ({ browser }) => {
    test.setTimeout(180_000);
    const person = await newPerson(`calendar-${width}`);
    // Working hours every day, so today (whatever day the run falls on) has free time around its event.
    const everyDay = Object.fromEntries(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'].map((d) => [d, [{ start: '09:00', end: '17:00' }]]));
    expect((await as(person)(`/users/${person.id}/preferences/scheduling`, { method: 'PUT', body: { schedulingPreferences: { availability: { workingHours: everyDay } } } })).status).toBe(200);
    const context = await browser.newContext({ viewport, ...(width === 'phone' ? { hasTouch: true, isMobile: true } : {}) });
    const page = await context.newPage();
    await signInByEmail(page, person.email);
    await openCalendar(page, width);

    // Nothing connected: the page says what to do.
    await expect(page.getByText('No calendar connected yet.')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Connect a calendar' })).toBeVisible();
    if (width === 'phone') await expectPhoneFriendly(page);
    await checkPage(page);

    // The form refuses what the server refuses, each problem under its field.
    const form = page.getByRole('form', { name: 'Any CalDAV calendar' });
    await form.getByLabel('Server URL').fill(radicale.url);
    await form.getByRole('button', { name: 'Connect CalDAV calendar' }).click();
    await expect(form.getByLabel('Username')).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByText('Enter your username')).toBeVisible();
    await expect(form.getByText('Enter an app password')).toBeVisible();
    await expect(form.getByLabel('Server URL')).not.toHaveAttribute('aria-invalid', 'true');
    await form.getByLabel('Username').fill('hana');
    await form.getByLabel('App password').fill('not-a-real-one');
    await form.getByRole('button', { name: 'Connect CalDAV calendar' }).click();
    // This app refuses addresses inside its own network (loopback here): the URL is named.
    await expect(form.getByLabel('Server URL')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('#caldav-url-error')).toContainText('inside the deployment');
    await expect(form.getByLabel('Username')).not.toHaveAttribute('aria-invalid', 'true');
    expect((await as(person)('/calendar-connections')).body.connections).toEqual([]);

    // A CalDAV calendar connected (Work and Personal), with events today, tomorrow and in three days, in Paris time.
    const [today, tomorrow, , inThree] = daysFrom(new Date(), 'Europe/Paris', 4);
    const { connectionId, username } = await connectSeededCalendar(
      radicale,
      person.email,
      { work: { name: 'Work', color: '#2f6fdbff' }, personal: { name: 'Personal' } },
      [
        { uid: `standup-${width}`, calendar: 'work', title: 'Team stand-up', start: new Date(today.start.getTime() + 10 * HOUR), end: new Date(today.start.getTime() + 11 * HOUR) },
        { uid: `review-${width}`, calendar: 'work', title: 'Design review', location: 'Room 4', start: new Date(tomorrow.start.getTime() + 14 * HOUR), end: new Date(tomorrow.start.getTime() + 15 * HOUR) },
        { uid: `dentist-${width}`, calendar: 'personal', title: 'Dentist', start: new Date(inThree.start.getTime() + 9.5 * HOUR), end: new Date(inThree.start.getTime() + 10.5 * HOUR) },
      ],
    );
    await page.reload();
    const connection = page.getByTestId('calendar-connection');
    await expect(connection).toHaveCount(1);
    await expect(connection).toContainText('CalDAV');
    await expect(connection).toContainText(`${username} at 127.0.0.1:${radicale.port}`);
    await expect(connection).toContainText('Connected');
    await expect(connection).toContainText('2 calendars');

    // Today: the stand-up is busy time, shown in Paris time; free time is left around it.
    await expect(page.getByRole('list', { name: 'Busy today' }).getByRole('listitem')).toHaveText([/^10:00\s*(AM)?\s*–\s*11:00\s*(AM)?$/]);
    await expect(page.getByRole('list', { name: 'Free today' }).getByRole('listitem')).toHaveText([/^9:00\s*(AM)?\s*–\s*10:00\s*(AM)?$/, /^11:00\s*(AM)?\s*–\s*(17:00|5:00\s*PM)$/]);

    // The next 7 days: each event on its day, with its time, calendar and place.
    const days = page.getByTestId('agenda-day');
    await expect(days).toHaveCount(7);
    await expect(days.nth(0).getByRole('heading')).toHaveText(/^Today, /);
    await expect(days.nth(0).getByTestId('agenda-event')).toContainText(['Team stand-up']);
    const review = days.nth(1).getByTestId('agenda-event');
    await expect(review).toHaveCount(1);
    await expect(review).toContainText('Design review');
    await expect(review).toContainText('Room 4');
    await expect(review).toContainText('Work');
    await expect(review).toContainText(/(14:00|2:00\s*PM)\s*–\s*(15:00|3:00\s*PM)/);
    await expect(days.nth(3).getByTestId('agenda-event')).toContainText(['Dentist']);
    if (width === 'phone') await expectPhoneFriendly(page);
    await checkPage(page);
    await screen(page, 'calendar', width);

    // Only Work is read: the agenda drops the dentist, and the API reports the choice.
    const choice = page.getByRole('form', { name: 'Calendars your assistant reads' });
    await choice.getByRole('checkbox', { name: /Personal/ }).uncheck();
    await choice.getByRole('button', { name: 'Save choice' }).click();
    await expect(page.getByText('Your assistant reads 1 of your 2 calendars.', { exact: true })).toBeVisible();
    await expect(page.getByText('Dentist')).toHaveCount(0);
    await expect(page.getByText('Design review')).toBeVisible();
    const calendars = (await as(person)('/calendars')).body.calendars.map((c: { name: string; selected: boolean }) => [c.name, c.selected]).sort();
    expect(calendars).toEqual([
      ['Personal', false],
      ['Work', true],
    ]);

    // The provider revokes the access: the page says so and offers to reconnect with a new app password.
    await markConnection(connectionId, 'revoked', 'The CalDAV server refused the username or password (401 Unauthorized)');
    await page.reload();
    await expect(connection).toContainText('Access revoked');
    await expect(connection).toContainText('401 Unauthorized');
    await connection.getByRole('link', { name: /^Reconnect CalDAV/ }).click();
    await expect(page.getByRole('heading', { name: `Reconnect CalDAV (${username} at 127.0.0.1:${radicale.port})` })).toBeVisible();
    const again = page.getByRole('form', { name: /^Reconnect CalDAV/ });
    await expect(again.getByLabel('Server URL')).toHaveValue(`${radicale.url}/`);
    await expect(again.getByLabel('Username')).toHaveValue(username);
    await expect(again.getByLabel('App password')).toHaveValue('');

    // Disconnecting empties the page again, and the API has no connection left.
    await connection.getByRole('button', { name: /^Disconnect CalDAV/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disconnect' }).click();
    await expect(page.getByText('No calendar connected yet.')).toBeVisible();
    expect((await as(person)('/calendar-connections')).body.connections).toEqual([]);
    await context.close();
  });
}
