import { useEffect, useState } from 'react';
import { SyncBar } from './components/sync-bar.js';
import { DeviceStorageNotices } from '../app-kit/components/device-storage-notices.js';
import { SessionContext, useObservable, useSession } from '../app-kit/hooks.js';
import { useAppUpdate } from '../app-kit/app-update.js';
import { UpdateNotice } from '../app-kit/components/update-notice.js';
import { appUpdates } from './app-update.js';
import { href, useRoute, type Route } from '../app-kit/route.js';
import { AgingScreen } from './screens/aging.js';
import { BillingScreen } from './screens/billing.js';
import { BoardScreen } from './screens/board.js';
import { BulkScreen } from './screens/bulk.js';
import { ConflictsScreen } from './screens/conflicts.js';
import { CustomerScreen } from './screens/customer.js';
import { CustomersScreen } from './screens/customers.js';
import { InventoryScreen } from './screens/inventory.js';
import { InvoiceScreen } from './screens/invoice.js';
import { InvoicesScreen } from './screens/invoices.js';
import { PaymentScreen } from './screens/payment.js';
import { QuoteScreen } from './screens/quote.js';
import { QuotesScreen } from './screens/quotes.js';
import { SettingsScreen } from './screens/settings.js';
import { SignInScreen } from './screens/sign-in.js';
import { StatementScreen } from './screens/statement.js';
import { VisitScreen } from './screens/visit.js';
import { closeSession, openSession, storedToken, whenSignedOut, type Session } from './session.js';

/** The sections of the app, in the order of the navigation bar. */
const SECTIONS = [
  ['board', 'Dispatch board'],
  ['customers', 'Customers'],
  ['quotes', 'Quotes'],
  ['billing', 'Billing'],
  ['inventory', 'Inventory'],
  ['conflicts', 'Sync conflicts'],
  ['bulk', 'Bulk operations'],
  ['settings', 'Settings'],
] as const;

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedToken() !== null);
  const [signInError, setSignInError] = useState<string | null>(null);

  async function signIn(token: string): Promise<void> {
    setSignInError(null);
    try {
      setSession(await openSession(token));
    } catch (error) {
      setSignInError((error as Error).message);
    }
  }

  useEffect(() => {
    const token = storedToken();
    if (token) void signIn(token).finally(() => setRestoring(false));
  }, []);

  // Signed out by the server (the token revoked or expired): the replica has kept only the changes
  // not yet synced; back to the sign-in screen, saying why.
  useEffect(() => {
    if (!session) return;
    let current = true;
    void whenSignedOut(session).then((out) => {
      if (!current || !out) return;
      setSession(null);
      const why = out.reason === 'revoked' ? 'This token was revoked' : out.reason === 'expired' ? 'This token expired, unused for too long' : 'The server no longer knows this token';
      const kept = out.kept.changes + out.kept.photos;
      setSignInError(`${why}: signed out, and the organization's data was deleted from this browser${kept ? `, but for ${kept} change${kept === 1 ? '' : 's'} not yet sent, which go to the server when you sign in again` : ''}. Sign in with a valid token.`);
    });
    return () => {
      current = false;
    };
  }, [session]);

  if (restoring && !session) return <p className="loading">Opening the replica…</p>;
  if (!session) return <SignInScreen onSignIn={signIn} error={signInError} />;
  const signOut = async () => {
    await closeSession(session);
    setSession(null);
  };
  return (
    <SessionContext.Provider value={session}>
      <Shell onSignOut={signOut} />
    </SessionContext.Provider>
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  return (
    <div className="shell">
      <SyncBar onSignOut={onSignOut} />
      <AppVersionNotice />
      <DeviceStorageNotices app="office" />
      <nav aria-label="Sections">
        <ul>
          {SECTIONS.map(([screen, label]) => (
            <li key={screen}>
              <a href={href(screen)} aria-current={sectionOf(route) === screen ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="content">
        <Screen route={route} />
      </main>
    </div>
  );
}

/** A new version is ready (taken at a safe moment), or "Update to sync" when the server no longer syncs with this one. */
function AppVersionNotice() {
  const { client } = useSession();
  const status = useObservable(() => client.sync.status$, null, [client]);
  const update = useAppUpdate(appUpdates, client);
  return <UpdateNotice ready={update.ready} apply={update.apply} status={status} device="computer" />;
}

/** A visit's page belongs to the board, a customer's to customers, an invoice's (and the other billing screens) to billing. */
const SECTION_OF: Record<string, string> = { visit: 'board', customer: 'customers', quote: 'quotes', invoice: 'billing', invoices: 'billing', aging: 'billing', statement: 'billing', payment: 'billing' };
const sectionOf = (route: Route) => SECTION_OF[route.screen] ?? route.screen;

function Screen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'customers':
      return <CustomersScreen />;
    case 'customer':
      return <CustomerScreen id={route.id!} />;
    case 'visit':
      return <VisitScreen id={route.id!} />;
    case 'quotes':
      return <QuotesScreen />;
    case 'quote':
      return <QuoteScreen id={route.id!} />;
    case 'billing':
      return <BillingScreen />;
    case 'invoices':
      return <InvoicesScreen />;
    case 'invoice':
      return <InvoiceScreen id={route.id!} />;
    case 'aging':
      return <AgingScreen />;
    case 'statement':
      return <StatementScreen customerId={route.id} />;
    case 'payment':
      return <PaymentScreen customerId={route.id} />;
    case 'inventory':
      return <InventoryScreen />;
    case 'conflicts':
      return <ConflictsScreen />;
    case 'bulk':
      return <BulkScreen />;
    case 'settings':
      return <SettingsScreen />;
    default:
      return <BoardScreen />;
  }
}
