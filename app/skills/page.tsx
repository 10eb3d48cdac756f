import { Puzzle } from 'lucide-react';
import { requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { RowList } from '@/app/_ui/list';
import { Empty } from '@/app/_ui/states';
import { SkillRow } from './skill-row';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Skills and workflows · Steward' };

/** What the person's assistant can do beyond the basics: workflows (with their runs), connected apps, instructions. */
export default async function Skills() {
  const { api, me } = await requireSignedIn('/skills');
  const { skills } = await api.skills.list({ perPage: 100 });
  const workflows = skills.filter((s) => s.kind === 'workflow');
  const others = skills.filter((s) => s.kind !== 'workflow');
  return (
    <HostedFrame me={me} title="Skills and workflows" width="wide" description="Switch what your assistant may use on or off, and see what your workflows started.">
      {skills.length === 0 ? (
        <Empty title="No skills yet." icon={Puzzle}>
          <p>Skills are added by your company or through the API: workflows that start tasks by themselves, connected apps, standing instructions.</p>
        </Empty>
      ) : (
        <div className="flex flex-col gap-6">
          {workflows.length > 0 && (
            <section aria-labelledby="workflows-title">
              <h2 id="workflows-title" className="mb-2">
                Workflows
              </h2>
              <RowList label="Workflows">
                {workflows.map((s) => (
                  <SkillRow key={s.id} skill={s} />
                ))}
              </RowList>
            </section>
          )}
          {others.length > 0 && (
            <section aria-labelledby="skills-title">
              <h2 id="skills-title" className="mb-2">
                Skills
              </h2>
              <RowList label="Skills">
                {others.map((s) => (
                  <SkillRow key={s.id} skill={s} />
                ))}
              </RowList>
            </section>
          )}
        </div>
      )}
    </HostedFrame>
  );
}
