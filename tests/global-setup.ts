import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, withDatabase, type EmbeddedDatabase } from '../db/embedded';
import { applyMigrations } from '../db/migrate';

export const TEMPLATE_DB = 'steward_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}

let embedded: EmbeddedDatabase | undefined;
let dataDir: string | undefined;

/**
 * One real PostgreSQL per run (embedded in a temporary folder unless DATABASE_URL is set),
 * with a migrated template database that each test file copies.
 */
export async function setup(project: TestProject) {
  // The master key file (and the local file store) of a test run live in a throwaway folder,
  // never in the checkout's .data; test workers inherit the variable.
  if (!process.env.STEWARD_DATA_DIR) {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'steward-test-data-'));
    process.env.STEWARD_DATA_DIR = dataDir;
  }
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'steward-test-'));
    // Run as root, Postgres drops to its own system user, which must reach the folder.
    chmodSync(parent, 0o755);
    const dir = path.join(parent, 'pg');
    embedded = await startEmbeddedPostgres({ dir, persistent: false });
    serverUrl = embedded.url;
  }
  const admin = new pg.Client(withDatabase(serverUrl, 'postgres'));
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  await applyMigrations(withDatabase(serverUrl, TEMPLATE_DB));
  project.provide('pgServerUrl', serverUrl);
}

export async function teardown() {
  await embedded?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
