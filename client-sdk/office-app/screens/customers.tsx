import { Alert } from '../../app-kit/components/alert.js';
import { useEffect, useState } from 'react';
import { OfficeCustomersDocument, type OfficeCustomersQuery } from '../graphql/operations.generated.js';
import { Field } from '../../app-kit/components/field.js';
import { customerAddress, customerName } from '../../app-kit/format.js';
import { useSession } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';

/**
 * Customers: search as you type through the server's search (names, addresses, phones; any
 * number of customers), a page of 25 at a time.
 */
const PAGE = 25;
type ListedCustomer = OfficeCustomersQuery['infiniteCustomers']['edges'][number]['node'];

export function CustomersScreen() {
  const { api } = useSession();
  const [search, setSearch] = useState('');
  const [rows, setRows] = useState<ListedCustomer[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    // Waits for a pause in typing, so each keystroke does not cost a request.
    const timer = setTimeout(() => {
      api.graphql(OfficeCustomersDocument, { search: search.trim() || null, first: PAGE }).then(
        ({ infiniteCustomers: page }) => {
          if (!current) return;
          setRows(page.edges.map((e) => e.node));
          setTotal(page.totalCount);
          setNext(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
          setError(null);
        },
        (e: Error) => current && setError(e.message),
      );
    }, 150);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, search]);

  async function more() {
    const { infiniteCustomers: page } = await api.graphql(OfficeCustomersDocument, { search: search.trim() || null, first: PAGE, after: next });
    setRows((r) => [...r, ...page.edges.map((e) => e.node)]);
    setNext(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
  }

  return (
    <section aria-labelledby="customers-title">
      <h1 id="customers-title">Customers</h1>
      <div className="search">
        <Field label="Search">
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Name, street, city, phone…" autoFocus />
        </Field>
      </div>
      <Alert message={error} />
      <p role="status" data-testid="customer-total">
        {total === null ? 'Searching…' : `${total.toLocaleString()} customer${total === 1 ? '' : 's'}`}
      </p>
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Address</th>
            <th scope="col">Phone</th>
            <th scope="col">Tags</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.id}>
              <td>
                <a href={href('customer', c.id)}>{customerName(c)}</a>
              </td>
              <td>{customerAddress(c)}</td>
              <td>{c.phoneNumber}</td>
              <td>{c.tags?.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {next && (
        <button type="button" onClick={() => void more().catch((e: Error) => setError(e.message))}>
          Show more
        </button>
      )}
    </section>
  );
}
