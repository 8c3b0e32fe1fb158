import { Loading } from '../../app-kit/components/loading.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useRef, useState, type FormEvent } from 'react';
import { ROLES } from '../../../shared/index.js';
import { dateTime } from '../../app-kit/format.js';
import { OfficeCreateTokenDocument, OfficeOrganizationDocument, OfficeProfileDocument, OfficeRevokeDocument, OfficeSettingsDocument, OfficeTokensDocument, type OfficeOrganizationQuery, type Role } from '../graphql/operations.generated.js';
import { useAction, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { PhoneSignIn } from '../components/phone-sign-in.js';
import { WaterChemistrySettingsForm } from '../components/water-chemistry-settings.js';
import { Integrations } from './integrations.js';

/** The organization's profile, settings and logo, its water chemistry, its technicians' phones (ADMIN, OFFICE), and (for an ADMIN) its API tokens and integrations. */
type OrganizationAnswer = OfficeOrganizationQuery;

export function SettingsScreen() {
  const { viewer } = useSession();
  const org = useGraphQL(OfficeOrganizationDocument, undefined, []);
  if (!org.data) return <Loading title="Settings" error={org.error} />;
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <div className="columns">
        <Profile answer={org.data} onSaved={org.reload} />
        <Preferences answer={org.data} onSaved={org.reload} />
      </div>
      <WaterChemistrySettingsForm />
      {viewer.role === 'ADMIN' || viewer.role === 'OFFICE' ? <PhoneSignIn /> : null}
      {viewer.role === 'ADMIN' ? (
        <>
          <Tokens />
          <Integrations />
        </>
      ) : (
        <p>API tokens (and revoking a phone's) and integrations are managed by an ADMIN.</p>
      )}
    </section>
  );
}

function Profile({ answer, onSaved }: { answer: OrganizationAnswer; onSaved: () => void }) {
  const { api } = useSession();
  const o = answer.organization;
  const [form, setForm] = useState({ name: o.name, email: o.email ?? '', phone: o.phone ?? '', website: o.website ?? '' });
  const save = useAction();
  const logo = useRef<HTMLInputElement>(null);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  async function submit(event: FormEvent) {
    event.preventDefault();
    const input = { name: form.name, email: form.email || null, phone: form.phone || null, website: form.website || null };
    if (await save.run(() => api.graphql(OfficeProfileDocument, { input }))) onSaved();
  }
  const uploadLogo = () =>
    save.run(async () => {
      const file = logo.current?.files?.[0];
      if (!file) throw new Error('Choose an image first.');
      await api.upload('/organization/logo', file);
      onSaved();
    });
  return (
    <form className="card-form" onSubmit={submit} aria-labelledby="profile-title">
      <h2 id="profile-title">Organization</h2>
      <Field label="Name">
        <input required value={form.name} onChange={set('name')} />
      </Field>
      <Field label="Email">
        <input type="email" value={form.email} onChange={set('email')} />
      </Field>
      <Field label="Phone">
        <input value={form.phone} onChange={set('phone')} />
      </Field>
      <Field label="Website">
        <input value={form.website} onChange={set('website')} />
      </Field>
      <button type="submit" disabled={save.busy}>
        Save
      </button>
      <div className="upload">
        {o.logo && <img src={o.logo} alt="Current logo" className="logo-preview" />}
        <Field label="Logo (JPEG, PNG or WebP)">
          <input ref={logo} type="file" accept="image/*" />
        </Field>
        <button type="button" disabled={save.busy} onClick={() => void uploadLogo()}>
          Upload logo
        </button>
      </div>
      <Alert message={save.error} />
    </form>
  );
}

function Preferences({ answer, onSaved }: { answer: OrganizationAnswer; onSaved: () => void }) {
  const { api } = useSession();
  const s = answer.organization.settings;
  const [form, setForm] = useState({
    quotePrefix: s.quotePrefix,
    invoicePrefix: s.invoicePrefix,
    invoiceDueDays: String(s.invoiceDueDays),
    emailFromName: s.emailFromName ?? '',
    emailReplyTo: s.emailReplyTo ?? '',
    defaultTaxId: s.defaultTaxId ?? '',
  });
  const [sendVisitReports, setSendVisitReports] = useState(s.sendVisitReports);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => {
    setSaved(false);
    setForm({ ...form, [field]: e.target.value });
  };
  async function submit(event: FormEvent) {
    event.preventDefault();
    const input = { ...form, invoiceDueDays: Number(form.invoiceDueDays), defaultTaxId: form.defaultTaxId || null, emailReplyTo: form.emailReplyTo || null, sendVisitReports };
    const done = await save.run(() => api.graphql(OfficeSettingsDocument, { input }));
    if (done) {
      setSaved(true);
      onSaved();
    }
  }
  return (
    <form className="card-form" onSubmit={submit} aria-labelledby="prefs-title">
      <h2 id="prefs-title">Settings</h2>
      <Field label="Quote number prefix">
        <input value={form.quotePrefix} onChange={set('quotePrefix')} />
      </Field>
      <Field label="Invoice number prefix">
        <input value={form.invoicePrefix} onChange={set('invoicePrefix')} />
      </Field>
      <Field label="Invoice due after (days)">
        <input type="number" min="0" value={form.invoiceDueDays} onChange={set('invoiceDueDays')} />
      </Field>
      <Field label="Email sender name">
        <input value={form.emailFromName} onChange={set('emailFromName')} />
      </Field>
      <Field label="Reply-to address">
        <input type="email" value={form.emailReplyTo} onChange={set('emailReplyTo')} />
      </Field>
      <Field label="Default tax">
        <select value={form.defaultTaxId} onChange={set('defaultTaxId')}>
          <option value="">None</option>
          {answer.taxes.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} ({t.rate}%)
            </option>
          ))}
        </select>
      </Field>
      <Field label="Send each completed visit's report to its customer (email and text, as the customer chose)">
        <input
          type="checkbox"
          checked={sendVisitReports}
          onChange={(e) => {
            setSaved(false);
            setSendVisitReports(e.target.checked);
          }}
        />
      </Field>
      <button type="submit" disabled={save.busy}>
        Save settings
      </button>
      {saved && <span role="status">Saved.</span>}
      <Alert message={save.error} />
    </form>
  );
}

/** The roles a new token may have, the usual first. */
const ROLES_OFFERED: readonly Role[] = ['TECHNICIAN', 'OFFICE', 'API', 'ADMIN'];

function Tokens() {
  const { api } = useSession();
  const tokens = useGraphQL(OfficeTokensDocument, undefined, []);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('TECHNICIAN');
  const [shown, setShown] = useState<{ name: string; token: string } | null>(null);
  const action = useAction();
  async function create(event: FormEvent) {
    event.preventDefault();
    const created = await action.run(() =>
      api.graphql(OfficeCreateTokenDocument, { input: { name, role } }),
    );
    if (!created) return;
    tokens.reload();
    setShown({ name, token: created.createApiToken.token });
    setName('');
  }
  const revoke = (id: string) =>
    action.run(async () => {
      await api.graphql(OfficeRevokeDocument, { id });
      tokens.reload();
    });
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p>
        Each token is a user with one role: TECHNICIAN for a technician (whose phones sign in under Phones, each with a token of its own listed here), OFFICE for a person in the office, API for an integration.
        Technician and office tokens stop working once unused for a while (30 days unless the server is set otherwise).
      </p>
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {tokens.data?.apiTokens.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>{t.role}</td>
              <td>{dateTime(t.createdAt)}</td>
              <td>{t.lastUsedAt ? dateTime(t.lastUsedAt) : 'never'}</td>
              <td>
                {t.revokedAt ? (
                  `revoked ${dateTime(t.revokedAt)}`
                ) : (
                  <>
                    {t.idleExpiresAt && Date.parse(t.idleExpiresAt) <= Date.now() && <span className="hint">expired (unused since {dateTime(t.lastUsedAt ?? t.createdAt)}) </span>}
                    <button type="button" onClick={() => void revoke(t.id)} aria-label={`Revoke ${t.name}`}>
                      Revoke
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="card-form wide inline" onSubmit={create} aria-label="New API token">
        <Field label="Name">
          <input required value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Maria's tablet" />
        </Field>
        <Field label="Role">
          <select value={role} onChange={(e) => setRole(ROLES.find((r) => r === e.target.value) ?? 'TECHNICIAN')}>
            {ROLES_OFFERED.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={action.busy}>
          Create token
        </button>
      </form>
      {shown && (
        <div role="status" className="new-token">
          <p>
            The token for <strong>{shown.name}</strong>, shown this once. Copy it now:
          </p>
          <code data-testid="new-token">{shown.token}</code>
        </div>
      )}
      <Alert message={action.error} />
    </section>
  );
}
