import { appointmentResource, type Appointment } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { recordTable } from './records.js';

export const appointments = recordTable(appointmentResource);

/** The next scheduled appointment (from now on) of each customer that has one. */
export async function nextAppointmentsOf(
  q: Queryable,
  orgId: string,
  customerIds: readonly string[],
): Promise<Appointment[]> {
  const { rows } = await q.query(
    `select distinct on (customer_id) ${appointments.selectList()}
       from appointments
      where org_id = $1 and customer_id = any($2::text[]) and not _deleted
        and status = 'SCHEDULED' and start_time >= now()
      order by customer_id, start_time, id`,
    [orgId, customerIds],
  );
  return rows.map(appointments.toRecord);
}
