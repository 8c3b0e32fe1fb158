import type { VisitReportView } from './visit-report.js';

/** The report as plain text: the email's text part, and the short text message. */

function readingLine(r: VisitReportView['readings'][number]): string {
  return `${r.label}: ${r.value}${r.unit ? ` ${r.unit}` : ''}${r.outOfRange ? ' (out of range)' : ''}`;
}

function balanceLine(b: NonNullable<VisitReportView['balance']>): string {
  return `${b.words} (${b.index === 'CSI' ? 'calcite' : 'Langelier'} saturation index ${b.value < 0 ? '-' : '+'}${Math.abs(b.value).toFixed(2)})`;
}

/** The email's plain-text part: everything the HTML shows, photos as their links. */
export function reportEmailText(view: VisitReportView, links: { page: string; photo(id: string): string }): string {
  const who = view.technicianFirstName ? `${view.technicianFirstName} from ${view.organization.name}` : view.organization.name;
  const lines = [`Hello ${view.customerName},`, '', `${who} serviced your pool on ${view.visitDate}.`];
  if (view.readings.length) lines.push('', 'Water readings', ...view.readings.map(readingLine));
  if (view.balance) lines.push('', 'Water balance', balanceLine(view.balance));
  if (view.added.length) lines.push('', 'Added and used on this visit', ...view.added.map((a) => `${a.quantity} ${a.unit ?? ''} ${a.name}${a.forReading ? ` (for ${a.forReading})` : ''}`.replace(/ +/g, ' ')));
  if (view.water.length) lines.push('', 'What we saw', ...view.water.map((w) => `${w.label}: ${w.value}`));
  if (view.notes) lines.push('', 'Notes', view.notes);
  if (view.photos.length) lines.push('', 'Photos', ...view.photos.map((p) => `${p.caption ? `${p.caption}: ` : ''}${links.photo(p.id)}`));
  lines.push('', `View this report online: ${links.page}`, '', view.organization.name);
  return lines.join('\n');
}

/** The text message: who came, when, how the water is, and the link to the report page. */
export function reportSms(view: VisitReportView, page: string): string {
  const who = view.technicianFirstName ?? 'We';
  const date = view.visitDate.replace(/, \d{4}$/, '');
  const off = view.readings.filter((r) => r.outOfRange);
  const water = !view.readings.length ? '' : off.length ? ` Needs attention: ${off.map((r) => r.label).join(', ')}.` : ' Water readings all in range.';
  return `${view.organization.name}: ${who} serviced your pool on ${date}.${water} Report: ${page}`;
}

export const subjectOf = (view: VisitReportView) => `Your pool visit on ${view.visitDate.replace(/, \d{4}$/, '')}: ${view.organization.name}`;
