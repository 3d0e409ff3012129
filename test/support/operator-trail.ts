import os from 'node:os';

/** An entry of the operator action trail as `ops audit list --json` prints it. */
export interface TrailEntry {
  id: string;
  actor: string;
  action: string;
  target: string;
  reason: string | null;
  outcome: 'succeeded' | 'refused' | 'failed';
  details: Record<string, unknown> | null;
  actedAt: string;
}

/** Who the CLIs name as actor by default: the user this process (and the CLI it starts) runs as. */
export const OS_USER = os.userInfo().username;
