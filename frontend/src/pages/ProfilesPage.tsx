import { useEffect, useState, type FormEvent } from 'react';
import { PROFILE_MODES, SNIPPET_CLIENTS, SNIPPET_MODES, toApiError, type ProfileMode, type ProfileView, type ServerTool, type SnippetClient, type SnippetMode } from '../api';
import { ConfirmDialog, LoadError } from '../components/Dialog';
import { useMessages } from '../i18n';
import { useProfiles, useServers } from '../stores';
import { CLIENT_LABELS, CopyButton } from './ConnectPage';
import './pages.css';

/** Profiles: named sets of servers and tools, each at /mcp/NAME (docs/profiles.md). */
export default function ProfilesPage() {
  const t = useMessages();
  const profiles = useProfiles((s) => s.profiles);
  const status = useProfiles((s) => s.status);
  const error = useProfiles((s) => s.error);
  const load = useProfiles((s) => s.load);
  const remove = useProfiles((s) => s.remove);
  const [editing, setEditing] = useState<{ profile: ProfileView; isNew: boolean } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [removeError, setRemoveError] = useState<string | null>(null);

  useEffect(() => {
    if (status === 'idle') void load();
  }, [status, load]);

  const blank: ProfileView = { name: '', description: '', mode: 'all', servers: [], tools: {}, path: '' };
  const modeLabel = (m: ProfileMode) => (m === 'all' ? t.profileModeAll : m === 'gated' ? t.profileModeGated : t.profileModeSearch);

  return (
    <section className="page" data-testid="profiles-page">
      <header className="page-header">
        <h1>{t.profilesTitle}</h1>
        <button type="button" className="primary" onClick={() => setEditing({ profile: blank, isNew: true })} data-testid="profile-new">
          {t.profileNew}
        </button>
      </header>
      <p className="muted">{t.profilesIntro}</p>
      {error && <LoadError title={t.profilesLoadFailed} message={error} retry={() => void load()} />}
      {editing && (
        <ProfileForm
          key={editing.profile.name || 'new'}
          initial={editing.profile}
          isNew={editing.isNew}
          onDone={(saved) => {
            setEditing(null);
            if (saved) setSelected(saved.name);
          }}
        />
      )}
      <div className="card">
        {status === 'ready' && profiles.length === 0 && <p className="muted">{t.profilesEmpty}</p>}
        {profiles.length > 0 && (
          <table className="table" data-testid="profiles-table">
            <thead>
              <tr>
                <th>{t.profileName}</th>
                <th>{t.profileColMode}</th>
                <th>{t.profileColServers}</th>
                <th>{t.profileColEndpoint}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {profiles.map((p) => (
                <tr key={p.name} data-testid={`profile-row-${p.name}`}>
                  <td>
                    <strong>{p.name}</strong>
                    {p.description && <div className="muted">{p.description}</div>}
                  </td>
                  <td>{modeLabel(p.mode)}</td>
                  <td>
                    {p.servers.map((s) => (
                      <div key={s}>
                        {s}: {p.tools[s]?.length ? t.profileToolsSome(p.tools[s].length) : t.profileToolsAll}
                      </div>
                    ))}
                  </td>
                  <td>
                    <code>{p.path}</code>
                  </td>
                  <td className="row">
                    <button type="button" className="small" onClick={() => setSelected(p.name)} data-testid={`profile-snippet-${p.name}`}>
                      {t.profileSnippet}
                    </button>
                    <button type="button" className="small" onClick={() => setEditing({ profile: p, isNew: false })} data-testid={`profile-edit-${p.name}`}>
                      {t.profileEdit(p.name)}
                    </button>
                    <button type="button" className="small danger" onClick={() => setRemoving(p.name)} data-testid={`profile-remove-${p.name}`}>
                      {t.remove}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {selected && profiles.some((p) => p.name === selected) && <ProfileSnippet name={selected} />}
      {removing && (
        <ConfirmDialog
          title={t.remove}
          body={t.profileRemoveConfirm(removing)}
          confirm={t.remove}
          error={removeError}
          onCancel={() => {
            setRemoving(null);
            setRemoveError(null);
          }}
          onConfirm={() =>
            void remove(removing).then(
              () => {
                if (selected === removing) setSelected(null);
                setRemoving(null);
                setRemoveError(null);
              },
              (err: unknown) => setRemoveError(toApiError(err).message),
            )
          }
        />
      )}
    </section>
  );
}

function ProfileForm({ initial, isNew, onDone }: { initial: ProfileView; isNew: boolean; onDone: (saved: ProfileView | null) => void }) {
  const t = useMessages();
  const save = useProfiles((s) => s.save);
  const servers = useServers((s) => s.servers);
  const serversStatus = useServers((s) => s.status);
  const loadServers = useServers((s) => s.load);
  const [name, setName] = useState(initial.name);
  const [description, setDescription] = useState(initial.description);
  const [mode, setMode] = useState<ProfileMode>(initial.mode);
  const [chosen, setChosen] = useState<string[]>(initial.servers);
  const [tools, setTools] = useState<Record<string, string[]>>(initial.tools);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (serversStatus === 'idle') void loadServers();
  }, [serversStatus, loadServers]);

  const toggleServer = (s: string) => {
    if (chosen.includes(s)) {
      setChosen(chosen.filter((x) => x !== s));
      const rest = { ...tools };
      delete rest[s];
      setTools(rest);
    } else {
      setChosen([...chosen, s]);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return setError(t.profileNameMissing);
    if (chosen.length === 0) return setError(t.profileServersMissing);
    setBusy(true);
    const picked: Record<string, string[]> = {};
    for (const s of chosen) if (tools[s]?.length) picked[s] = tools[s];
    save({ name: name.trim(), description, mode, servers: chosen, tools: picked, path: '' }, isNew).then(
      (saved) => {
        setBusy(false);
        onDone(saved);
      },
      (err: unknown) => {
        setBusy(false);
        setError(toApiError(err).message);
      },
    );
  };

  return (
    <form className="card" onSubmit={submit} data-testid="profile-form">
      <h2>{isNew ? t.profileNew : t.profileEdit(initial.name)}</h2>
      <label className="field">
        <span>{t.profileName}</span>
        <input value={name} onChange={(e) => setName(e.target.value)} disabled={!isNew} data-testid="profile-name" />
        <small className="muted">{t.profileNameHint}</small>
      </label>
      <label className="field">
        <span>{t.profileDescription}</span>
        <input value={description} onChange={(e) => setDescription(e.target.value)} data-testid="profile-description" />
      </label>
      <fieldset className="field">
        <legend>{t.profileMode}</legend>
        {PROFILE_MODES.map((m) => (
          <label key={m} className="check">
            <input type="radio" name="profile-mode" checked={mode === m} onChange={() => setMode(m)} data-testid={`profile-mode-${m}`} />
            {m === 'all' ? t.profileModeAll : m === 'gated' ? t.profileModeGated : t.profileModeSearch}
          </label>
        ))}
      </fieldset>
      <fieldset className="field">
        <legend>{t.profileServers}</legend>
        {serversStatus === 'ready' && servers.length === 0 && <p className="muted">{t.profileNoServers}</p>}
        {servers.map((s) => (
          <div key={s.name}>
            <label className="check">
              <input type="checkbox" checked={chosen.includes(s.name)} onChange={() => toggleServer(s.name)} data-testid={`profile-server-${s.name}`} />
              {s.name}
            </label>
            {chosen.includes(s.name) && (
              <ToolPicker server={s.name} picked={tools[s.name] ?? []} onChange={(names) => setTools({ ...tools, [s.name]: names })} />
            )}
          </div>
        ))}
      </fieldset>
      {error && (
        <p className="inline-error" role="alert" data-testid="profile-error">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" onClick={() => onDone(null)}>
          {t.cancel}
        </button>
        <button type="submit" className="primary" disabled={busy} data-testid="profile-save">
          {isNew ? t.profileCreate : t.profileSaveChanges}
        </button>
      </div>
    </form>
  );
}

/** All of a server's tools, or the ones ticked. */
function ToolPicker({ server, picked, onChange }: { server: string; picked: string[]; onChange: (names: string[]) => void }) {
  const t = useMessages();
  const serverTools = useProfiles((s) => s.serverTools);
  const [some, setSome] = useState(picked.length > 0);
  const [tools, setTools] = useState<ServerTool[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!some || tools) return;
    let live = true;
    serverTools(server).then(
      (list) => live && setTools(list),
      (err: unknown) => live && setError(toApiError(err).message),
    );
    return () => {
      live = false;
    };
  }, [some, tools, server, serverTools]);

  return (
    <div className="indent" data-testid={`profile-tools-${server}`}>
      <label className="check">
        <input
          type="radio"
          name={`tools-${server}`}
          checked={!some}
          onChange={() => {
            setSome(false);
            onChange([]);
          }}
          data-testid={`profile-tools-all-${server}`}
        />
        {t.profileToolsAll}
      </label>
      <label className="check">
        <input type="radio" name={`tools-${server}`} checked={some} onChange={() => setSome(true)} data-testid={`profile-tools-pick-${server}`} />
        {t.profileToolsPick}
      </label>
      {some && !tools && !error && <p className="muted">{t.profileToolsLoading}</p>}
      {error && <p className="inline-error">{t.profileToolsFailed(error)}</p>}
      {some && tools && tools.length === 0 && <p className="muted">{t.profileToolsNone}</p>}
      {some &&
        tools?.map((tool) => (
          <label key={tool.name} className="check indent">
            <input
              type="checkbox"
              checked={picked.includes(tool.name)}
              onChange={() => onChange(picked.includes(tool.name) ? picked.filter((x) => x !== tool.name) : [...picked, tool.name])}
              data-testid={`profile-tool-${server}-${tool.name}`}
            />
            {tool.name}
            {tool.description && <span className="muted"> — {tool.description}</span>}
          </label>
        ))}
    </div>
  );
}

function ProfileSnippet({ name }: { name: string }) {
  const t = useMessages();
  const snippet = useProfiles((s) => s.snippet);
  const [client, setClient] = useState<SnippetClient>('claude-code');
  const [mode, setMode] = useState<SnippetMode>('http');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    snippet(name, client, mode, '').then(
      (s) => {
        if (!live) return;
        setText(s);
        setError(null);
      },
      (err: unknown) => {
        if (!live) return;
        setText('');
        setError(toApiError(err).message);
      },
    );
    return () => {
      live = false;
    };
  }, [name, client, mode, snippet]);

  return (
    <div className="card" data-testid="profile-snippet">
      <h2>{t.profileSnippetFor(name)}</h2>
      <div className="tabs" role="tablist">
        {SNIPPET_CLIENTS.map((c) => (
          <button key={c} type="button" role="tab" aria-selected={client === c} onClick={() => setClient(c)} data-testid={`profile-snippet-client-${c}`}>
            {CLIENT_LABELS[c]}
          </button>
        ))}
      </div>
      <div className="row">
        <div className="segmented" role="radiogroup" aria-label={t.snippetMode}>
          {SNIPPET_MODES.map((m) => (
            <label key={m} className="check">
              <input type="radio" name="profile-snippet-mode" checked={mode === m} onChange={() => setMode(m)} data-testid={`profile-snippet-mode-${m}`} />
              {m === 'http' ? t.snippetHttp : t.snippetStdio}
            </label>
          ))}
        </div>
        <span className="grow" />
        <CopyButton text={text} testId="profile-snippet-copy" />
      </div>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {!error && (
        <pre className="code" data-testid="profile-snippet-text">
          {text}
        </pre>
      )}
    </div>
  );
}
