import type { ServerView } from '../api';
import { useMessages } from '../i18n';
import './StatusBadge.css';

type Props = Pick<ServerView, 'name' | 'state' | 'restarts' | 'error'>;

export function StatusBadge({ name, state, restarts, error }: Props) {
  const t = useMessages();
  return (
    <span className="status">
      <span className={`badge badge-${state}`} data-testid={`server-state-${name}`} data-state={state}>
        <span className="badge-dot" aria-hidden="true" />
        {t.state[state]}
        {state === 'restarting' && restarts > 0 && <span className="badge-count"> · {t.restartCount(restarts)}</span>}
      </span>
      {(state === 'errored' || state === 'needs_login') && error && (
        <span className="status-error" title={error} data-testid={`server-error-${name}`}>
          {error}
        </span>
      )}
    </span>
  );
}
