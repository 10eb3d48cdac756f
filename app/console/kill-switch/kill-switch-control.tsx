'use client';
import { trpc } from '@/app/_lib/trpc-client';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

export function KillSwitchControl({ engaged }: { engaged: boolean }) {
  const { pending, change } = useChange();
  return engaged ? (
    <Confirm
      label="Release the kill switch"
      danger={false}
      variant="primary"
      disabled={pending}
      title="Release the kill switch?"
      description="Tasks can be created, run and messaged again at once."
      confirm="Release"
      onConfirm={() => void change(() => trpc.console.settings.setKillSwitch.mutate({ engaged: false }), 'The kill switch is released.')}
    />
  ) : (
    <Confirm
      label="Engage the kill switch"
      variant="danger"
      disabled={pending}
      title="Freeze the whole account?"
      description="Every user’s tasks stop: nothing can be created, run or messaged until the switch is released."
      confirm="Engage"
      onConfirm={() => void change(() => trpc.console.settings.setKillSwitch.mutate({ engaged: true }), 'The kill switch is engaged.')}
    />
  );
}
