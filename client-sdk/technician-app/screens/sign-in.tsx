import { useState, type FormEvent } from 'react';
import { Alert } from '../../app-kit/components/alert.js';

/**
 * Signing a phone in: the office shows the technician's QR code (Settings, Phones); scanning it
 * opens this app already signed in. The token can also be typed or pasted here.
 */
export function SignInScreen({ onSignIn, error }: { onSignIn: (token: string) => void; error: string | null }) {
  const [token, setToken] = useState('');
  function submit(event: FormEvent) {
    event.preventDefault();
    onSignIn(token.trim());
  }
  return (
    <main className="sign-in">
      <h1>Pool route</h1>
      <p>Scan the QR code the office shows for your phone (Settings, Phones), or paste your token.</p>
      <form onSubmit={submit}>
        <label htmlFor="token">Technician token</label>
        <input id="token" type="password" autoComplete="off" required value={token} onChange={(e) => setToken(e.target.value)} placeholder="pst_…" />
        <button type="submit" disabled={!token.trim()}>
          Sign in
        </button>
        <Alert message={error} />
      </form>
    </main>
  );
}
