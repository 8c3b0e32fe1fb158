import { Alert } from '../../app-kit/components/alert.js';
import { useState, type FormEvent } from 'react';

/** The first screen: a token pasted once (the server prints the demo ADMIN token at first start). */
export function SignInScreen({ onSignIn, error }: { onSignIn: (token: string) => Promise<void>; error: string | null }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    await onSignIn(token.trim());
    setBusy(false);
  }
  return (
    <main className="sign-in">
      <h1>Pool service office</h1>
      <form onSubmit={submit}>
        <label htmlFor="token">API token</label>
        <input id="token" name="token" type="password" autoComplete="off" required value={token} onChange={(e) => setToken(e.target.value)} placeholder="pst_…" />
        <p className="hint">An ADMIN or OFFICE token. The server prints the demo organization's token when it first starts; an admin can issue more under Settings.</p>
        <button type="submit" disabled={busy || !token.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <Alert message={error} />
      </form>
    </main>
  );
}
