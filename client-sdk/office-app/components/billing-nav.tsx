import { href } from '../../app-kit/route.js';

/** The billing screens, one link each; the current one marked for a screen reader too. */
const PAGES = [
  ['billing', 'Run the month & drafts'],
  ['invoices', 'Unpaid & overdue'],
  ['aging', 'Aging'],
  ['statement', 'Statements'],
  ['payment', 'Record a payment'],
] as const;

export function BillingNav({ current }: { current: (typeof PAGES)[number][0] }) {
  return (
    <nav aria-label="Billing" className="subnav">
      <ul>
        {PAGES.map(([screen, label]) => (
          <li key={screen}>
            <a href={href(screen)} aria-current={screen === current ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
