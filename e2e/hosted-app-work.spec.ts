import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { signInByEmail } from './support/harness';
import { as, newPerson, startTask, taskReaches, type Person } from './support/hosted-app';
import { askUserDirective, proposeDirective } from './support/model-script';

/*
 * Issue 29, the hosted app's home and tasks as the person uses them, in Chromium against the
 * production server and the scripted model: a question the assistant asked is answered from
 * home and the task resumes and completes; a proposed task is approved in place; the list is
 * live (a new question appears without a reload) and its count is in the navigation; the tasks
 * list searches and the detail shows the conversation.
 */

let person: Person;
let context: BrowserContext;
let page: Page;
let seq = 0;
const id = () => `${Date.now()}-${seq++}`;

test.beforeAll(async ({ browser }) => {
  person = await newPerson('work');
  context = await browser.newContext();
  page = await context.newPage();
  await signInByEmail(page, person.email);
});
test.afterAll(async () => {
  await context?.close();
});

const needsMe = (p: Page) => p.getByRole('list', { name: 'What needs you' });
const itemOf = (p: Page, title: string) => needsMe(p).getByRole('listitem').filter({ has: p.getByRole('heading', { name: title }) });
/** Opens an item of the list: at this width its whole content and actions are in the side panel. */
async function openItem(p: Page, title: string) {
  await itemOf(p, title).getByRole('button', { name: title, exact: true }).click();
  const panel = p.getByRole('complementary', { name: 'Selected item' });
  await expect(panel.getByRole('heading', { level: 2 })).toContainText(title);
  return panel;
}

test('a question the assistant asks is answered on home with the keyboard; the task resumes and completes', async () => {
  test.setTimeout(90_000);
  const question = 'Which day suits you for the dentist, Tuesday or Thursday?';
  const taskId = await startTask(person, 'Book the dentist', `Find me a slot. ${askUserDirective({ id: id(), question })}`);
  await taskReaches(person, taskId, (t) => t.status === 'awaiting_user_input', 'the run asks the user');

  await page.goto('/');
  await expect(itemOf(page, 'Book the dentist')).toContainText(question);
  const item = await openItem(page, 'Book the dentist');
  await expect(item.getByTestId('question')).toHaveText(question);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByTestId('needs-me-count')).toContainText(/[1-9]/);
  await item.getByLabel('Your answer').focus();
  await page.keyboard.type('Thursday after 3 pm');
  await page.keyboard.press('Tab');
  await expect(item.getByRole('button', { name: /Send answer/ })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Answer sent: “Book the dentist” goes on.', { exact: true })).toBeVisible();
  await expect(itemOf(page, 'Book the dentist')).toHaveCount(0, { timeout: 20_000 });

  // The task ran again with the answer and the scripted model completed it.
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByTestId('task-status')).toHaveText('Completed', { timeout: 30_000 });
  await expect(page.getByRole('region', { name: 'Summary' })).toContainText('Done with your answer: Thursday after 3 pm');
  const timeline = page.getByRole('list', { name: 'Activity' });
  await expect(timeline.locator('[data-role="assistant"]').first()).toContainText(question);
  await expect(timeline.locator('[data-role="user"]').last()).toContainText('Thursday after 3 pm');
});

test('a task the assistant proposes is approved in place on home', async () => {
  test.setTimeout(90_000);
  const title = `Renew the passport ${id()}`;
  const parentId = await startTask(person, 'Plan the trip', `Plan it. ${proposeDirective({ id: id(), title, description: 'The passport expires in May.' })}`);
  let proposedId = '';
  await expect
    .poll(
      async () => {
        const { body } = await as(person)('/tasks?perPage=50');
        proposedId = (body.tasks as Array<{ id: string; title: string; proposalStatus: string | null }>).find((t) => t.title === title && t.proposalStatus === 'pending_user_approval')?.id ?? '';
        return proposedId !== '';
      },
      { timeout: 30_000, message: 'the run proposes a task' },
    )
    .toBe(true);
  await taskReaches(person, parentId, (t) => t.status === 'completed', 'the proposing run ends');

  await page.goto('/');
  await expect(itemOf(page, title)).toContainText('Proposed task');
  await expect(itemOf(page, title)).toContainText('The passport expires in May.');
  const item = await openItem(page, title);
  await expect(item).toContainText('The passport expires in May.');
  await item.getByRole('button', { name: /^Approve task/ }).click();
  await expect(page.getByText(`Approved “${title}”: the assistant starts on it.`, { exact: true })).toBeVisible();
  await expect(itemOf(page, title)).toHaveCount(0);
  const after = (await as(person)(`/tasks/${proposedId}`)).body.task;
  expect(after.proposalStatus).toBe('approved');
});

test('the home list is live: a new question appears without a reload', async () => {
  test.setTimeout(60_000);
  await page.goto('/');
  await expect(needsMe(page).or(page.getByText('Nothing needs you right now.'))).toBeVisible();
  const taskId = await startTask(person, 'Pick a restaurant', askUserDirective({ id: id(), question: 'Italian or Thai?' }));
  await taskReaches(person, taskId, (t) => t.status === 'awaiting_user_input', 'the run asks the user');
  // The /live stream tells the open page the list moved: it reads again without navigating.
  await expect(itemOf(page, 'Pick a restaurant')).toContainText('Italian or Thai?', { timeout: 12_000 });
  const item = await openItem(page, 'Pick a restaurant');
  await expect(item.getByTestId('question')).toHaveText('Italian or Thai?');
});

test('tasks list: search and status filter, then the detail with its question, usage and actions', async () => {
  test.setTimeout(60_000);
  const title = `Find a dentist ${id()}`;
  const taskId = await startTask(person, title, askUserDirective({ id: id(), question: 'Near home or near work?' }));
  await taskReaches(person, taskId, (t) => t.status === 'awaiting_user_input', 'the run asks the user');
  await page.goto('/tasks');
  await page.getByLabel('Search titles and descriptions').fill(title);
  await page.getByRole('button', { name: 'Show tasks' }).click();
  await expect(page).toHaveURL(/search=Find/);
  const list = page.getByRole('list', { name: 'Tasks' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list).toContainText('Needs your answer');
  await page.getByLabel('Status').selectOption('completed');
  await page.getByRole('button', { name: 'Show tasks' }).click();
  await expect(page.getByText('No task matches these filters.')).toBeVisible();
  await page.getByRole('link', { name: 'Clear the filters' }).click();
  await page.getByRole('link', { name: title }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect(page.getByRole('region', { name: / asks$/ })).toContainText('Near home or near work?');
  await expect(page.getByRole('heading', { name: 'Usage and credits' })).toBeVisible();
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByTestId('task-status')).toHaveText('On hold');
});
