import { useState, type FormEvent } from 'react';
import { Alert } from '../../app-kit/components/alert.js';

/**
 * Signing a phone in: the office shows a QR code for the technician's phone (Settings, Phones);
 * the camera opens it and the app signs in. Its code can also be typed here (ten letters; case,
 * spaces and dashes do not matter). It works once, for a few minutes. `notice` says why the phone
 * was signed out, when the server did it.
 */
export function SignInScreen({ onSignIn, error, notice }: { onSignIn: (code: string) => void; error: string | null; notice: string | null }) {
  const [code, setCode] = useState('');
  function submit(event: FormEvent) {
    event.preventDefault();
    onSignIn(code.trim());
  }
  return (
    <main className="sign-in">
      <h1>Pool route</h1>
      {notice && (
        <p role="status" className="notice" data-testid="signed-out">
          {notice}
        </p>
      )}
      <p>Scan the QR code the office shows for your phone (Settings, Phones) with the camera, or type the code shown under it.</p>
      <form onSubmit={submit}>
        <label htmlFor="code">Sign-in code</label>
        <input
          id="code"
          autoComplete="one-time-code"
          autoCapitalize="characters"
          autoCorrect="off"
          spellCheck={false}
          required
          maxLength={24}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          placeholder="XXXXX-XXXXX"
        />
        <button type="submit" disabled={!code.trim()}>
          Sign in
        </button>
        <Alert message={error} />
      </form>
    </main>
  );
}
