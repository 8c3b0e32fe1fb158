import { toDataURL } from 'qrcode';
import { useState } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { useAction, useSession } from '../../app-kit/hooks.js';
import { OfficeCreateTokenDocument } from '../graphql/operations.generated.js';
import { useTechnicians, type Technician } from '../technicians.js';

/**
 * Signing a technician's phone in without typing 43 characters: the office creates a further
 * token of that technician (a token per phone, revocable alone in API tokens) and shows the
 * technician app's link with it as a QR code; the phone's camera opens it and the app signs in
 * (the token leaves the address at once). The link is shown this once, like any new token.
 */
export function PhoneSignIn() {
  const technicians = useTechnicians();
  const [shown, setShown] = useState<{ technician: Technician; link: string; qr: string } | null>(null);
  const action = useAction();
  const { api } = useSession();
  const signIn = (technician: Technician) =>
    action.run(async () => {
      const input = { name: `${technician.name}'s phone`, role: 'TECHNICIAN' as const, userId: technician.id };
      const { createApiToken } = await api.graphql(OfficeCreateTokenDocument, { input });
      const link = technicianAppLink(createApiToken.token);
      setShown({ technician, link, qr: await toDataURL(link, { errorCorrectionLevel: 'M', margin: 2, width: 320 }) });
    });
  return (
    <section aria-labelledby="phones-title">
      <h2 id="phones-title">Phones</h2>
      <p>A technician's phone signs in by scanning its QR code: the technician app opens with their route.</p>
      {technicians.length === 0 ? (
        <p className="hint">No technicians yet: create a TECHNICIAN token below first.</p>
      ) : (
        <ul className="phone-list">
          {technicians.map((t) => (
            <li key={t.id}>
              <span>{t.name}</span>
              <button type="button" onClick={() => void signIn(t)} disabled={action.busy}>
                Sign in {t.name}'s phone
              </button>
            </li>
          ))}
        </ul>
      )}
      {shown && (
        <figure role="status" className="phone-qr">
          <img src={shown.qr} width={320} height={320} alt={`QR code that signs ${shown.technician.name}'s phone in to the technician app`} />
          <figcaption>
            Scan with {shown.technician.name}'s phone, shown this once. Or open on the phone:{' '}
            <code data-testid="phone-link">{shown.link}</code>
          </figcaption>
        </figure>
      )}
      <Alert message={action.error} />
    </section>
  );
}

/** The technician app's address on this server, with the token to sign in with. */
export function technicianAppLink(token: string): string {
  return `${location.origin}/tech/#token=${encodeURIComponent(token)}`;
}
