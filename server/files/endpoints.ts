import { z } from 'zod';
import { defineEndpoint } from '@/server/http/endpoint';
import { ConfirmBody, ContentQuery, DriveFileEnvelope, FileParams, UploadBody, UploadResponse } from './contracts';
import { serveMediaLink } from './media-links';
import { confirmUpload, createUpload, downloadFile, getFile, receiveUpload } from './service';

const tags = ['Files'];

export const fileEndpoints = [
  defineEndpoint({
    method: 'POST',
    path: '/drive-files/upload',
    summary: 'Start an upload: checks the quota, returns the URL to PUT the bytes to',
    tags,
    auth: 'user',
    body: UploadBody,
    response: UploadResponse,
    handle: ({ db, actor, body, req }) => createUpload(db, actor, body, new URL(req.url).origin),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/drive-files/{fileId}/confirm',
    summary: 'Mark the upload ready with its actual size',
    tags,
    auth: 'user',
    params: FileParams,
    body: ConfirmBody,
    response: DriveFileEnvelope,
    errors: [404],
    handle: ({ db, actor, params, body }) => confirmUpload(db, actor, params.fileId, body),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/drive-files/{fileId}',
    summary: 'A file’s record (owner, and people a task shares it with)',
    tags,
    auth: 'user',
    params: FileParams,
    response: DriveFileEnvelope,
    errors: [404],
    handle: ({ db, actor, params }) => getFile(db, actor, params.fileId),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/drive-files/{fileId}/download',
    summary: 'The file’s bytes (or a redirect to a presigned URL)',
    tags,
    auth: 'user',
    raw: true,
    params: FileParams,
    response: z.unknown(),
    errors: [404, 409],
    handle: ({ db, actor, params }) => downloadFile(db, actor, params.fileId),
  }),
  defineEndpoint({
    method: 'PUT',
    path: '/drive-files/{fileId}/content',
    summary: 'The signed, expiring, single-file upload URL of the local store (no credential: the signature is one)',
    tags,
    auth: 'none',
    raw: true,
    params: FileParams,
    query: ContentQuery,
    response: z.unknown(),
    handle: async ({ db, params, query, req }) =>
      receiveUpload(db, params.fileId, query, req.headers.get('content-type'), new Uint8Array(await req.arrayBuffer())),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/drive-files/{fileId}/content',
    summary: 'A file an approved text carries, for its provider to fetch (MMS, WhatsApp media): signed, expiring, for this file only (no credential: the signature is one); 404 for any link that is not',
    tags,
    auth: 'none',
    raw: true,
    params: FileParams,
    query: ContentQuery,
    response: z.unknown(),
    errors: [404],
    handle: ({ db, params, query }) => serveMediaLink(db, params.fileId, query),
  }),
];
