import { useEffect } from 'react';
import { openInSystemBrowser } from '../api';
import { useLocale, useMessages } from '../i18n';
import { useAbout } from '../stores';

/**
 * Settings → About: the running version, the update-check toggle, Check now
 * and its result (docs/install.md#updates). Nothing is downloaded: a newer
 * release is a link to its page, opened only by the user's click.
 */
export function AboutSection() {
  const t = useMessages();
  const locale = useLocale();
  const info = useAbout((s) => s.info);
  const check = useAbout((s) => s.check);
  const checking = useAbout((s) => s.checking);
  const error = useAbout((s) => s.error);
  const load = useAbout((s) => s.load);
  const setEnabled = useAbout((s) => s.setEnabled);
  const checkNow = useAbout((s) => s.checkNow);
  useEffect(() => {
    void load();
  }, [load]);

  const published = check?.publishedAt ? new Date(check.publishedAt) : null;
  return (
    <section className="card" aria-labelledby="about-title" data-testid="about">
      <h2 id="about-title">{t.aboutTitle}</h2>
      <p>
        {t.aboutVersion}{' '}
        <code data-testid="about-version">{info?.version ?? '…'}</code>
        {(info?.devBuild || check?.devBuild) && <span className="muted" data-testid="about-dev-build"> ({t.aboutDevBuild})</span>}
      </p>
      <label className="check setting-check">
        <input
          type="checkbox"
          checked={info?.checkForUpdates ?? false}
          disabled={!info}
          onChange={(e) => void setEnabled(e.target.checked)}
          data-testid="about-check-toggle"
        />
        <span>
          {t.aboutCheckToggle}
          <span className="field-hint block">{t.aboutCheckHint}</span>
        </span>
      </label>
      <div className="row">
        <button type="button" onClick={() => void checkNow()} disabled={checking} data-testid="about-check-now">
          {checking && <span className="spinner" />} {checking ? t.aboutChecking : t.aboutCheckNow}
        </button>
      </div>
      {error && (
        <p className="inline-error" role="alert" data-testid="about-error">
          {t.aboutCheckFailed(error)}
        </p>
      )}
      {check && !error && (
        <div role="status" data-testid="about-result" className={check.newer ? 'callout' : 'muted'}>
          <p>
            {check.newer ? t.aboutNewer(check.latest) : check.devBuild ? t.aboutDevLatest(check.latest) : t.aboutUpToDate(check.latest)}
            {published && !Number.isNaN(published.getTime()) && <span className="muted"> · {t.aboutPublished(published.toLocaleDateString(locale))}</span>}
          </p>
          {check.newer && check.url && (
            <p>
              <a
                href={check.url}
                target="_blank"
                rel="noopener noreferrer"
                onClick={(e) => {
                  if (openInSystemBrowser(check.url)) e.preventDefault();
                }}
                data-testid="about-release-link"
              >
                {t.aboutOpenRelease}
              </a>
            </p>
          )}
          {check.newer && check.notes && (
            <details>
              <summary>{t.aboutNotes}</summary>
              <pre style={{ whiteSpace: 'pre-wrap' }} data-testid="about-notes">
                {check.notes}
              </pre>
            </details>
          )}
        </div>
      )}
    </section>
  );
}
