import { toDataURL } from 'qrcode';
import { useEffect, useState } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { time } from '../../app-kit/format.js';
import { useAction, useSession } from '../../app-kit/hooks.js';
import { OfficePhoneSignInCodeDocument } from '../graphql/operations.generated.js';
import { useTechnicians, type Technician } from '../technicians.js';

/**
 * Signing a technician's phone in: the server makes a one-time code for the technician
 * (`createPhoneSignInCode`), shown here as a QR code of the technician app's link (`/tech/#code=…`)
 * and as text to type. The phone trades it for a token of its own, which never appears here: a
 * photo of this screen is worth nothing once the code is used, or after its few minutes. Each
 * phone's token is listed, and revocable alone, under API tokens.
 */
interface Shown {
  technician: Technician;
  code: string;
  link: string;
  qr: string;
  expiresAt: string;
}

export function PhoneSignIn() {
  const technicians = useTechnicians();
  const [shown, setShown] = useState<Shown | null>(null);
  const expired = useExpired(shown?.expiresAt ?? null);
  const action = useAction();
  const { api } = useSession();
  const signIn = (technician: Technician) =>
    action.run(async () => {
      const { createPhoneSignInCode: made } = await api.graphql(OfficePhoneSignInCodeDocument, { technicianId: technician.id });
      setShown({ technician, ...made, qr: await toDataURL(made.link, { errorCorrectionLevel: 'M', margin: 2, width: 320 }) });
    });
  return (
    <section aria-labelledby="phones-title">
      <h2 id="phones-title">Phones</h2>
      <p>A technician's phone signs in by scanning its QR code: the technician app opens with their route. The code works once, for a few minutes.</p>
      {technicians.length === 0 ? (
        <p className="hint">No technicians yet: an admin adds one as a TECHNICIAN under API tokens.</p>
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
      {shown && !expired && (
        <figure role="status" className="phone-qr">
          <img src={shown.qr} width={320} height={320} alt={`QR code that signs ${shown.technician.name}'s phone in to the technician app`} />
          <figcaption>
            <p>Scan with {shown.technician.name}'s phone, or type this code in the technician app:</p>
            <p className="code" data-testid="phone-code">
              {shown.code}
            </p>
            <p>
              It works once, until {time(shown.expiresAt)}. The link: <code data-testid="phone-link">{shown.link}</code>
            </p>
          </figcaption>
        </figure>
      )}
      {shown && expired && (
        <p role="status" data-testid="phone-code-expired">
          The code for {shown.technician.name}'s phone has expired. Make a new one when the phone is at hand.
        </p>
      )}
      <Alert message={action.error} />
    </section>
  );
}

/** Whether `at` has passed, re-rendered when it does. */
function useExpired(at: string | null): boolean {
  const [expired, setExpired] = useState(false);
  useEffect(() => {
    setExpired(false);
    if (!at) return;
    const timer = setTimeout(() => setExpired(true), Math.max(0, Date.parse(at) - Date.now()));
    return () => clearTimeout(timer);
  }, [at]);
  return expired;
}
