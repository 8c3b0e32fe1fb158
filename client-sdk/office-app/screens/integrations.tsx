import { useState, type FormEvent } from 'react';
import { EVENT_TYPES } from '../../../shared/index.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { dateTime } from '../../app-kit/format.js';
import { useAction, useGraphQL, useSession } from '../../app-kit/hooks.js';
import {
  OfficeCreateWebhookDocument,
  OfficeDeleteWebhookDocument,
  OfficeRedeliverDocument,
  OfficeRotateWebhookSecretDocument,
  OfficeUpdateWebhookDocument,
  OfficeWebhookDeliveriesDocument,
  OfficeWebhooksDocument,
  type OfficeWebhooksQuery,
} from '../graphql/operations.generated.js';

/**
 * Settings, Integrations (ADMIN): the organization's webhook endpoints with their health, a new
 * endpoint (its signing secret shown once), and the recent deliveries, each of which can be sent
 * again. An endpoint the server disabled (410 Gone, or failing for days) is called out at the top.
 */
type Endpoint = OfficeWebhooksQuery['webhookEndpoints'][number];

export function Integrations() {
  const endpoints = useGraphQL(OfficeWebhooksDocument, undefined, []);
  const [selected, setSelected] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [round, setRound] = useState(0);
  const reload = () => {
    endpoints.reload();
    setRound((r) => r + 1);
  };
  const list = endpoints.data?.webhookEndpoints ?? [];
  const disabled = list.filter((e) => !e.enabled && e.disabledReason !== 'Disabled by an ADMIN');
  return (
    <section aria-labelledby="integrations-title" className="integrations">
      <h2 id="integrations-title">Integrations</h2>
      <p>
        Webhooks send each change an integration cares about (a visit completed, a quote accepted, an invoice finalized, stock running low) to its
        address as it happens, signed (Standard Webhooks). Integrations can also read the same events from the API's event feed for 30 days.
      </p>
      {disabled.map((e) => (
        <p key={e.id} role="alert" className="error">
          Deliveries to {e.url} stopped {e.disabledAt ? dateTime(e.disabledAt) : ''}: {e.disabledReason} Enable it once its receiver works again.
        </p>
      ))}
      <Alert message={endpoints.error} />
      <EndpointTable endpoints={list} selected={selected} onSelect={setSelected} onChanged={reload} onSecret={setSecret} />
      <NewEndpoint onCreated={(created) => (setSecret(created), reload())} />
      {secret && (
        <div role="status" className="new-token">
          <p>
            The signing secret of <strong>{secret.url}</strong>, shown this once. Give it to the receiver, which verifies each delivery with it:
          </p>
          <code data-testid="new-webhook-secret">{secret.secret}</code>
        </div>
      )}
      <Deliveries endpointId={selected} endpoints={list} round={round} onSent={reload} />
    </section>
  );
}

function health(e: Endpoint): string {
  if (!e.enabled) return `Disabled${e.disabledAt ? ` ${dateTime(e.disabledAt)}` : ''}`;
  if (e.failingSince) return `Failing since ${dateTime(e.failingSince)}`;
  return e.lastSuccessAt ? 'Healthy' : 'No deliveries yet';
}

function EndpointTable(props: {
  endpoints: Endpoint[];
  selected: string | null;
  onSelect: (id: string | null) => void;
  onChanged: () => void;
  onSecret: (shown: { url: string; secret: string }) => void;
}) {
  const { api } = useSession();
  const action = useAction();
  const act = (work: () => Promise<unknown>) => action.run(async () => (await work(), props.onChanged()));
  if (!props.endpoints.length) return <p>No webhook endpoints yet.</p>;
  return (
    <>
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Address</th>
            <th scope="col">Events</th>
            <th scope="col">Health</th>
            <th scope="col">Last delivered</th>
            <th scope="col">Waiting / failed</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.endpoints.map((e) => (
            <tr key={e.id} aria-selected={props.selected === e.id} data-endpoint={e.id}>
              <td>
                <span className="url">{e.url}</span>
                {e.description && <div className="muted">{e.description}</div>}
              </td>
              <td>{e.eventTypes?.length ? e.eventTypes.join(', ') : 'All'}</td>
              <td data-testid="webhook-health">{health(e)}</td>
              <td>{e.lastSuccessAt ? dateTime(e.lastSuccessAt) : 'never'}</td>
              <td>
                {e.pendingDeliveries} / {e.failedDeliveries}
              </td>
              <td className="actions">
                <button type="button" onClick={() => props.onSelect(props.selected === e.id ? null : e.id)} aria-label={`Deliveries to ${e.url}`}>
                  Deliveries
                </button>
                <button
                  type="button"
                  onClick={() => void act(() => api.graphql(OfficeUpdateWebhookDocument, { id: e.id, input: { enabled: !e.enabled } }))}
                  aria-label={`${e.enabled ? 'Disable' : 'Enable'} ${e.url}`}
                >
                  {e.enabled ? 'Disable' : 'Enable'}
                </button>
                <button
                  type="button"
                  onClick={() =>
                    void act(async () => {
                      const rotated = await api.graphql(OfficeRotateWebhookSecretDocument, { id: e.id });
                      if (rotated.rotateWebhookSecret.secret) props.onSecret({ url: e.url, secret: rotated.rotateWebhookSecret.secret });
                    })
                  }
                  aria-label={`New secret for ${e.url}`}
                >
                  New secret
                </button>
                <button
                  type="button"
                  onClick={() => confirm(`Delete the endpoint ${e.url} and its delivery log?`) && void act(() => api.graphql(OfficeDeleteWebhookDocument, { id: e.id }))}
                  aria-label={`Delete ${e.url}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Alert message={action.error} />
    </>
  );
}

function NewEndpoint({ onCreated }: { onCreated: (shown: { url: string; secret: string }) => void }) {
  const { api } = useSession();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const action = useAction();
  async function create(event: FormEvent) {
    event.preventDefault();
    const created = await action.run(() => api.graphql(OfficeCreateWebhookDocument, { input: { url, description: description || null, eventTypes: types } }));
    if (!created?.createWebhookEndpoint.secret) return;
    onCreated({ url: created.createWebhookEndpoint.endpoint.url, secret: created.createWebhookEndpoint.secret });
    setUrl('');
    setDescription('');
    setTypes([]);
  }
  const toggle = (type: string) => setTypes((now) => (now.includes(type) ? now.filter((t) => t !== type) : [...now, type]));
  return (
    <form className="card-form wide" onSubmit={create} aria-label="New webhook endpoint">
      <h3>New endpoint</h3>
      <Field label="Endpoint URL">
        <input required type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/pool-service" />
      </Field>
      <Field label="Description">
        <input value={description} onChange={(e) => setDescription(e.target.value)} placeholder="e.g. Accounting sync" />
      </Field>
      <fieldset className="event-types">
        <legend>Events to send (none ticked: all of them)</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type}>
            <input type="checkbox" checked={types.includes(type)} onChange={() => toggle(type)} /> {type}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={action.busy}>
        Add endpoint
      </button>
      <Alert message={action.error} />
    </form>
  );
}

function Deliveries({ endpointId, endpoints, round, onSent }: { endpointId: string | null; endpoints: Endpoint[]; round: number; onSent: () => void }) {
  const { api } = useSession();
  const deliveries = useGraphQL(OfficeWebhookDeliveriesDocument, { endpointId }, [endpointId, round]);
  const action = useAction();
  const urlOf = (id: string) => endpoints.find((e) => e.id === id)?.url ?? id;
  const rows = deliveries.data?.infiniteWebhookDeliveries.edges.map((e) => e.node) ?? [];
  return (
    <section aria-labelledby="deliveries-title">
      <h3 id="deliveries-title">Recent deliveries{endpointId ? ` to ${urlOf(endpointId)}` : ''}</h3>
      <button type="button" onClick={() => deliveries.reload()}>
        Refresh
      </button>
      {rows.length ? (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">To</th>
              <th scope="col">Attempt</th>
              <th scope="col">Answer</th>
              <th scope="col">Time</th>
              <th scope="col">Resend</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id} className={d.succeeded ? '' : 'failed'}>
                <td>{dateTime(d.attemptedAt)}</td>
                <td>
                  {d.eventType} <span className="muted">{d.eventId}</span>
                </td>
                <td>{urlOf(d.endpointId)}</td>
                <td>{d.attempt}</td>
                <td>{d.succeeded ? `${d.status} OK` : (d.error ?? `HTTP ${d.status}`)}</td>
                <td>{d.durationMs} ms</td>
                <td>
                  <button
                    type="button"
                    aria-label={`Resend ${d.eventType} ${d.eventId}`}
                    onClick={() =>
                      void action.run(async () => {
                        await api.graphql(OfficeRedeliverDocument, { eventId: d.eventId, endpointId: d.endpointId });
                        onSent();
                      })
                    }
                  >
                    Resend
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No deliveries yet.</p>
      )}
      <Alert message={action.error ?? deliveries.error} />
    </section>
  );
}
