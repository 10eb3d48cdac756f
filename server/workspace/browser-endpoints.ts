import { defineEndpoint } from '@/server/http/endpoint';
import { CleanupBody, CleanupResponse, ProfileResponse, SnapshotsQuery, SnapshotsResponse, WatchQuery, WatchResponse } from './browser/contracts';
import { cleanupWorkspace } from './cleanup';
import { workspaceProfile } from './profile';
import { listSnapshots } from './snapshots';
import { watchTask } from './watch';

const tags = ['Workspace'];

export const workspaceBrowserEndpoints = [
  defineEndpoint({
    tags,
    auth: 'user',
    method: 'GET',
    path: '/workspace/watch',
    summary: "One PNG frame of the task's tab; available:false with reason watch_unavailable when the browser is not running or the task has no tab (never starts it)",
    query: WatchQuery,
    response: WatchResponse,
    errors: [400, 404],
    handle: ({ db, actor, query }) => watchTask(db, actor, query.taskId),
  }),
  defineEndpoint({
    tags,
    auth: 'user',
    method: 'GET',
    path: '/workspace/profile',
    summary: "Measured usage of the user's workspace browser (memory, disk, CPU, active time); profile is null until it has run",
    response: ProfileResponse,
    handle: ({ db, actor }) => workspaceProfile(db, actor),
  }),
  defineEndpoint({
    tags,
    auth: 'user',
    method: 'GET',
    path: '/workspace/snapshots',
    summary: 'Usage snapshots (at most one per 5 minutes while running, kept 30 days): the newest `limit` (at most 288), oldest first',
    query: SnapshotsQuery,
    response: SnapshotsResponse,
    errors: [400],
    handle: ({ db, actor, query }) => listSnapshots(db, actor, query.limit),
  }),
  defineEndpoint({
    tags,
    auth: 'any',
    needsPerson: true,
    method: 'POST',
    path: '/workspace/cleanup',
    summary: 'Clear the browser cache and temporary files (cache), and local working copies of sites too (sites); user files and sign-ins stay; starts the workspace if needed',
    body: CleanupBody,
    response: CleanupResponse,
    errors: [400, 403, 503],
    handle: ({ db, actor, body }) => cleanupWorkspace(db, actor, body.scope),
  }),
];
