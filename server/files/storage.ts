import { mkdir, rename, stat, writeFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { HeadObjectCommand, PutObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { attachmentDisposition } from './disposition';

/** Where file bytes live. The local store is Steward's own folder; S3 is any S3-compatible service. */
export type FileStorage = {
  kind: 'local' | 's3';
  /** A URL the client PUTs the bytes to, or null when Steward itself serves the upload URL. */
  presignedPut(key: string, contentType: string, expiresInS: number): Promise<string | null>;
  presignedGet(key: string, fileName: string, expiresInS: number): Promise<string | null>;
  /** Stored byte count, or null when nothing was uploaded yet. */
  size(key: string): Promise<number | null>;
  write(key: string, bytes: Uint8Array): Promise<void>;
  read(key: string): Promise<Buffer>;
};

export function localStorage(dir: string): FileStorage {
  const file = (key: string) => path.join(dir, ...key.split('/'));
  return {
    kind: 'local',
    presignedPut: async () => null,
    presignedGet: async () => null,
    size: async (key) => {
      try {
        return (await stat(file(key))).size;
      } catch {
        return null;
      }
    },
    write: async (key, bytes) => {
      const target = file(key);
      await mkdir(path.dirname(target), { recursive: true });
      // Write then rename, so a reader never sees half a file.
      const tmp = `${target}.${process.pid}.${Date.now()}.part`;
      await writeFile(tmp, bytes);
      await rename(tmp, target);
    },
    read: (key) => readFile(file(key)),
  };
}

export function s3Storage(opts: { bucket: string; region: string; endpoint?: string; forcePathStyle?: boolean; credentials?: { accessKeyId: string; secretAccessKey: string } }): FileStorage {
  const client = new S3Client({ region: opts.region, endpoint: opts.endpoint, forcePathStyle: opts.forcePathStyle, credentials: opts.credentials });
  return {
    kind: 's3',
    presignedPut: (key, contentType, expiresIn) =>
      getSignedUrl(client, new PutObjectCommand({ Bucket: opts.bucket, Key: key, ContentType: contentType }), { expiresIn }),
    presignedGet: (key, fileName, expiresIn) =>
      getSignedUrl(
        client,
        new GetObjectCommand({ Bucket: opts.bucket, Key: key, ResponseContentDisposition: attachmentDisposition(fileName) }),
        { expiresIn },
      ),
    size: async (key) => {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket: opts.bucket, Key: key }))).ContentLength ?? null;
      } catch {
        return null;
      }
    },
    write: async (key, bytes) => {
      await client.send(new PutObjectCommand({ Bucket: opts.bucket, Key: key, Body: bytes }));
    },
    read: async (key) => {
      const out = await client.send(new GetObjectCommand({ Bucket: opts.bucket, Key: key }));
      return Buffer.from(await out.Body!.transformToByteArray());
    },
  };
}

let configured: FileStorage | undefined;

/** S3 when S3_BUCKET is set, else the local folder STEWARD_FILES_DIR (default .data/files). */
export function fileStorage(): FileStorage {
  if (configured) return configured;
  const bucket = process.env.S3_BUCKET;
  configured = bucket
    ? s3Storage({
        bucket,
        region: process.env.S3_REGION ?? 'us-east-1',
        endpoint: process.env.S3_ENDPOINT || undefined,
        forcePathStyle: process.env.S3_FORCE_PATH_STYLE === '1',
        credentials:
          process.env.S3_ACCESS_KEY_ID && process.env.S3_SECRET_ACCESS_KEY
            ? { accessKeyId: process.env.S3_ACCESS_KEY_ID, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY }
            : undefined,
      })
    : localStorage(path.resolve(/*turbopackIgnore: true*/ process.env.STEWARD_FILES_DIR ?? path.join(process.env.STEWARD_DATA_DIR ?? '.data', 'files')));
  return configured;
}

/** For tests: use this store from now on. */
export function useFileStorage(storage: FileStorage) {
  configured = storage;
}
