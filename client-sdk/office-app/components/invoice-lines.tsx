import { money } from '../../app-kit/format.js';
import { href } from '../../app-kit/route.js';
import { lineSource } from '../billing/format.js';
import type { OfficeInvoiceLineFragment } from '../graphql/operations.generated.js';

/**
 * An invoice's lines, each with where it comes from (the visit and its date, a chemical used, the
 * month's flat rate, a quote's line, or typed by hand), so a draft can be checked against the work
 * before it is finalized. A line of a visit links to the visit.
 */
export function InvoiceLines({ lines, currency, totals }: { lines: OfficeInvoiceLineFragment[]; currency: string; totals?: { subtotal: number; tax: number; total: number } }) {
  const sorted = [...lines].sort((a, b) => a.position - b.position);
  return (
    <table className="list lines" data-testid="invoice-lines">
      <thead>
        <tr>
          <th scope="col">Source</th>
          <th scope="col">Description</th>
          <th scope="col">Quantity</th>
          <th scope="col">Unit price</th>
          <th scope="col">Amount</th>
        </tr>
      </thead>
      <tbody>
        {sorted.map((line) => (
          <tr key={line.id} data-source={line.sourceType}>
            <td>{line.serviceId ? <a href={href('visit', line.serviceId)}>{lineSource(line)}</a> : lineSource(line)}</td>
            <td>{line.description}</td>
            <td className="number">{line.quantity}</td>
            <td className="number">{money(line.unitPrice, currency)}</td>
            <td className="number">{money(line.amount, currency)}</td>
          </tr>
        ))}
        {sorted.length === 0 && (
          <tr>
            <td colSpan={5}>No lines.</td>
          </tr>
        )}
      </tbody>
      {totals && (
        <tfoot>
          {(
            [
              ['Subtotal', totals.subtotal],
              ['Tax', totals.tax],
              ['Total', totals.total],
            ] as const
          ).map(([label, amount]) => (
            <tr key={label}>
              <th scope="row" colSpan={4}>
                {label}
              </th>
              <td className="number">{money(amount, currency)}</td>
            </tr>
          ))}
        </tfoot>
      )}
    </table>
  );
}
