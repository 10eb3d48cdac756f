// A separate executor process for the crash test: started with node --import tsx, killed with SIGKILL.
import { connect } from '../../db/client';
import { startExecutor } from '../../server/executor/executor';

const database = connect(process.env.DATABASE_URL!);
await startExecutor({
  db: database.db,
  databaseUrl: process.env.DATABASE_URL!,
  signingKey: process.env.SIGNING_KEY!,
  leaseMs: Number(process.env.LEASE_MS ?? 2000),
  workers: 1,
  idleMs: 100,
});
process.stdout.write('ready\n');
