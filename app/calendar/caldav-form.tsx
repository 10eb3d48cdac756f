'use client';
import { Link2 } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input } from '@/app/_ui/controls';
import { Field } from '@/app/_ui/field';
import { Problem } from '@/app/_ui/states';
import { useNotify } from '@/app/_ui/toast';

type Fields = 'url' | 'username' | 'password';
const FIELDS: Fields[] = ['url', 'username', 'password'];

/**
 * Connects a CalDAV server (Fastmail, iCloud, Nextcloud, Radicale…) by URL, username and app
 * password; also how a CalDAV connection is repaired (`reconnect`: its URL and username filled
 * in, a new password asked for). The server checks everything and answers each problem under its
 * field: the form itself refuses nothing, so what it shows is what the API would answer.
 */
export function CaldavForm({ reconnect }: { reconnect?: { url: string; username: string } | null }) {
  const router = useRouter();
  const notify = useNotify();
  const [values, setValues] = useState<Record<Fields, string>>({ url: reconnect?.url ?? '', username: reconnect?.username ?? '', password: '' });
  const [errors, setErrors] = useState<Partial<Record<Fields, string>>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const input = (name: Fields) => ({
    id: `caldav-${name}`,
    name,
    value: values[name],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [name]: e.target.value })),
    'aria-required': true,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': [`caldav-${name}-hint`, errors[name] ? `caldav-${name}-error` : ''].filter(Boolean).join(' '),
  });

  return (
    <form
      noValidate
      aria-labelledby="caldav-title"
      className="flex flex-col gap-4"
      onSubmit={async (e) => {
        e.preventDefault();
        setPending(true);
        setErrors({});
        setProblem(null);
        try {
          const answer = await trpc.calendar.connectCaldav.mutate(values);
          if (!answer.ok) {
            const next: Partial<Record<Fields, string>> = {};
            for (const p of answer.problems) if ((FIELDS as string[]).includes(p.field)) next[p.field as Fields] ??= p.problem;
            setErrors(next);
            if (!Object.keys(next).length) setProblem(answer.message);
            document.getElementById(`caldav-${FIELDS.find((f) => next[f]) ?? 'url'}`)?.focus();
            return;
          }
          const n = answer.connection.calendars.length;
          notify('ok', `Connected ${answer.connection.username ?? 'your CalDAV server'}: ${n} ${n === 1 ? 'calendar' : 'calendars'} found.`);
          setValues({ url: '', username: '', password: '' });
          router.replace('/calendar');
          router.refresh();
        } catch (err) {
          setProblem(describeError(err).message);
        } finally {
          setPending(false);
        }
      }}
    >
      <Field id="caldav-url" label="Server URL" hint="For example https://caldav.fastmail.com or your Nextcloud address." error={errors.url}>
        <Input {...input('url')} type="text" inputMode="url" autoComplete="url" spellCheck={false} placeholder="https://" />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id="caldav-username" label="Username" hint="Usually your email address." error={errors.username}>
          <Input {...input('username')} type="text" autoComplete="username" autoCapitalize="none" spellCheck={false} />
        </Field>
        <Field id="caldav-password" label="App password" hint="Make one in your provider’s security settings; it is stored sealed." error={errors.password}>
          <Input {...input('password')} type="password" autoComplete="off" />
        </Field>
      </div>
      {problem && <Problem>{problem}</Problem>}
      <div>
        <Button type="submit" disabled={pending}>
          <Link2 aria-hidden="true" />
          {pending ? 'Connecting…' : reconnect ? 'Reconnect' : 'Connect CalDAV calendar'}
        </Button>
      </div>
    </form>
  );
}
