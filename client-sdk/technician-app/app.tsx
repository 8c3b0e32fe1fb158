import { useEffect, useState } from 'react';
import { DeviceStorageNotices } from '../app-kit/components/device-storage-notices.js';
import { SessionContext } from '../app-kit/hooks.js';
import { href, useRoute, type Route } from '../app-kit/route.js';
import { Notices, NoticesProvider } from './notices.js';
import { CustomerScreen } from './screens/customer.js';
import { QuoteScreen } from './screens/quote.js';
import { SignInScreen } from './screens/sign-in.js';
import { SyncScreen } from './screens/sync.js';
import { TodayScreen } from './screens/today.js';
import { TruckScreen } from './screens/truck.js';
import { VisitScreen } from './screens/visit.js';
import { closeSession, codeFromAddress, openSession, signedOutMessage, signInWithCode, storedToken, whenSignedOut, type Session } from './session.js';
import { SyncBadge } from './components/sync-badge.js';
import { useAppUpdate } from '../app-kit/app-update.js';
import { UpdateNotice } from '../app-kit/components/update-notice.js';
import { useObservable, useSession } from '../app-kit/hooks.js';
import { appUpdates } from './app-update.js';

/** The bottom bar: what a technician goes back to all day. */
const TABS = [
  ['today', 'Today'],
  ['truck', 'Truck'],
  ['sync', 'Sync'],
] as const;

/** What the app is opening: a code from the office (in the address or typed), or the token this phone kept. */
type Opening = { code: string } | { token: string } | null;

function openingAtStart(): Opening {
  const code = codeFromAddress();
  if (code) return { code };
  const token = storedToken();
  return token ? { token } : null;
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [opening, setOpening] = useState<Opening>(openingAtStart);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (!opening) return;
    setError(null);
    const open = 'code' in opening ? signInWithCode(opening.code) : openSession(opening.token);
    open.then(
      (opened) => {
        setNotice(null);
        setSession(opened);
      },
      (e: Error) => setError(e.message),
    ).finally(() => setOpening(null));
  }, [opening]);

  // Signed out by the server (revoked, expired) at the phone's next contact: the replica has kept
  // only the work not yet synced; back to the sign-in screen, saying why.
  useEffect(() => {
    if (!session) return;
    let current = true;
    void whenSignedOut(session).then((out) => {
      if (!current || !out) return;
      setSession(null);
      setNotice(signedOutMessage(out));
    });
    return () => {
      current = false;
    };
  }, [session]);

  /** A code typed on the sign-in screen: the route opens on today, as from the QR code. */
  function signInTyped(code: string): void {
    history.replaceState(null, '', `${location.pathname}${location.search}#/today`);
    setOpening({ code });
  }

  if (opening) return <p className="loading">Opening your route…</p>;
  if (!session) return <SignInScreen error={error} notice={notice} onSignIn={signInTyped} />;
  const signOut = async () => {
    await closeSession(session);
    setSession(null);
  };
  return (
    <SessionContext.Provider value={session}>
      <NoticesProvider>
        <Shell onSignOut={signOut} />
      </NoticesProvider>
    </SessionContext.Provider>
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute('today');
  return (
    <div className="shell">
      <header className="top">
        <span className="title">{titleOf(route)}</span>
        <SyncBadge />
      </header>
      <AppVersionNotice />
      <Notices />
      <DeviceStorageNotices app="tech" />
      <main id="content">
        <Screen route={route} onSignOut={onSignOut} />
      </main>
      <nav aria-label="Sections" className="tabs">
        {TABS.map(([screen, label]) => (
          <a key={screen} href={href(screen)} aria-current={tabOf(route) === screen ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
    </div>
  );
}

/** A new version ready (taken at a safe moment), or "Update to sync" when the server no longer syncs with this one. */
function AppVersionNotice() {
  const { client } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const update = useAppUpdate(appUpdates, client);
  return <UpdateNotice ready={update.ready} apply={update.apply} status={status} device="phone" />;
}

const tabOf = (route: Route) => (['visit', 'customer', 'quote', 'day'].includes(route.screen) ? 'today' : route.screen);
const titleOf = (route: Route) => ({ truck: 'Truck stock', sync: 'Sync', visit: 'Visit', customer: 'Customer', quote: 'Quote' })[route.screen] ?? 'Route';

function Screen({ route, onSignOut }: { route: Route; onSignOut: () => void }) {
  switch (route.screen) {
    case 'visit':
      return <VisitScreen id={route.id!} />;
    case 'customer':
      return <CustomerScreen id={route.id!} />;
    case 'quote':
      return <QuoteScreen customerId={route.id} />;
    case 'truck':
      return <TruckScreen />;
    case 'sync':
      return <SyncScreen onSignOut={onSignOut} />;
    default:
      return <TodayScreen day={route.screen === 'day' ? route.id : null} />;
  }
}
