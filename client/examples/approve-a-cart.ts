// The README example (docs/client.md), type-checked by `npm test`; published code imports '@steward/client'.
import { createStewardClient, waitFor } from '../index.js';

const steward = createStewardClient({ baseUrl: 'https://steward.example.com/api', apiKey: process.env.STEWARD_API_KEY! });
const { user } = await steward.POST('/users/provision', { body: { email: 'ada@example.com' } });
const ada = steward.as('ada@example.com'); // X-User-Email (after onboarding: timezone, working hours, mark-onboarded)
const { assistant } = await ada.POST('/users/{userId}/assistants', { params: { path: { userId: user.id } }, body: { name: 'Max' } });
const { task } = await ada.POST('/tasks', { body: { title: 'Invite Bob to lunch on Friday', assistant: assistant.id } });
await ada.POST('/tasks/{taskId}/process', { params: { path: { taskId: task.id } }, body: { message: 'Go ahead' } });
const cart = await waitFor(async () => (await ada.GET('/portal/carts')).carts.find((c) => c.taskId === task.id));
await ada.POST('/portal/carts/{cartId}/approve', { params: { path: { cartId: cart.id } }, body: { contentHash: cart.contentHash } });
